package otc

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// stallingServer accepts requests and never answers until the test ends.
func stallingServer(t *testing.T, hits *atomic.Int32) string {
	release := make(chan struct{})
	server := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	// Registered after the server's Close, so it runs first and unblocks the handlers.
	t.Cleanup(func() { close(release) })
	return server.URL
}

func TestAStalledServerEndsTheCallAtTheRequestDeadline(t *testing.T) {
	var hits atomic.Int32
	c := newClient(t, akskConfig(stallingServer(t, &hits)), Options{RequestTimeout: 200 * time.Millisecond, MaxAttempts: 1})
	start := time.Now()
	_, err := c.GetVPC(context.Background(), "v1")
	elapsed := time.Since(start)
	if elapsed < 200*time.Millisecond || elapsed > 2*time.Second {
		t.Fatalf("the call took %v with a 200ms deadline", elapsed)
	}
	var transportErr *TransportError
	if !errors.As(err, &transportErr) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %T %v", err, err)
	}
	if !strings.HasPrefix(err.Error(), "get VPC: GET /v1/"+testProjectID+"/vpcs/v1: no complete answer within 200ms") {
		t.Fatalf("message %q", err.Error())
	}
	if IsNotFound(err) || IsConflict(err) {
		t.Fatal("a timeout classified as an API answer")
	}
}

func TestTheCallersDeadlineBoundsRetriesToo(t *testing.T) {
	var hits atomic.Int32
	c := newClient(t, akskConfig(stallingServer(t, &hits)), Options{RequestTimeout: 10 * time.Second, MaxAttempts: 5})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.GetVPC(ctx, "v1")
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Fatalf("the call took %v with a 300ms context", elapsed)
	}
	if !errors.Is(err, context.DeadlineExceeded) || hits.Load() != 1 {
		t.Fatalf("got %v after %d attempts", err, hits.Load())
	}
}

func TestAServerThatStallsMidBodyTimesOutToo(t *testing.T) {
	server := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(200)
		_, _ = w.Write([]byte(`{"vpc":{"id":`))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := newClient(t, akskConfig(server.URL), Options{RequestTimeout: 200 * time.Millisecond, MaxAttempts: 1})
	start := time.Now()
	_, err := c.GetVPC(context.Background(), "v1")
	if time.Since(start) > 2*time.Second || err == nil {
		t.Fatalf("got %v after %v", err, time.Since(start))
	}
}

func TestAnAbortedContextSendsNothing(t *testing.T) {
	var hits atomic.Int32
	server := newServer(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newClient(t, akskConfig(server.URL), Options{}).GetVPC(ctx, "v1")
	if !errors.Is(err, context.Canceled) || hits.Load() != 0 {
		t.Fatalf("got %v after %d requests", err, hits.Load())
	}
}

func TestRetries(t *testing.T) {
	type step struct {
		status int
		body   string
	}
	run := func(t *testing.T, method string, steps []step, call func(*Client) error) (int32, error) {
		var hits atomic.Int32
		server := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			verifySigned(t, r, readBody(t, r), testSK)
			n := int(hits.Add(1)) - 1
			if r.Method != method {
				t.Errorf("method %s", r.Method)
			}
			s := steps[min(n, len(steps)-1)]
			if s.status == 429 {
				w.Header().Set("Retry-After", "0")
			}
			writeJSON(w, s.status, s.body)
		})
		err := call(newClient(t, akskConfig(server.URL), Options{}))
		return hits.Load(), err
	}
	ok := `{"vpc":{"id":"v1","name":"n","cidr":"10.0.0.0/16","status":"OK"}}`
	busy := `{"error_msg":"busy","error_code":"SYS.0503"}`
	get := func(c *Client) error { _, err := c.GetVPC(context.Background(), "v1"); return err }
	create := func(c *Client) error {
		_, err := c.CreateVPC(context.Background(), CreateVPCOpts{Name: "n", CIDR: "10.0.0.0/16"})
		return err
	}

	t.Run("a GET repeats 5xx", func(t *testing.T) {
		hits, err := run(t, "GET", []step{{503, busy}, {502, ""}, {200, ok}}, get)
		if err != nil || hits != 3 {
			t.Fatalf("got %v after %d attempts", err, hits)
		}
	})
	t.Run("a GET gives up after MaxAttempts", func(t *testing.T) {
		hits, err := run(t, "GET", []step{{503, busy}}, get)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || apiErr.Code != "SYS.0503" || hits != defaultMaxAttempts {
			t.Fatalf("got %v after %d attempts", err, hits)
		}
	})
	t.Run("a POST does not repeat a 5xx, which may have created the resource", func(t *testing.T) {
		hits, err := run(t, "POST", []step{{500, busy}, {200, ok}}, create)
		if err == nil || hits != 1 {
			t.Fatalf("got %v after %d attempts", err, hits)
		}
	})
	t.Run("a POST repeats a 429, refused before anything happened", func(t *testing.T) {
		hits, err := run(t, "POST", []step{{429, `{"error_msg":"throttled","error_code":"APIGW.0308"}`}, {200, ok}}, create)
		if err != nil || hits != 2 {
			t.Fatalf("got %v after %d attempts", err, hits)
		}
	})
	t.Run("4xx are final", func(t *testing.T) {
		hits, err := run(t, "GET", []step{{404, `{"error_msg":"vpc v1 could not be found","error_code":"VPC.0404"}`}}, get)
		if !IsNotFound(err) || hits != 1 {
			t.Fatalf("got %v after %d attempts", err, hits)
		}
	})
}

func TestErrorsNeverCarryCredentialsTokensOrSignatures(t *testing.T) {
	var echoed string
	server := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		body := readBody(t, r)
		// A gateway that echoes the whole request in its error.
		echoed = r.Header.Get("Authorization") + " " + r.Header.Get("X-Security-Token") + " " + r.Header.Get("X-Auth-Token") + " " + string(body)
		writeJSON(w, 400, `{"error_msg":"bad request: `+strings.ReplaceAll(echoed, `"`, `'`)+`","error_code":"VPC.0400"}`)
	})
	cfg := akskConfig(server.URL)
	cfg.AccessKey.SecurityToken = "security-token-do-not-echo"
	_, err := newClient(t, cfg, Options{}).CreateVPC(context.Background(), CreateVPCOpts{Name: "n", CIDR: "10.0.0.0/16"})
	if !IsBadRequest(err) {
		t.Fatalf("got %v", err)
	}
	signature := echoed[strings.Index(echoed, "Signature=")+len("Signature=") : strings.Index(echoed, "Signature=")+len("Signature=")+64]
	mustNotContain(t, err.Error(), testAK, testSK, "security-token-do-not-echo", signature)
	if !strings.Contains(err.Error(), "Signature=[REDACTED]") || !strings.Contains(err.Error(), "10.0.0.0/16") {
		t.Fatalf("message %q", err.Error())
	}
}

func TestNonJSONErrorBodiesAreQuotedShortAndScrubbed(t *testing.T) {
	server := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(502)
		_, _ = w.Write([]byte("<html>\n<body>proxy error for " + testAK + strings.Repeat(" padding", 100) + "</body></html>"))
	})
	_, err := newClient(t, akskConfig(server.URL), Options{MaxAttempts: 1}).GetVPC(context.Background(), "v1")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 502 || !strings.HasPrefix(apiErr.Message, "<html> <body>proxy error for [REDACTED]") || !strings.HasSuffix(apiErr.Message, "...") {
		t.Fatalf("got %q", err)
	}
}

func TestAnswersThatBreakTheContractAreNotQuoted(t *testing.T) {
	for body, message := range map[string]string{
		``:                              "the answer is empty",
		`client-key-data: c2VjcmV0`:     "the answer is not valid JSON",
		`["client-key-data: c2VjcmV0"]`: "the answer is not a JSON object",
		`{"vpcs":[]}`:                   `the answer has no "vpc" object`,
		`{"vpc":null}`:                  `the answer has no "vpc" object`,
		`{"vpc":{"id":7}}`:              "the answer does not fit: id is a JSON number, expected string",
		`{"vpc":{"id":"x", "name":}}`:   "the answer is not valid JSON",
	} {
		server := newServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, body) })
		_, err := newClient(t, akskConfig(server.URL), Options{}).GetVPC(context.Background(), "v1")
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Message != message || apiErr.StatusCode != 200 {
			t.Errorf("%q: got %v, want %q", body, err, message)
		}
		mustNotContain(t, err.Error(), "c2VjcmV0")
	}
}

func TestEmptyIDsNeverReachTheAPI(t *testing.T) {
	var hits atomic.Int32
	server := newServer(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
	c := newClient(t, akskConfig(server.URL), Options{})
	ctx := context.Background()
	for _, err := range []error{
		func() error { _, err := c.GetVPC(ctx, ""); return err }(),
		c.DeleteVPC(ctx, ""),
		c.DeleteSubnet(ctx, "vpc", ""),
		c.DeleteSubnet(ctx, "", "subnet"),
		c.DeleteCCENodePool(ctx, "", "pool"),
		func() error { _, err := c.CreateKeypair(ctx, CreateKeypairOpts{Name: "k"}); return err }(),
	} {
		var configErr *ConfigError
		if !errors.As(err, &configErr) {
			t.Errorf("got %v", err)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("%d requests sent", hits.Load())
	}
}

func TestIdsAreEscapedSegmentByOneSegment(t *testing.T) {
	server := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		verifySigned(t, r, readBody(t, r), testSK)
		if r.URL.EscapedPath() != "/v2.1/"+testProjectID+"/os-keypairs/a%2Fb%20c" {
			t.Errorf("path %s", r.URL.EscapedPath())
		}
		writeJSON(w, 404, `{"itemNotFound":{"code":404,"message":"Keypair a/b c not found for user"}}`)
	})
	_, err := newClient(t, akskConfig(server.URL), Options{}).GetKeypair(context.Background(), "a/b c")
	if !IsNotFound(err) {
		t.Fatalf("got %v", err)
	}
}

func TestEndpointPathPrefixesAreKept(t *testing.T) {
	server := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		verifySigned(t, r, readBody(t, r), testSK)
		if r.URL.Path != "/proxy/otc/v1/"+testProjectID+"/vpcs/v1" {
			t.Errorf("path %s", r.URL.Path)
		}
		writeJSON(w, 200, `{"vpc":{"id":"v1","status":"OK"}}`)
	})
	cfg := akskConfig(server.URL + "/proxy/otc/")
	if _, err := newClient(t, cfg, Options{}).GetVPC(context.Background(), "v1"); err != nil {
		t.Fatal(err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for value, want := range map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		"-2":                            0,
		"soon":                          0,
		"Sun, 01 Mar 2026 12:00:10 GMT": 10 * time.Second,
	} {
		if got := parseRetryAfter(value, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", value, got, want)
		}
	}
	c := &Client{baseDelay: 100 * time.Millisecond, maxDelay: time.Second}
	if d := c.backoff(1, 0); d < 50*time.Millisecond || d > 100*time.Millisecond {
		t.Errorf("first backoff %v", d)
	}
	if d := c.backoff(30, 0); d < 500*time.Millisecond || d > time.Second {
		t.Errorf("capped backoff %v", d)
	}
	if d := c.backoff(1, time.Hour); d != time.Second {
		t.Errorf("Retry-After not capped: %v", d)
	}
}
