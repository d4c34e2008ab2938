package otc

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
)

// The bodies are those of the OTC simulator's errorBody (packages/otc-simulator/src/api.ts) per format, and OTC's other shapes.
func TestParseErrorBody(t *testing.T) {
	cases := []struct {
		name, body string
		want       errorDetail
	}{
		{"otc (VPC, EIP, API gateway)", `{"error_msg":"vpc v1 could not be found","error_code":"VPC.0404","request_id":"abc123"}`, errorDetail{"VPC.0404", "vpc v1 could not be found", "abc123"}},
		{"ecs", `{"error":{"code":"Ecs.0001","message":"project p does not exist"}}`, errorDetail{"Ecs.0001", "project p does not exist", ""}},
		{"iam, numeric code", `{"error":{"code":401,"message":"The request you have made requires authentication.","title":"Unauthorized"}}`, errorDetail{"401", "The request you have made requires authentication.", ""}},
		{"nova fault wrapper", `{"itemNotFound":{"code":404,"message":"Keypair k not found for user"}}`, errorDetail{"404", "Keypair k not found for user", ""}},
		{"nova conflict", `{"conflictingRequest":{"code":409,"message":"Key pair 'k' already exists."}}`, errorDetail{"409", "Key pair 'k' already exists.", ""}},
		{
			"cce Status with error_code",
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"cluster c could not be found","reason":"NotFound","code":404,"error_code":"CCE.01404001","error_msg":"cluster c could not be found"}`,
			errorDetail{"CCE.01404001", "cluster c could not be found", ""},
		},
		{"kubernetes Status only", `{"kind":"Status","message":"no","reason":"Conflict","code":409}`, errorDetail{"Conflict", "no", ""}},
		{"kubernetes Status without reason", `{"kind":"Status","message":"no","code":409}`, errorDetail{"409", "no", ""}},
		{"neutron", `{"NeutronError":{"type":"SubnetNotFound","message":"Subnet s could not be found.","detail":""}}`, errorDetail{"SubnetNotFound", "Subnet s could not be found.", ""}},
		{"plain code and message", `{"code":"ELB.8902","message":"busy"}`, errorDetail{"ELB.8902", "busy", ""}},
		{"simulator internal error", `{"error_msg":"simulator error: boom","error_code":"SIM.0500","request_id":"r"}`, errorDetail{"SIM.0500", "simulator error: boom", "r"}},
		{"not JSON", `<html>bad gateway</html>`, errorDetail{}},
		{"array", `[1,2]`, errorDetail{}},
		{"empty", ``, errorDetail{}},
	}
	for _, tc := range cases {
		if got := parseErrorBody([]byte(tc.body)); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestAPIErrorMessageAndRequestID(t *testing.T) {
	header := http.Header{"X-Request-Id": {"from-header"}}
	err := newAPIError("delete VPC", "DELETE", "/v1/p/vpcs/v", 409, header, []byte(`{"error_msg":"vpc v still has subnets (s); delete them first","error_code":"VPC.0409"}`), func(s string) string { return s })
	if got, want := err.Error(), "delete VPC: DELETE /v1/p/vpcs/v: HTTP 409 VPC.0409: vpc v still has subnets (s); delete them first (request id from-header)"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	bare := newAPIError("get VPC", "GET", "/x", 500, http.Header{}, nil, func(s string) string { return s })
	if bare.Error() != "get VPC: GET /x: HTTP 500" {
		t.Fatalf("got %q", bare.Error())
	}
}

func TestClassification(t *testing.T) {
	wrap := func(e *APIError) error { return fmt.Errorf("observe: %w", e) }
	notFound := wrap(&APIError{StatusCode: 404, Code: "VPC.0404"})
	noSuchAPI := wrap(&APIError{StatusCode: 404, Code: "APIGW.0101", Message: "The API does not exist or has not been published"})
	conflict := wrap(&APIError{StatusCode: 409})
	badRequest := wrap(&APIError{StatusCode: 400})
	unauthorized := wrap(&APIError{StatusCode: 401})
	forbidden := wrap(&APIError{StatusCode: 403})
	transport := &TransportError{Err: errors.New("connection refused"), msg: "x"}
	for _, tc := range []struct {
		name string
		is   func(error) bool
		yes  []error
		no   []error
	}{
		{"IsNotFound", IsNotFound, []error{notFound}, []error{noSuchAPI, conflict, transport, nil}},
		{"IsConflict", IsConflict, []error{conflict}, []error{notFound, transport, nil}},
		{"IsBadRequest", IsBadRequest, []error{badRequest}, []error{notFound, nil}},
		{"IsCredentialRejection", IsCredentialRejection, []error{unauthorized, forbidden}, []error{notFound, transport, nil}},
	} {
		for _, err := range tc.yes {
			if !tc.is(err) {
				t.Errorf("%s(%v) = false", tc.name, err)
			}
		}
		for _, err := range tc.no {
			if tc.is(err) {
				t.Errorf("%s(%v) = true", tc.name, err)
			}
		}
	}
}

func TestRedactorScrubsLongestFirstAndSignatures(t *testing.T) {
	r := newRedactor("abc", "abcdef", "")
	got := r.scrub("x abcdef y abc z Signature=0123abcd SIGNATURE=ff tok-1", "tok-1")
	if want := "x [REDACTED] y [REDACTED] z Signature=[REDACTED] SIGNATURE=[REDACTED] [REDACTED]"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
