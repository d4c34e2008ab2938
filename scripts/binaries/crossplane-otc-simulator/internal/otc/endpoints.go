package otc

import (
	"net/url"
	"regexp"
	"strings"
)

// Service names one OTC API the client calls; each has its own base URL.
type Service string

const (
	ServiceIAM Service = "iam"
	ServiceECS Service = "ecs"
	ServiceVPC Service = "vpc"
	ServiceCCE Service = "cce"
)

// services is every Service, in a fixed order (fingerprints depend on it).
var services = []Service{ServiceIAM, ServiceECS, ServiceVPC, ServiceCCE}

// Endpoints holds the base URL of every service. A base URL may carry a
// path prefix (a reverse proxy); request paths are appended to it.
type Endpoints struct {
	IAM string
	ECS string
	VPC string
	CCE string
}

// For returns the base URL of service s.
func (e Endpoints) For(s Service) string {
	switch s {
	case ServiceIAM:
		return e.IAM
	case ServiceECS:
		return e.ECS
	case ServiceVPC:
		return e.VPC
	case ServiceCCE:
		return e.CCE
	}
	return ""
}

func (e *Endpoints) set(s Service, base string) {
	switch s {
	case ServiceIAM:
		e.IAM = base
	case ServiceECS:
		e.ECS = base
	case ServiceVPC:
		e.VPC = base
	case ServiceCCE:
		e.CCE = base
	}
}

// globalIAMDomain is OTC's IAM host without a region (iam.otc.t-systems.com).
const globalIAMDomain = "otc.t-systems.com"

var regionPattern = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// validRegion keeps a mistyped region from turning into a DNS error per
// request: it has to be usable as a host name label.
func validRegion(region string) bool {
	return regionPattern.MatchString(region)
}

// DefaultEndpoints are OTC's public endpoints of region:
// https://{service}.{region}.otc.t-systems.com.
func DefaultEndpoints(region string) Endpoints {
	at := func(s Service) string { return "https://" + string(s) + "." + region + "." + globalIAMDomain }
	return Endpoints{IAM: at(ServiceIAM), ECS: at(ServiceECS), VPC: at(ServiceVPC), CCE: at(ServiceCCE)}
}

// SingleEndpoint serves every service at base, as the OTC simulator (one
// loopback URL for all APIs) needs.
func SingleEndpoint(base string) (Endpoints, error) {
	u, err := parseEndpointURL("the endpoint override", base)
	if err != nil {
		return Endpoints{}, err
	}
	s := strings.TrimRight(u.String(), "/")
	return Endpoints{IAM: s, ECS: s, VPC: s, CCE: s}, nil
}

// EndpointsFromAuthURL derives every service's endpoint from an
// OpenStack-style auth_url (https://iam.eu-de.otc.t-systems.com/v3): IAM at
// the URL's origin, every other service on the host whose leading "iam."
// label is replaced by the service's name, scheme and port kept. A host
// without a leading "iam." label (a simulator at http://127.0.0.1:8443/v3,
// a proxy) serves every service at its origin. The global IAM host names no
// region, so the region is put in for the other services.
func EndpointsFromAuthURL(authURL, region string) (Endpoints, error) {
	u, err := parseEndpointURL("auth_url", authURL)
	if err != nil {
		return Endpoints{}, err
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		// As a browser's URL.host would: the default port is implied.
		port = ""
	}
	withPort := func(h string) string {
		if port == "" {
			return h
		}
		if strings.Contains(h, ":") {
			h = "[" + h + "]"
		}
		return h + ":" + port
	}
	first, domain, hasDomain := strings.Cut(host, ".")
	at := func(s Service) string {
		if first != "iam" || !hasDomain || s == ServiceIAM {
			return u.Scheme + "://" + withPort(host)
		}
		regional := domain
		if domain == globalIAMDomain {
			regional = region + "." + domain
		}
		return u.Scheme + "://" + withPort(string(s)+"."+regional)
	}
	return Endpoints{IAM: at(ServiceIAM), ECS: at(ServiceECS), VPC: at(ServiceVPC), CCE: at(ServiceCCE)}, nil
}

// parseEndpointURL refuses what cannot be a service's base URL. The value
// itself is never quoted: a mistyped URL may carry user info.
func parseEndpointURL(what, value string) (*url.URL, error) {
	u, err := url.Parse(value)
	if err != nil || u.Host == "" {
		return nil, &CredentialsError{msg: what + " is not an absolute URL"}
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, &CredentialsError{msg: what + " must be an http or https URL"}
	}
	// Credentials in a URL would end up in logs and error messages.
	if u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return nil, &CredentialsError{msg: what + " must not carry user info, a query or a fragment"}
	}
	return u, nil
}
