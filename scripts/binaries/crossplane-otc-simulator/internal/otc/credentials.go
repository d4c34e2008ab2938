package otc

import (
	"bytes"
	"encoding/json"
	"strings"
)

// CredentialValues is a provider credentials Secret value: a JSON object of
// strings with the OpenStack/Terraform keys (access_key, secret_key,
// security_token, user_name, password, domain_name, tenant_name,
// project_name, tenant_id, region, auth_url).
type CredentialValues map[string]string

// CredentialsError says why a credentials Secret cannot be used. Its
// message names keys, never a value.
type CredentialsError struct {
	msg string
}

func (e *CredentialsError) Error() string { return e.msg }

const unmarshalPrefix = "cannot unmarshal opentelekomcloud credentials as JSON: "

// ParseCredentials reads the Secret value as the Terraform-based provider
// does (into a map[string]string): anything but a JSON object of strings
// fails, without echoing the text, and non-string values are named by key
// in the order they appear.
func ParseCredentials(data []byte) (CredentialValues, error) {
	if !json.Valid(data) {
		return nil, &CredentialsError{msg: unmarshalPrefix + "the value is not valid JSON"}
	}
	notObject := &CredentialsError{msg: unmarshalPrefix + "the value is not a JSON object"}
	dec := json.NewDecoder(bytes.NewReader(data))
	// A token stream rather than Unmarshal into a map, to keep the keys'
	// order for the message about non-string values.
	start, err := dec.Token()
	if err != nil || start != json.Delim('{') {
		return nil, notObject
	}
	values := CredentialValues{}
	// As with JSON.parse: a key keeps the position of its first occurrence
	// and the value of its last.
	var order []string
	isString := map[string]bool{}
	for dec.More() {
		keyToken, err := dec.Token()
		if err != nil {
			return nil, notObject
		}
		key, _ := keyToken.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, notObject
		}
		if _, seen := isString[key]; !seen {
			order = append(order, key)
		}
		var value string
		isString[key] = len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &value) == nil
		if isString[key] {
			values[key] = value
		} else {
			delete(values, key)
		}
	}
	var notString []string
	for _, key := range order {
		if !isString[key] {
			notString = append(notString, key)
		}
	}
	if len(notString) > 0 {
		return nil, &CredentialsError{msg: unmarshalPrefix + "values must be strings (quote numbers and booleans): " + strings.Join(notString, ", ")}
	}
	return values, nil
}

// Settings are the provider's own settings that shape every client
// besides the Secret.
type Settings struct {
	// Endpoints, where set, override the endpoint of their service whatever
	// auth_url says: SingleEndpoint serves every service at one base URL
	// (the OTC simulator, a test server). Empty fields leave the service to
	// auth_url or OTC's defaults.
	Endpoints Endpoints
	// Client tunes every client (timeouts, retries).
	Client Options
	// MaxClients bounds how many clients NewClients keeps; default DefaultClientsCapacity.
	MaxClients int
}

// AccessKeyCredentials are permanent or temporary AK/SK; SecurityToken
// accompanies temporary keys.
type AccessKeyCredentials struct {
	AccessKey     string
	SecretKey     string
	SecurityToken string
}

// String keeps the keys out of logs when the struct is printed by accident.
func (AccessKeyCredentials) String() string { return "AccessKeyCredentials{[REDACTED]}" }

// GoString covers %#v as String covers %v.
func (a AccessKeyCredentials) GoString() string { return a.String() }

// PasswordCredentials are an IAM user's password, which buys tokens.
type PasswordCredentials struct {
	UserName string
	Password string
	// DomainName is the account (IAM domain) the user belongs to, e.g. OTC00000000001000000xxx.
	DomainName string
}

// String keeps the password out of logs when the struct is printed by accident.
func (PasswordCredentials) String() string { return "PasswordCredentials{[REDACTED]}" }

// GoString covers %#v as String covers %v.
func (p PasswordCredentials) GoString() string { return p.String() }

// Config is what a Client needs: one of the two credential kinds, the
// region, the project and where the services are.
type Config struct {
	// Region, e.g. eu-de.
	Region string
	// ProjectName is the project AK/SK discovery looks for and password
	// tokens are scoped to: the region or <region>_<name>.
	ProjectName string
	// ProjectID skips discovery when set (tenant_id).
	ProjectID string
	// Exactly one of AccessKey and Password is set.
	AccessKey *AccessKeyCredentials
	Password  *PasswordCredentials
	Endpoints Endpoints
}

// ConfigFromSecret is ParseCredentials followed by NewConfig.
func ConfigFromSecret(data []byte, settings Settings) (Config, error) {
	values, err := ParseCredentials(data)
	if err != nil {
		return Config{}, err
	}
	return NewConfig(values, settings)
}

// NewConfig turns Secret values into a client configuration: AK/SK if
// access_key or secret_key is present, else an IAM user's password. The
// region is region, else the part of the project name (tenant_name, then
// project_name) before its first "_" (eu-de_project → eu-de). Empty values
// count as absent. settings.Endpoints override per service.
func NewConfig(values CredentialValues, settings Settings) (Config, error) {
	get := func(key string) string { return values[key] }
	projectName := get("tenant_name")
	if projectName == "" {
		projectName = get("project_name")
	}
	region := get("region")
	if region == "" {
		region, _, _ = strings.Cut(projectName, "_")
	}
	if region == "" {
		return Config{}, &CredentialsError{msg: "cannot determine the region: set region, or tenant_name as <region> or <region>_<name>"}
	}
	if !validRegion(region) {
		return Config{}, &CredentialsError{msg: "the region is not a valid region name (lower-case letters and digits in hyphen-separated parts, like eu-de): check region or tenant_name"}
	}
	if projectName == "" {
		projectName = region
	}
	cfg := Config{Region: region, ProjectName: projectName, ProjectID: get("tenant_id")}

	accessKey, secretKey := get("access_key"), get("secret_key")
	switch {
	case accessKey != "" || secretKey != "":
		if accessKey == "" || secretKey == "" {
			return Config{}, &CredentialsError{msg: "access_key and secret_key must be given together"}
		}
		cfg.AccessKey = &AccessKeyCredentials{AccessKey: accessKey, SecretKey: secretKey, SecurityToken: get("security_token")}
	default:
		userName, password := get("user_name"), get("password")
		if userName == "" || password == "" {
			return Config{}, &CredentialsError{msg: "the credentials have neither access_key and secret_key nor user_name and password"}
		}
		domainName := get("domain_name")
		if domainName == "" {
			return Config{}, &CredentialsError{msg: "password credentials need domain_name"}
		}
		cfg.Password = &PasswordCredentials{UserName: userName, Password: password, DomainName: domainName}
	}

	if authURL := get("auth_url"); authURL != "" {
		var err error
		if cfg.Endpoints, err = EndpointsFromAuthURL(authURL, region); err != nil {
			return Config{}, err
		}
	} else {
		cfg.Endpoints = DefaultEndpoints(region)
	}
	for _, s := range services {
		if override := settings.Endpoints.For(s); override != "" {
			cfg.Endpoints.set(s, override)
		}
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// Validate checks what NewConfig guarantees, for configurations built by
// hand (tests, other sources). Messages name fields, never values.
func (c Config) Validate() error {
	if !validRegion(c.Region) {
		return &CredentialsError{msg: "the region is not a valid region name (lower-case letters and digits in hyphen-separated parts, like eu-de)"}
	}
	if (c.AccessKey == nil) == (c.Password == nil) {
		return &CredentialsError{msg: "exactly one of AK/SK and password credentials must be configured"}
	}
	if a := c.AccessKey; a != nil {
		// The AK is written into the Authorization header, whose syntax these characters would break.
		if a.AccessKey == "" || strings.ContainsAny(a.AccessKey, " \t\r\n,") {
			return &CredentialsError{msg: "access_key is empty or contains whitespace or commas"}
		}
		if a.SecretKey == "" {
			return &CredentialsError{msg: "secret_key is empty"}
		}
		if strings.ContainsAny(a.SecurityToken, "\r\n") {
			return &CredentialsError{msg: "security_token contains line breaks"}
		}
	}
	if p := c.Password; p != nil {
		switch {
		case p.UserName == "":
			return &CredentialsError{msg: "password credentials: user_name is empty"}
		case p.Password == "":
			return &CredentialsError{msg: "password credentials: password is empty"}
		case p.DomainName == "":
			return &CredentialsError{msg: "password credentials need domain_name"}
		case c.ProjectName == "":
			return &CredentialsError{msg: "password credentials need a project: set tenant_name or project_name, or region"}
		}
	}
	for _, s := range services {
		if _, err := parseEndpointURL("the endpoint for "+string(s), c.Endpoints.For(s)); err != nil {
			return err
		}
	}
	return nil
}
