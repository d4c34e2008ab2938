package otc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeIAM issues tokens tok-1, tok-2, ... valid for lifetime from the
// test's clock, and serves a VPC GET that accepts only the live tokens.
type fakeIAM struct {
	t        *testing.T
	mu       sync.Mutex
	now      func() time.Time
	lifetime time.Duration
	issued   int
	revoked  map[string]bool
	// tokenDelay holds each token request this long.
	tokenDelay time.Duration
	// refuse makes IAM refuse the password.
	refuse  bool
	vpcGets atomic.Int32
	seen    []string
}

func (f *fakeIAM) handler(w http.ResponseWriter, r *http.Request) {
	body := readBody(f.t, r)
	switch {
	case r.Method == http.MethodPost && r.URL.Path == tokenPath:
		if r.Header.Get("Authorization") != "" || r.Header.Get("X-Auth-Token") != "" {
			f.t.Errorf("the token request carries credentials in headers")
		}
		var req tokenRequestBody
		if err := json.Unmarshal(body, &req); err != nil {
			f.t.Errorf("token request body: %v", err)
		}
		id := req.Auth.Identity
		if fmt.Sprint(id.Methods) != "[password]" || id.Password.User.Name != "ci-user" || id.Password.User.Domain.Name != "OTC00000000001000000001" || req.Auth.Scope.Project.Name != "eu-de_test" {
			f.t.Errorf("token request %+v", req)
		}
		time.Sleep(f.tokenDelay)
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.refuse || id.Password.User.Password != testPassword {
			// IAM's answer quotes nothing of the request; this one does, to see it scrubbed.
			writeJSON(w, 401, `{"error":{"code":401,"message":"The request you have made requires authentication (password `+id.Password.User.Password+`)","title":"Unauthorized"}}`)
			return
		}
		f.issued++
		token := fmt.Sprintf("tok-%d", f.issued)
		issued := f.now()
		w.Header().Set("X-Subject-Token", token)
		writeJSON(w, 201, fmt.Sprintf(`{"token":{"expires_at":%q,"issued_at":%q,"methods":["password"],"project":{"id":%q,"name":"eu-de_test"}}}`,
			issued.Add(f.lifetime).UTC().Format("2006-01-02T15:04:05.000000Z"), issued.UTC().Format("2006-01-02T15:04:05.000000Z"), testProjectID))
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/"+testProjectID+"/vpcs/"):
		f.vpcGets.Add(1)
		token := r.Header.Get("X-Auth-Token")
		if r.Header.Get("Authorization") != "" || r.Header.Get("X-Project-Id") != "" {
			f.t.Errorf("a token request also carries a signature or X-Project-Id")
		}
		f.mu.Lock()
		f.seen = append(f.seen, token)
		live := strings.HasPrefix(token, "tok-") && !f.revoked[token]
		f.mu.Unlock()
		if !live {
			writeJSON(w, 401, `{"error_msg":"Incorrect IAM authentication information: the token is unknown or has expired","error_code":"APIGW.0301"}`)
			return
		}
		writeJSON(w, 200, `{"vpc":{"id":"v1","name":"n","cidr":"10.0.0.0/16","status":"OK"}}`)
	default:
		f.t.Errorf("unexpected %s %s", r.Method, r.URL)
		w.WriteHeader(404)
	}
}

type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newFakeIAM(t *testing.T, clock *testClock, lifetime time.Duration) (*fakeIAM, *Client) {
	f := &fakeIAM{t: t, now: clock.Now, lifetime: lifetime, revoked: map[string]bool{}}
	server := newServer(t, f.handler)
	return f, newClient(t, passwordConfig(server.URL), Options{Now: clock.Now})
}

func TestTokenIsCachedAndCarriedAsXAuthToken(t *testing.T) {
	clock := &testClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	f, c := newFakeIAM(t, clock, 24*time.Hour)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if _, err := c.GetVPC(ctx, "v1"); err != nil {
			t.Fatal(err)
		}
	}
	id, err := c.ProjectID(ctx)
	if err != nil || id != testProjectID {
		t.Fatalf("ProjectID = %q, %v", id, err)
	}
	if f.issued != 1 || fmt.Sprint(f.seen) != "[tok-1 tok-1 tok-1]" {
		t.Fatalf("issued %d tokens, sent %v", f.issued, f.seen)
	}
}

func TestTokenIsRenewedShortlyBeforeItExpires(t *testing.T) {
	clock := &testClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	f, c := newFakeIAM(t, clock, time.Hour)
	ctx := context.Background()
	if _, err := c.GetVPC(ctx, "v1"); err != nil {
		t.Fatal(err)
	}
	// Renewal is five minutes before expiry: 54 minutes in, tok-1 is still used.
	clock.Advance(54 * time.Minute)
	if _, err := c.GetVPC(ctx, "v1"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Minute)
	if _, err := c.GetVPC(ctx, "v1"); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(f.seen) != "[tok-1 tok-1 tok-2]" {
		t.Fatalf("sent %v", f.seen)
	}
}

func TestShortLivedTokensAreRenewedAtHalfTheirLifetime(t *testing.T) {
	receivedAt := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ans := &answer{status: 201, header: http.Header{"X-Subject-Token": {"tok"}}, path: tokenPath,
		body: []byte(`{"token":{"issued_at":"2026-03-01T11:00:00.000000Z","expires_at":"2026-03-01T11:04:00.000000Z","project":{"id":"p"}}}`)}
	tok, err := readIssuedToken("get IAM token", ans, receivedAt)
	if err != nil {
		t.Fatal(err)
	}
	// A four-minute token on IAM's clock (an hour behind ours) is renewed two minutes after arrival.
	if want := receivedAt.Add(2 * time.Minute); !tok.renewAt.Equal(want) || tok.projectID != "p" || tok.value != "tok" {
		t.Fatalf("got %+v, want renewal at %v", tok, want)
	}
	for body, message := range map[string]string{
		`{"token":{"expires_at":"2026-03-01T11:04:00Z"}}`:          `the token answer has no "token.project.id"`,
		`{"token":{"project":{"id":"p"},"expires_at":"tomorrow"}}`: `the token answer has no valid "token.expires_at"`,
		`not json`: "the token answer is not JSON",
	} {
		_, err := readIssuedToken("get IAM token", &answer{status: 201, header: http.Header{"X-Subject-Token": {"tok-secret"}}, body: []byte(body), path: tokenPath}, receivedAt)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Message != message {
			t.Errorf("%s: got %v, want %q", body, err, message)
		}
		mustNotContain(t, err.Error(), "tok-secret")
	}
	_, err = readIssuedToken("get IAM token", &answer{status: 201, header: http.Header{}, body: []byte(`{}`), path: tokenPath}, receivedAt)
	if err == nil || !strings.Contains(err.Error(), "has no X-Subject-Token header") {
		t.Fatalf("got %v", err)
	}
}

func TestA401GetsOneFreshTokenAndOneRetry(t *testing.T) {
	clock := &testClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	f, c := newFakeIAM(t, clock, 24*time.Hour)
	ctx := context.Background()
	if _, err := c.GetVPC(ctx, "v1"); err != nil {
		t.Fatal(err)
	}
	// Revoked early (a password change): the service answers 401 for tok-1.
	f.mu.Lock()
	f.revoked["tok-1"] = true
	f.mu.Unlock()
	if _, err := c.GetVPC(ctx, "v1"); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(f.seen) != "[tok-1 tok-1 tok-2]" || f.issued != 2 {
		t.Fatalf("sent %v, issued %d", f.seen, f.issued)
	}
	// A service that refuses every token: one renewal, then the 401 is the answer, not a loop.
	f.mu.Lock()
	f.revoked["tok-2"], f.revoked["tok-3"] = true, true
	f.mu.Unlock()
	_, err := c.GetVPC(ctx, "v1")
	if !IsCredentialRejection(err) || !strings.Contains(err.Error(), "APIGW.0301") {
		t.Fatalf("got %v", err)
	}
	if f.issued != 3 {
		t.Fatalf("issued %d tokens, want 3", f.issued)
	}
}

func TestConcurrentCallsShareOneTokenRequest(t *testing.T) {
	clock := &testClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	f, c := newFakeIAM(t, clock, 24*time.Hour)
	f.tokenDelay = 100 * time.Millisecond
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.GetVPC(context.Background(), "v1")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if f.issued != 1 {
		t.Fatalf("issued %d tokens for concurrent calls, want 1", f.issued)
	}
}

func TestAWaiterGivingUpDoesNotFailTheOthers(t *testing.T) {
	clock := &testClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	f, c := newFakeIAM(t, clock, 24*time.Hour)
	f.tokenDelay = 200 * time.Millisecond
	impatient, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.GetVPC(context.Background(), "v1")
		done <- err
	}()
	time.Sleep(5 * time.Millisecond)
	start := time.Now()
	if _, err := c.GetVPC(impatient, "v1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the impatient call got %v", err)
	}
	if waited := time.Since(start); waited > 150*time.Millisecond {
		t.Fatalf("the impatient call waited %v for the token", waited)
	}
	if err := <-done; err != nil {
		t.Fatalf("the patient call failed: %v", err)
	}
	if f.issued != 1 {
		t.Fatalf("issued %d tokens", f.issued)
	}
}

func TestIAMRefusalIsACredentialRejectionWithoutThePassword(t *testing.T) {
	clock := &testClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	f, c := newFakeIAM(t, clock, 24*time.Hour)
	f.refuse = true
	_, err := c.CreateVPC(context.Background(), CreateVPCOpts{Name: "v", CIDR: "10.0.0.0/16"})
	if !IsCredentialRejection(err) {
		t.Fatalf("got %v", err)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != "401" || apiErr.Op != "get IAM token" {
		t.Fatalf("got %#v", apiErr)
	}
	if !strings.HasPrefix(err.Error(), "create VPC: get IAM token: POST /v3/auth/tokens: HTTP 401: The request you have made requires authentication") {
		t.Fatalf("message %q", err.Error())
	}
	mustNotContain(t, err.Error(), testPassword)
	if f.vpcGets.Load() != 0 {
		t.Fatal("a service was called without a token")
	}
}

// fakeProjects answers GET /v3/projects with the given projects (name ignored, as a loose proxy might).
func fakeProjects(t *testing.T, calls *atomic.Int32, fail *atomic.Bool, projects ...Project) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body := readBody(t, r)
		verifySigned(t, r, body, testSK)
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v3/projects":
			calls.Add(1)
			if r.URL.Query().Get("name") != "eu-de_test" || r.Header.Get("X-Project-Id") != "" {
				t.Errorf("discovery %s with X-Project-Id %q", r.URL, r.Header.Get("X-Project-Id"))
			}
			if fail != nil && fail.Load() {
				writeJSON(w, 403, `{"error":{"code":"IAM.0003","message":"Policy doesn't allow iam:projects:list to be performed."}}`)
				return
			}
			data, _ := json.Marshal(map[string]any{"projects": projects})
			writeJSON(w, 200, string(data))
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v2.1/"):
			if r.Header.Get("X-Project-Id") != testProjectID || !strings.HasPrefix(r.URL.Path, "/v2.1/"+testProjectID+"/") {
				t.Errorf("project-scoped %s with X-Project-Id %q", r.URL.Path, r.Header.Get("X-Project-Id"))
			}
			writeJSON(w, 200, `{"keypair":{"name":"k","public_key":"ssh-ed25519 AAAA","fingerprint":"f"}}`)
		default:
			t.Errorf("unexpected %s %s", r.Method, r.URL)
		}
	}
}

func TestAccessKeyClientsDiscoverTheirProjectOnce(t *testing.T) {
	var calls atomic.Int32
	server := newServer(t, fakeProjects(t, &calls, nil,
		Project{ID: "fedcba9876543210fedcba9876543210", Name: "eu-de_test_other"},
		Project{ID: testProjectID, Name: "eu-de_test"}))
	cfg := akskConfig(server.URL)
	cfg.ProjectID = ""
	c := newClient(t, cfg, Options{})
	for i := 0; i < 3; i++ {
		if _, err := c.GetKeypair(context.Background(), "k"); err != nil {
			t.Fatal(err)
		}
	}
	if calls.Load() != 1 {
		t.Fatalf("%d discoveries", calls.Load())
	}
}

func TestProjectDiscoveryFailures(t *testing.T) {
	for _, tc := range []struct {
		projects []Project
		message  string
	}{
		{nil, `no IAM project named "eu-de_test" is visible to these credentials`},
		{[]Project{{ID: "a", Name: "eu-de_test"}, {ID: "b", Name: "eu-de_test"}}, `2 IAM projects are named "eu-de_test"; set tenant_id to choose one`},
	} {
		var calls atomic.Int32
		server := newServer(t, fakeProjects(t, &calls, nil, tc.projects...))
		cfg := akskConfig(server.URL)
		cfg.ProjectID = ""
		_, err := newClient(t, cfg, Options{}).GetKeypair(context.Background(), "k")
		var configErr *ConfigError
		if !errors.As(err, &configErr) || err.Error() != "get key pair: "+tc.message {
			t.Errorf("got %v, want %q", err, tc.message)
		}
	}
}

func TestAFailedDiscoveryIsNotKept(t *testing.T) {
	var calls atomic.Int32
	var fail atomic.Bool
	fail.Store(true)
	server := newServer(t, fakeProjects(t, &calls, &fail, Project{ID: testProjectID, Name: "eu-de_test"}))
	cfg := akskConfig(server.URL)
	cfg.ProjectID = ""
	c := newClient(t, cfg, Options{})
	_, err := c.ProjectID(context.Background())
	if !IsCredentialRejection(err) {
		t.Fatalf("got %v", err)
	}
	fail.Store(false)
	if id, err := c.ProjectID(context.Background()); err != nil || id != testProjectID {
		t.Fatalf("got %q, %v", id, err)
	}
}
