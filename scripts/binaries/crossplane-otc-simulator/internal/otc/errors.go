package otc

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// APIError is an OTC API's refusal (a non-2xx answer), or a 2xx answer that
// breaks the API's contract (no JSON, no expected object). Its texts are
// scrubbed of the client's credentials and tokens.
type APIError struct {
	// Op is the client operation, e.g. "create VPC".
	Op     string
	Method string
	// Path is the request path without its query.
	Path string
	// StatusCode is the HTTP status.
	StatusCode int
	// Code is OTC's error code (VPC.0404, CCE.01404001, APIGW.0301, ...), if the body has one.
	Code string
	// Message is OTC's error message, or a description of the contract breach.
	Message string
	// RequestID is the gateway's request id, for OTC support.
	RequestID string
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Op + ": " + e.Method + " " + e.Path + ": HTTP " + strconv.Itoa(e.StatusCode))
	// IAM and Nova repeat the status as their code; "HTTP 401 401" says nothing more.
	if e.Code != "" && e.Code != strconv.Itoa(e.StatusCode) {
		b.WriteString(" " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" (request id " + e.RequestID + ")")
	}
	return b.String()
}

// apiNotPublished is the gateway's code for a path no API serves. Such a
// 404 says nothing about a resource: it means a wrong endpoint or an API
// the cloud (or simulator) lacks, and must not make a caller think that
// the resource is gone.
const apiNotPublished = "APIGW.0101"

// IsNotFound reports whether err is an API's 404 for the addressed
// resource (not for an unknown API path).
func IsNotFound(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.StatusCode == http.StatusNotFound && e.Code != apiNotPublished
}

// IsConflict reports whether err is a 409: a name in use, a resource still
// in use (a VPC with subnets, a bound EIP) or busy.
func IsConflict(err error) bool {
	return hasStatus(err, http.StatusConflict)
}

// IsBadRequest reports whether err is a 400: the request is invalid, or
// invalid in the resource's current state (a cluster that is not Available).
func IsBadRequest(err error) bool {
	return hasStatus(err, http.StatusBadRequest)
}

// IsCredentialRejection reports whether IAM or a service refused the
// credentials themselves (401, 403), as opposed to failing otherwise:
// what tells "credentials invalid" from "try again later".
func IsCredentialRejection(err error) bool {
	return hasStatus(err, http.StatusUnauthorized) || hasStatus(err, http.StatusForbidden)
}

func hasStatus(err error, status int) bool {
	var e *APIError
	return errors.As(err, &e) && e.StatusCode == status
}

// ConfigError is a configuration that cannot work with this cloud: no or
// several projects of the configured name, a client used wrongly.
type ConfigError struct {
	msg string
}

func (e *ConfigError) Error() string { return e.msg }

// errorDetail is what OTC's error bodies say, whichever shape they use.
type errorDetail struct {
	code, message, requestID string
}

// parseErrorBody reads the shapes OTC services answer with:
// {error_code, error_msg} (VPC, EIP, API gateway, CCE), {error: {code,
// message}} (ECS, IAM), {NeutronError: {type, message}}, a Kubernetes
// {kind: "Status", reason, message}, {code, message}, and Nova's
// {<fault>: {code, message}} wrappers. Codes may be numbers (IAM, Nova).
func parseErrorBody(body []byte) errorDetail {
	var value map[string]json.RawMessage
	if json.Unmarshal(body, &value) != nil || value == nil {
		return errorDetail{}
	}
	str := func(raw json.RawMessage) string {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		var n json.Number
		if json.Unmarshal(raw, &n) == nil {
			return n.String()
		}
		return ""
	}
	object := func(raw json.RawMessage) map[string]json.RawMessage {
		var o map[string]json.RawMessage
		if json.Unmarshal(raw, &o) != nil {
			return nil
		}
		return o
	}
	d := errorDetail{requestID: str(value["request_id"])}
	_, hasCode := value["error_code"]
	_, hasMsg := value["error_msg"]
	switch {
	case hasCode || hasMsg:
		d.code, d.message = str(value["error_code"]), str(value["error_msg"])
	case object(value["error"]) != nil:
		o := object(value["error"])
		d.code, d.message = str(o["code"]), str(o["message"])
	case object(value["NeutronError"]) != nil:
		o := object(value["NeutronError"])
		d.code, d.message = str(o["type"]), str(o["message"])
	case str(value["kind"]) == "Status":
		d.code, d.message = str(value["reason"]), str(value["message"])
		if d.code == "" {
			d.code = str(value["code"])
		}
	case value["code"] != nil || value["message"] != nil:
		d.code, d.message = str(value["code"]), str(value["message"])
	case len(value) == 1:
		for _, only := range value {
			if o := object(only); o != nil {
				d.code, d.message = str(o["code"]), str(o["message"])
			}
		}
	}
	return d
}

// maxQuotedBody bounds how much of a body that is no OTC error (a proxy's
// HTML page) goes into a message.
const maxQuotedBody = 200

// newAPIError builds the error for a non-2xx answer. Only error bodies are
// ever quoted: a 2xx body is data and may hold key material.
func newAPIError(op, method, path string, status int, header http.Header, body []byte, scrub func(string) string) *APIError {
	d := parseErrorBody(body)
	message := d.message
	if d.code == "" && message == "" {
		message = strings.TrimSpace(strings.ToValidUTF8(string(body), "?"))
		if runes := []rune(message); len(runes) > maxQuotedBody {
			message = string(runes[:maxQuotedBody]) + "..."
		}
		message = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return ' '
			}
			return r
		}, message)
	}
	requestID := d.requestID
	if requestID == "" {
		requestID = header.Get("X-Request-Id")
	}
	return &APIError{
		Op:         op,
		Method:     method,
		Path:       path,
		StatusCode: status,
		Code:       scrub(d.code),
		Message:    scrub(message),
		RequestID:  scrub(requestID),
	}
}

// signaturePattern finds request signatures a gateway might echo back.
var signaturePattern = regexp.MustCompile(`(?i)(signature=)[0-9a-f]+`)

// redactor replaces secrets in texts that leave the package. Values are
// replaced longest first, so that a secret containing another is not left
// half visible.
type redactor struct {
	secrets []string
}

func newRedactor(values ...string) redactor {
	var r redactor
	for _, v := range values {
		if v != "" {
			r.secrets = append(r.secrets, v)
		}
	}
	sortByLengthDesc(r.secrets)
	return r
}

// scrub returns s without the redactor's secrets, extra (the token of the
// request at hand) and request signatures.
func (r redactor) scrub(s string, extra ...string) string {
	if s == "" {
		return s
	}
	all := r.secrets
	if len(extra) > 0 {
		all = append(append([]string(nil), r.secrets...), extra...)
		sortByLengthDesc(all)
	}
	// Signatures first: a secret replaced inside one would split its hex and hide the rest from the pattern.
	s = signaturePattern.ReplaceAllString(s, "${1}[REDACTED]")
	for _, secret := range all {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "[REDACTED]")
		}
	}
	return s
}

func sortByLengthDesc(values []string) {
	sort.SliceStable(values, func(i, j int) bool { return len(values[i]) > len(values[j]) })
}
