package otc

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func mustRequest(t *testing.T, method, rawURL string, body string, headers map[string]string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, rawURL, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	for name, value := range headers {
		req.Header.Set(name, value)
	}
	return req
}

// The published test vector of Huawei's API gateway documentation (also in
// packages/otc's signer tests).
func TestSignRequestPublishedVector(t *testing.T) {
	req := mustRequest(t, "GET", "https://service.region.example.com/v1/77b6a44cba5143ab91d13ab9a8ff44fd/vpcs?limit=2&marker=13551d6b-755d-4757-b956-536f674975c0", "",
		map[string]string{"Content-Type": "application/json"})
	creds := AccessKeyCredentials{AccessKey: "QTWAOYTTINDUT2QVKYUC", SecretKey: "MFyfvK41ba2giqM7Uio6PznpdUKGpownRZlmVmHc"}
	if err := SignRequest(req, nil, creds, time.Date(2019, 11, 15, 3, 36, 55, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	want := "SDK-HMAC-SHA256 Access=QTWAOYTTINDUT2QVKYUC, SignedHeaders=content-type;host;x-sdk-date, Signature=7be6668032f70418fcc22abc52071e57aff61b84a1d2381bb430d6870f4f6ebe"
	if got := req.Header.Get("Authorization"); got != want {
		t.Fatalf("Authorization\n got %s\nwant %s", got, want)
	}
	if got := req.Header.Get("X-Sdk-Date"); got != "20191115T033655Z" {
		t.Fatalf("X-Sdk-Date %q", got)
	}
}

// Expected values computed by packages/otc's TypeScript signer
// (packages/otc/dist/signing/signer.js, signRequest) on the same input.
func TestSignRequestMatchesTheTypeScriptSigner(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	t.Run("POST with body, project, security token and query", func(t *testing.T) {
		body := `{"vpc":{"name":"vpc-ci","cidr":"10.0.0.0/16"}}`
		req := mustRequest(t, "POST", "http://127.0.0.1:8443/v1/0123456789abcdef0123456789abcdef/vpcs?name=a%20b&limit=10&marker=x+y", body, map[string]string{
			"Accept":       "application/json",
			"Content-Type": "application/json;charset=UTF-8",
			"X-Project-Id": "0123456789abcdef0123456789abcdef",
		})
		creds := AccessKeyCredentials{AccessKey: testAK, SecretKey: testSK, SecurityToken: "temporary-security-token"}
		if err := SignRequest(req, []byte(body), creds, now); err != nil {
			t.Fatal(err)
		}
		want := "SDK-HMAC-SHA256 Access=TESTACCESSKEY0000001, SignedHeaders=content-type;host;x-project-id;x-sdk-date;x-security-token, Signature=9abf6797af541b2680ded7f2ee77e328b8056a6a7d71dd8b224d53a6bc274a53"
		if got := req.Header.Get("Authorization"); got != want {
			t.Fatalf("Authorization\n got %s\nwant %s", got, want)
		}
		if req.Header.Get("X-Security-Token") != "temporary-security-token" || req.Header.Get("X-Sdk-Date") != "20260301T120000Z" {
			t.Fatalf("headers %v", req.Header)
		}
	})
	t.Run("GET with odd path characters and non-ASCII query keys", func(t *testing.T) {
		req := mustRequest(t, "GET", "https://iam.eu-de.otc.t-systems.com/a%20b/c+d/%E2%82%AC/x(y)*!'?name=eu-de_test&%F0%9F%98%80=2&k=%EF%BD%A1", "",
			map[string]string{"Accept": "application/json"})
		if err := SignRequest(req, nil, AccessKeyCredentials{AccessKey: testAK, SecretKey: testSK}, now); err != nil {
			t.Fatal(err)
		}
		want := "SDK-HMAC-SHA256 Access=TESTACCESSKEY0000001, SignedHeaders=host;x-sdk-date, Signature=d8bfdaf28ba0aaefeb795fc9081d3682f75f438eb4e9c135ae0d50aef35ce2f3"
		if got := req.Header.Get("Authorization"); got != want {
			t.Fatalf("Authorization\n got %s\nwant %s", got, want)
		}
	})
}

func TestCanonicalRequestDetails(t *testing.T) {
	uri := func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		return canonicalURI(u)
	}
	query := func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		return canonicalQuery(u)
	}
	for raw, want := range map[string]string{
		"https://h/a%20b/c+d/e~f_g-h.i/%E2%82%AC/x(y)*!'": "/a%20b/c%2Bd/e~f_g-h.i/%E2%82%AC/x%28y%29%2A%21%27/",
		"https://h/a:b@c":      "/a%3Ab%40c/",
		"https://h/v1/x/vpcs":  "/v1/x/vpcs/",
		"https://h/v1/x/vpcs/": "/v1/x/vpcs/",
		"https://h":            "/",
	} {
		if got := uri(raw); got != want {
			t.Errorf("canonicalURI(%s) = %s, want %s", raw, got, want)
		}
	}
	if got, want := query("https://h/p?name=b&name=a&flag&z=1&a=x%20y&b=c+d&c=%2F%3D"), "a=x%20y&b=c%20d&c=%2F%3D&flag=&name=a&name=b&z=1"; got != want {
		t.Errorf("canonicalQuery = %s, want %s", got, want)
	}
	// UTF-8 byte order, as Go's sort.Strings gives and the TypeScript signer imitates.
	if got, want := query("https://h/p?%F0%9F%98%80=2&%EF%BD%A1=1&k=%F0%9F%98%80&k=%EF%BD%A1"), "k=%EF%BD%A1&k=%F0%9F%98%80&%EF%BD%A1=1&%F0%9F%98%80=2"; got != want {
		t.Errorf("canonicalQuery = %s, want %s", got, want)
	}
	u, _ := url.Parse("https://h:8443/p")
	values := map[string]string{"x-project-id": "  p1 ", "x-sdk-date": "d", "host": "h:8443"}
	canonical := canonicalRequest("get", u, []string{"host", "x-project-id", "x-sdk-date"}, func(n string) string { return values[n] }, sha256Hex(nil))
	want := "GET\n/p/\n\nhost:h:8443\nx-project-id:p1\nx-sdk-date:d\n\nhost;x-project-id;x-sdk-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	if canonical != want {
		t.Errorf("canonicalRequest\n got %q\nwant %q", canonical, want)
	}
}

func TestSignRequestReplacesStaleHeadersAndHonoursTheContentHash(t *testing.T) {
	req := mustRequest(t, "PUT", "https://h/p", "ignored", map[string]string{"X-Sdk-Date": "old", "Authorization": "Bearer old", contentSHA256Header: "UNSIGNED-PAYLOAD"})
	now := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := SignRequest(req, []byte("ignored"), AccessKeyCredentials{AccessKey: "A", SecretKey: "S"}, now); err != nil {
		t.Fatal(err)
	}
	if len(req.Header.Values("X-Sdk-Date")) != 1 || req.Header.Get("X-Sdk-Date") != "20240102T030405Z" {
		t.Fatalf("X-Sdk-Date %v", req.Header.Values("X-Sdk-Date"))
	}
	auth := req.Header.Get("Authorization")
	if !strings.Contains(auth, "SignedHeaders=host;x-sdk-date,") {
		t.Fatalf("Authorization %q", auth)
	}
	canonical := canonicalRequest("PUT", req.URL, []string{"host", "x-sdk-date"}, func(n string) string {
		if n == "host" {
			return "h"
		}
		return "20240102T030405Z"
	}, "UNSIGNED-PAYLOAD")
	if !strings.HasSuffix(auth, signature("S", stringToSign("20240102T030405Z", canonical))) {
		t.Fatal("the declared content hash was not signed in place of the body's")
	}
}

func TestSignRequestNeverPutsCredentialsIntoErrors(t *testing.T) {
	for _, creds := range []AccessKeyCredentials{
		{AccessKey: "AK with space", SecretKey: "very-secret-sk"},
		{AccessKey: "AK,comma", SecretKey: "very-secret-sk"},
		{AccessKey: "AK123", SecretKey: ""},
		{AccessKey: "AK123", SecretKey: "very-secret-sk", SecurityToken: "tok\nen-secret"},
	} {
		err := SignRequest(mustRequest(t, "GET", "https://h/p", "", nil), nil, creds, time.Now())
		if err == nil {
			t.Fatalf("no error for %#v", creds)
		}
		mustNotContain(t, err.Error(), "very-secret-sk", "AK with space", "AK,comma", "en-secret")
	}
}
