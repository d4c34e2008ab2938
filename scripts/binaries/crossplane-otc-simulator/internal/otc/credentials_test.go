package otc

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

func TestParseCredentialsReadsAnObjectOfStrings(t *testing.T) {
	got, err := ParseCredentials([]byte(`{"access_key":"AK0123456789","secret_key":"sk-parse-test-value","region":"eu-de"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := CredentialValues{"access_key": "AK0123456789", "secret_key": "sk-parse-test-value", "region": "eu-de"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestParseCredentialsFailures(t *testing.T) {
	cases := []struct {
		name, text, message string
	}{
		{"not JSON", "secret_key=sk-not-json-value-1234", "cannot unmarshal opentelekomcloud credentials as JSON: the value is not valid JSON"},
		{"empty", "", "cannot unmarshal opentelekomcloud credentials as JSON: the value is not valid JSON"},
		{"truncated", `{"password":"pw-truncated-value"`, "cannot unmarshal opentelekomcloud credentials as JSON: the value is not valid JSON"},
		{"array", `["a"]`, "cannot unmarshal opentelekomcloud credentials as JSON: the value is not a JSON object"},
		{"null", `null`, "cannot unmarshal opentelekomcloud credentials as JSON: the value is not a JSON object"},
		{"string", `"sk-a-bare-string"`, "cannot unmarshal opentelekomcloud credentials as JSON: the value is not a JSON object"},
		{
			"non-string values, named in order",
			`{"max_retries":2,"insecure":false,"password":"pw-non-string-test","nested":{"a":"b"},"list":["x"],"nothing":null}`,
			"cannot unmarshal opentelekomcloud credentials as JSON: values must be strings (quote numbers and booleans): max_retries, insecure, nested, list, nothing",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCredentials([]byte(tc.text))
			var credErr *CredentialsError
			if !errors.As(err, &credErr) {
				t.Fatalf("got %v, want a *CredentialsError", err)
			}
			if err.Error() != tc.message {
				t.Fatalf("got %q, want %q", err.Error(), tc.message)
			}
			mustNotContain(t, err.Error(), "sk-not-json", "pw-truncated-value", "pw-non-string-test", "sk-a-bare-string")
		})
	}
}

func TestParseCredentialsDuplicateKeysBehaveLikeJSONParse(t *testing.T) {
	// The last value wins, whatever the earlier one was.
	got, err := ParseCredentials([]byte(`{"region":1,"region":"eu-de"}`))
	if err != nil || got["region"] != "eu-de" {
		t.Fatalf("got %v, %v", got, err)
	}
	_, err = ParseCredentials([]byte(`{"region":"eu-de","a":"x","region":true}`))
	if err == nil || err.Error() != unmarshalPrefix+"values must be strings (quote numbers and booleans): region" {
		t.Fatalf("got %v", err)
	}
}

func TestNewConfigAccessKeyWithAuthURLAndTenantName(t *testing.T) {
	cfg, err := NewConfig(CredentialValues{
		"access_key":  "AKAKSKTEST0001",
		"secret_key":  "sk-aksk-options-test",
		"auth_url":    "https://iam.eu-de.otc.t-systems.com/v3",
		"tenant_name": "eu-de_edge",
	}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Region:      "eu-de",
		ProjectName: "eu-de_edge",
		AccessKey:   &AccessKeyCredentials{AccessKey: "AKAKSKTEST0001", SecretKey: "sk-aksk-options-test"},
		Endpoints: Endpoints{
			IAM: "https://iam.eu-de.otc.t-systems.com",
			ECS: "https://ecs.eu-de.otc.t-systems.com",
			VPC: "https://vpc.eu-de.otc.t-systems.com",
			CCE: "https://cce.eu-de.otc.t-systems.com",
		},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("got %+v, want %+v", cfg, want)
	}
}

func TestNewConfigPasswordWithRegionFromTenantNameAndTenantID(t *testing.T) {
	cfg, err := NewConfig(CredentialValues{
		"user_name":   "edge-user",
		"password":    "pw-password-options-test",
		"domain_name": "OTC00000000001000000001",
		"tenant_name": "eu-nl_platform",
		"tenant_id":   "0123456789abcdef0123456789abcdef",
	}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Region:      "eu-nl",
		ProjectName: "eu-nl_platform",
		ProjectID:   "0123456789abcdef0123456789abcdef",
		Password:    &PasswordCredentials{UserName: "edge-user", Password: "pw-password-options-test", DomainName: "OTC00000000001000000001"},
		Endpoints:   DefaultEndpoints("eu-nl"),
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("got %+v, want %+v", cfg, want)
	}
	if cfg.Endpoints.CCE != "https://cce.eu-nl.otc.t-systems.com" {
		t.Fatalf("default CCE endpoint %q", cfg.Endpoints.CCE)
	}
}

func TestNewConfigPrefersRegionTakesProjectNameAndServesEverythingAtAnOverride(t *testing.T) {
	cfg, err := NewConfig(CredentialValues{
		"user_name": "u", "password": "pw-override-test-1", "domain_name": "d",
		"project_name": "eu-de", "region": "eu-de", "auth_url": "https://iam.eu-de.otc.t-systems.com/v3",
	}, Settings{Endpoints: mustSingleEndpoint(t, "http://127.0.0.1:4000/")})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Region != "eu-de" || cfg.ProjectName != "eu-de" || cfg.Password == nil {
		t.Fatalf("got %+v", cfg)
	}
	all := "http://127.0.0.1:4000"
	if cfg.Endpoints != (Endpoints{IAM: all, ECS: all, VPC: all, CCE: all}) {
		t.Fatalf("endpoints %+v", cfg.Endpoints)
	}
}

func TestNewConfigEndpointsFromAuthURL(t *testing.T) {
	cases := []struct {
		authURL, region string
		want            Endpoints
	}{
		// A simulator: no iam. label, every service at the origin.
		{"http://127.0.0.1:8443/v3", "eu-de", Endpoints{IAM: "http://127.0.0.1:8443", ECS: "http://127.0.0.1:8443", VPC: "http://127.0.0.1:8443", CCE: "http://127.0.0.1:8443"}},
		// The global IAM host names no region: the region is put in.
		{"https://iam.otc.t-systems.com/v3", "eu-de", Endpoints{IAM: "https://iam.otc.t-systems.com", ECS: "https://ecs.eu-de.otc.t-systems.com", VPC: "https://vpc.eu-de.otc.t-systems.com", CCE: "https://cce.eu-de.otc.t-systems.com"}},
		// The Swiss cloud: host labels and port kept, the default port dropped.
		{"https://iam.eu-ch2.sc.otc.t-systems.com:443/v3", "eu-ch2", Endpoints{IAM: "https://iam.eu-ch2.sc.otc.t-systems.com", ECS: "https://ecs.eu-ch2.sc.otc.t-systems.com", VPC: "https://vpc.eu-ch2.sc.otc.t-systems.com", CCE: "https://cce.eu-ch2.sc.otc.t-systems.com"}},
		{"https://IAM.proxy.example:8443/v3", "eu-de", Endpoints{IAM: "https://iam.proxy.example:8443", ECS: "https://ecs.proxy.example:8443", VPC: "https://vpc.proxy.example:8443", CCE: "https://cce.proxy.example:8443"}},
	}
	for _, tc := range cases {
		got, err := EndpointsFromAuthURL(tc.authURL, tc.region)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %+v, %v; want %+v", tc.authURL, got, err, tc.want)
		}
	}
}

func TestNewConfigSaysWhatIsMissingNeverAValue(t *testing.T) {
	cases := []struct {
		values   CredentialValues
		settings Settings
		message  string
	}{
		{CredentialValues{"access_key": "AKONLY000001", "region": "eu-de"}, Settings{}, "access_key and secret_key must be given together"},
		{CredentialValues{"secret_key": "sk-only-secret-value", "region": "eu-de"}, Settings{}, "access_key and secret_key must be given together"},
		{CredentialValues{"user_name": "u", "password": "pw-missing-domain", "region": "eu-de"}, Settings{}, "password credentials need domain_name"},
		{CredentialValues{"region": "eu-de"}, Settings{}, "the credentials have neither access_key and secret_key nor user_name and password"},
		{CredentialValues{"user_name": "u", "region": "eu-de", "password": ""}, Settings{}, "the credentials have neither access_key and secret_key nor user_name and password"},
		{CredentialValues{"access_key": "AKNOREGION01", "secret_key": "sk-no-region-value"}, Settings{}, "cannot determine the region: set region, or tenant_name as <region> or <region>_<name>"},
		{CredentialValues{"access_key": "AKBADREGION1", "secret_key": "sk-bad-region-value", "tenant_name": "EU DE_x"}, Settings{}, "the region is not a valid region name (lower-case letters and digits in hyphen-separated parts, like eu-de): check region or tenant_name"},
		{CredentialValues{"access_key": "AK WITH SPACE", "secret_key": "sk-space-ak-value", "region": "eu-de"}, Settings{}, "access_key is empty or contains whitespace or commas"},
		{CredentialValues{"access_key": "AKTOKEN00001", "secret_key": "sk-token-value", "security_token": "tok\nen-secret", "region": "eu-de"}, Settings{}, "security_token contains line breaks"},
		{CredentialValues{"access_key": "AKURL0000001", "secret_key": "sk-url-value", "region": "eu-de", "auth_url": "not a url"}, Settings{}, "auth_url is not an absolute URL"},
		{CredentialValues{"access_key": "AKURL0000002", "secret_key": "sk-url-value", "region": "eu-de", "auth_url": "ftp://iam.example/v3"}, Settings{}, "auth_url must be an http or https URL"},
		{CredentialValues{"access_key": "AKURL0000003", "secret_key": "sk-url-value", "region": "eu-de", "auth_url": "https://user:pw-in-url@iam.example/v3"}, Settings{}, "auth_url must not carry user info, a query or a fragment"},
		{CredentialValues{"access_key": "AKURL0000004", "secret_key": "sk-url-value", "region": "eu-de"}, Settings{Endpoints: Endpoints{CCE: "http://127.0.0.1:1/?token=tk-in-query"}}, "the endpoint for cce must not carry user info, a query or a fragment"},
	}
	for _, tc := range cases {
		_, err := NewConfig(tc.values, tc.settings)
		var credErr *CredentialsError
		if !errors.As(err, &credErr) || err.Error() != tc.message {
			t.Errorf("%v: got %v, want %q", tc.values, err, tc.message)
			continue
		}
		for _, v := range tc.values {
			if len(v) > 3 {
				mustNotContain(t, err.Error(), v)
			}
		}
		mustNotContain(t, err.Error(), "tk-in-query", "pw-in-url")
	}
}

func TestNewConfigTakesTheSecurityTokenAndTreatsEmptyValuesAsAbsent(t *testing.T) {
	cfg, err := NewConfig(CredentialValues{
		"access_key": "AKTEMP000001", "secret_key": "sk-temp-value", "security_token": "temporary-token",
		"region": "", "tenant_name": "eu-de", "project_name": "eu-nl_ignored", "tenant_id": "", "auth_url": "",
	}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.AccessKey.SecurityToken != "temporary-token" || cfg.Region != "eu-de" || cfg.ProjectName != "eu-de" || cfg.ProjectID != "" {
		t.Fatalf("got %+v", cfg)
	}
	if cfg.Endpoints != DefaultEndpoints("eu-de") {
		t.Fatalf("endpoints %+v", cfg.Endpoints)
	}
}

func TestConfigFromSecret(t *testing.T) {
	cfg, err := ConfigFromSecret([]byte(`{"access_key":"AKSECRET0001","secret_key":"sk-from-secret","region":"eu-de"}`), Settings{})
	if err != nil || cfg.ProjectName != "eu-de" || cfg.AccessKey == nil {
		t.Fatalf("got %+v, %v", cfg, err)
	}
	if _, err := ConfigFromSecret([]byte(`nope`), Settings{}); err == nil {
		t.Fatal("no error for text that is no JSON")
	}
}

func TestCredentialsDoNotPrint(t *testing.T) {
	a := AccessKeyCredentials{AccessKey: "AKPRINT00001", SecretKey: "sk-print-value", SecurityToken: "tok-print-value"}
	p := PasswordCredentials{UserName: "u", Password: "pw-print-value", DomainName: "d"}
	cfg := Config{AccessKey: &a}
	for _, text := range []string{fmt.Sprintf("%v %+v %#v %s", a, a, a, a), fmt.Sprintf("%v %+v %#v", p, p, p), fmt.Sprintf("%v", *cfg.AccessKey)} {
		mustNotContain(t, text, "sk-print-value", "tok-print-value", "pw-print-value")
	}
}

func mustSingleEndpoint(t *testing.T, base string) Endpoints {
	t.Helper()
	e, err := SingleEndpoint(base)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestSingleEndpoint(t *testing.T) {
	for base, message := range map[string]string{
		"127.0.0.1:4000":                       "the endpoint override is not an absolute URL",
		"ftp://127.0.0.1":                      "the endpoint override must be an http or https URL",
		"http://u:pw-in-override@127.0.0.1:1/": "the endpoint override must not carry user info, a query or a fragment",
	} {
		if _, err := SingleEndpoint(base); err == nil || err.Error() != message {
			t.Errorf("%s: got %v, want %q", base, err, message)
		}
	}
	// A path prefix is kept (a reverse proxy), its trailing slash is not.
	if e := mustSingleEndpoint(t, "http://127.0.0.1:4000/otc/"); e.IAM != "http://127.0.0.1:4000/otc" || e.CCE != e.IAM {
		t.Fatalf("got %+v", e)
	}
}

func TestSettingsOverrideSomeServicesOnly(t *testing.T) {
	cfg, err := NewConfig(CredentialValues{"access_key": "AKPART000001", "secret_key": "sk-part-value", "region": "eu-de"},
		Settings{Endpoints: Endpoints{CCE: "http://127.0.0.1:9"}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Endpoints.CCE != "http://127.0.0.1:9" || cfg.Endpoints.VPC != "https://vpc.eu-de.otc.t-systems.com" {
		t.Fatalf("got %+v", cfg.Endpoints)
	}
}
