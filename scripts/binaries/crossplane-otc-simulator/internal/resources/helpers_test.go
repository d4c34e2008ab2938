package resources

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/otc"
	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

const projectID = "0123456789abcdef0123456789abcdef"

// Paths of the OTC APIs the resources call.
const (
	vpcBase     = "/v1/" + projectID
	keypairBase = "/v2.1/" + projectID + "/os-keypairs"
	clusterBase = "/api/v3/projects/" + projectID + "/clusters"
)

// A request the fake OTC received.
type request struct {
	method, path, query string
	body                any
}

// reply is a handler's answer: status and JSON body ("" for none).
type reply struct {
	status int
	body   string
}

// fakeOTC imitates the OTC endpoints a test registers, recording every
// request; anything else fails the test with the gateway's "no such API".
type fakeOTC struct {
	t        *testing.T
	mu       sync.Mutex
	requests []request
	routes   map[string]func(request) reply
}

// newFakeOTC starts a fake OTC and returns a client for it, with AK/SK and
// a known project as the provider's Secret would give.
func newFakeOTC(t *testing.T) (*fakeOTC, *otc.Client) {
	t.Helper()
	f := &fakeOTC{t: t, routes: map[string]func(request) reply{}}
	server := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(server.Close)
	endpoints, err := otc.SingleEndpoint(server.URL)
	if err != nil {
		t.Fatal(err)
	}
	c, err := otc.NewClient(otc.Config{
		Region:      "eu-de",
		ProjectName: "eu-de",
		ProjectID:   projectID,
		AccessKey:   &otc.AccessKeyCredentials{AccessKey: "AKTEST0000000000", SecretKey: "secret"},
		Endpoints:   endpoints,
	}, otc.Options{MaxAttempts: 1, RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return f, c
}

func (f *fakeOTC) serve(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("reading a request: %v", err)
	}
	req := request{method: r.Method, path: r.URL.Path, query: r.URL.RawQuery}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &req.body); err != nil {
			f.t.Errorf("%s %s: the body is not JSON: %v", r.Method, r.URL.Path, err)
		}
	}
	if r.Header.Get("X-Project-Id") != projectID || !strings.HasPrefix(r.Header.Get("Authorization"), "SDK-HMAC-SHA256 ") {
		f.t.Errorf("%s %s is not signed for the project", r.Method, r.URL.Path)
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	route := f.routes[r.Method+" "+r.URL.Path]
	f.mu.Unlock()
	answer := reply{404, `{"error_msg":"The API does not exist or has not been published","error_code":"APIGW.0101"}`}
	if route == nil {
		f.t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
	} else {
		answer = route(req)
	}
	if answer.body == "" {
		w.WriteHeader(answer.status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(answer.status)
	_, _ = io.WriteString(w, answer.body)
}

// on answers every "method path" with status and body.
func (f *fakeOTC) on(method, path string, status int, body string) {
	f.handle(method, path, func(request) reply { return reply{status, body} })
}

// handle answers "method path" with h.
func (f *fakeOTC) handle(method, path string, h func(request) reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[method+" "+path] = h
}

// take returns the requests received so far and forgets them.
func (f *fakeOTC) take() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.requests
	f.requests = nil
	return out
}

// expect checks the requests received so far (bodies as JSON text) and forgets them.
func (f *fakeOTC) expect(want ...request) {
	f.t.Helper()
	got := f.take()
	for i := range want {
		if s, ok := want[i].body.(string); ok {
			want[i].body = jsonValue(f.t, s)
		}
	}
	if len(got) != len(want) {
		f.t.Fatalf("requests:\n got %+v\nwant %+v", got, want)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			f.t.Errorf("request %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func jsonValue(t *testing.T, text string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("bad JSON in the test: %v: %s", err, text)
	}
	return v
}

// params is forProvider as the API server's decoder gives it: integers
// as int64, other numbers as float64.
func params(t *testing.T, text string) apis.Parameters {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("bad JSON in the test: %v", err)
	}
	return apis.Parameters(fromNumbers(v).(map[string]any))
}

func fromNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = fromNumbers(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = fromNumbers(e)
		}
		return x
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	default:
		return v
	}
}

// asJSON is v as JSON would carry it, for comparisons that ignore the
// difference between int64 and float64.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	if g, w := asJSON(t, got), jsonValue(t, want); !reflect.DeepEqual(g, w) {
		gotText, _ := json.Marshal(g)
		t.Errorf("%s:\n got %s\nwant %s", what, gotText, want)
	}
}

// read runs res's refresh and fails the test on an error.
func read(t *testing.T, res *terraformed.Resource, c *otc.Client, id string, p, previous apis.Parameters) *terraformed.State {
	t.Helper()
	state, err := res.Read(context.Background(), c, id, p, previous)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return state
}

// noChanges checks that a refresh right after creating from forProvider
// shows no drift.
func noChanges(t *testing.T, forProvider apis.Parameters, state *terraformed.State) {
	t.Helper()
	if changes := terraformed.Changes(forProvider, state.Reported); len(changes) != 0 {
		t.Errorf("drift right after create: %+v", changes)
	}
}

const notPublished = `{"error_msg":"The API does not exist or has not been published","error_code":"APIGW.0101"}`
