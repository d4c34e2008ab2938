package otc

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const (
	testProjectID = "0123456789abcdef0123456789abcdef"
	testAK        = "TESTACCESSKEY0000001"
	testSK        = "test-secret-key-do-not-echo"
	testPassword  = "ci-password-do-not-echo"
)

// akskConfig is an AK/SK configuration for a server at base with a known project.
func akskConfig(base string) Config {
	return Config{
		Region:      "eu-de",
		ProjectName: "eu-de_test",
		ProjectID:   testProjectID,
		AccessKey:   &AccessKeyCredentials{AccessKey: testAK, SecretKey: testSK},
		Endpoints:   Endpoints{IAM: base, ECS: base, VPC: base, CCE: base},
	}
}

// passwordConfig is a password configuration for a server at base.
func passwordConfig(base string) Config {
	return Config{
		Region:      "eu-de",
		ProjectName: "eu-de_test",
		Password:    &PasswordCredentials{UserName: "ci-user", Password: testPassword, DomainName: "OTC00000000001000000001"},
		Endpoints:   Endpoints{IAM: base, ECS: base, VPC: base, CCE: base},
	}
}

// newServer starts an httptest server that the test closes.
func newServer(t *testing.T, handler http.HandlerFunc) *httptest.Server {
	t.Helper()
	server := httptest.NewServer(handler)
	t.Cleanup(server.Close)
	return server
}

// newClient makes a client with fast retries for tests.
func newClient(t *testing.T, cfg Config, opts Options) *Client {
	t.Helper()
	if opts.RetryBaseDelay == 0 {
		opts.RetryBaseDelay = time.Millisecond
	}
	if opts.MaxRetryDelay == 0 {
		opts.MaxRetryDelay = 5 * time.Millisecond
	}
	c, err := NewClient(cfg, opts)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// verifySigned recomputes the signature of a request as received, the way
// the API gateway (and the simulator) would: from the Host, URL, headers
// and body bytes that arrived, so that anything signed but not sent (or
// sent but not signed) shows.
func verifySigned(t *testing.T, r *http.Request, body []byte, secretKey string) {
	t.Helper()
	auth := r.Header.Get("Authorization")
	prefix := signingAlgorithm + " Access="
	if !strings.HasPrefix(auth, prefix) {
		t.Fatalf("Authorization %q is not %s Access=...", auth, signingAlgorithm)
	}
	parts := strings.Split(strings.TrimPrefix(auth, prefix), ", ")
	if len(parts) != 3 || !strings.HasPrefix(parts[1], "SignedHeaders=") || !strings.HasPrefix(parts[2], "Signature=") {
		t.Fatalf("malformed Authorization %q", auth)
	}
	signed := strings.Split(strings.TrimPrefix(parts[1], "SignedHeaders="), ";")
	value := func(name string) string {
		if name == "host" {
			return r.Host
		}
		return r.Header.Get(name)
	}
	canonical := canonicalRequest(r.Method, r.URL, signed, value, sha256Hex(body))
	want := signature(secretKey, stringToSign(r.Header.Get("X-Sdk-Date"), canonical))
	if got := strings.TrimPrefix(parts[2], "Signature="); got != want {
		t.Fatalf("signature of %s %s does not verify", r.Method, r.URL.Path)
	}
}

func readBody(t *testing.T, r *http.Request) []byte {
	t.Helper()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatalf("reading the request body: %v", err)
	}
	return body
}

// writeJSON answers status with a JSON body.
func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// mustNotContain fails if text holds any of the secrets.
func mustNotContain(t *testing.T, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(text, s) {
			t.Fatalf("%q contains a secret", text)
		}
	}
}
