package otc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	// DefaultRequestTimeout bounds one HTTP attempt, from sending to the
	// end of the answer's body, unless Options say otherwise.
	DefaultRequestTimeout = 30 * time.Second
	defaultMaxAttempts    = 3
	defaultRetryBaseDelay = 500 * time.Millisecond
	defaultMaxRetryDelay  = 10 * time.Second
	// httpClientSlack is how much longer than an attempt's deadline the
	// http.Client's own Timeout allows: it is the backstop should a
	// context deadline ever be lost, not the limit that normally applies.
	httpClientSlack = 5 * time.Second
	// maxAnswerBytes bounds what is read of an answer (a kubeconfig is a few KiB).
	maxAnswerBytes = 16 << 20
)

// Options tune a Client. The zero value gives the defaults.
type Options struct {
	// RequestTimeout bounds each HTTP attempt; default DefaultRequestTimeout.
	// A call's context bounds the call as a whole, retries included.
	RequestTimeout time.Duration
	// HTTPClient sends the requests; default one from NewHTTPClient. Sharing
	// one between clients shares its connection pool.
	HTTPClient *http.Client
	// MaxAttempts is how many times a retryable failure is tried in all
	// (429, and for idempotent requests 5xx and transport errors); default 3, 1 disables retries.
	MaxAttempts int
	// RetryBaseDelay is the backoff before the second attempt, doubling per
	// attempt up to MaxRetryDelay, which also caps a server's Retry-After.
	// Defaults 500 ms and 10 s.
	RetryBaseDelay time.Duration
	MaxRetryDelay  time.Duration
	// Now is the clock for X-Sdk-Date and token renewal; default time.Now.
	Now func() time.Time
	// UserAgent is sent when set.
	UserAgent string
}

// NewHTTPClient returns an http.Client with a keep-alive connection pool
// (controllers poll the same few hosts, and a pooled connection saves a TLS
// handshake per call) and an overall timeout a little above requestTimeout.
func NewHTTPClient(requestTimeout time.Duration) *http.Client {
	if requestTimeout <= 0 {
		requestTimeout = DefaultRequestTimeout
	}
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{Transport: transport, Timeout: requestTimeout + httpClientSlack}
}

// Client calls OTC's APIs with one set of credentials. It is safe for
// concurrent use. With AK/SK every request is signed afresh and
// project-scoped requests carry a signed X-Project-Id; with a password,
// requests carry a project-scoped IAM token, renewed shortly before it
// expires and once when a service answers 401.
type Client struct {
	cfg       Config
	bases     map[Service]string
	http      *http.Client
	ownsHTTP  bool
	timeout   time.Duration
	attempts  int
	baseDelay time.Duration
	maxDelay  time.Duration
	now       func() time.Time
	userAgent string
	redact    redactor

	tokens  tokenCache
	project projectCache
}

// NewClient checks cfg and returns a client for it. It sends nothing:
// credentials are first used (and the project discovered) by the first call.
func NewClient(cfg Config, opts Options) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Client{
		cfg:       cfg,
		bases:     map[Service]string{},
		http:      opts.HTTPClient,
		timeout:   opts.RequestTimeout,
		attempts:  opts.MaxAttempts,
		baseDelay: opts.RetryBaseDelay,
		maxDelay:  opts.MaxRetryDelay,
		now:       opts.Now,
		userAgent: opts.UserAgent,
	}
	for _, s := range services {
		c.bases[s] = strings.TrimRight(cfg.Endpoints.For(s), "/")
	}
	if c.timeout <= 0 {
		c.timeout = DefaultRequestTimeout
	}
	if c.http == nil {
		c.http = NewHTTPClient(c.timeout)
		c.ownsHTTP = true
	}
	if c.attempts <= 0 {
		c.attempts = defaultMaxAttempts
	}
	if c.baseDelay <= 0 {
		c.baseDelay = defaultRetryBaseDelay
	}
	if c.maxDelay <= 0 {
		c.maxDelay = defaultMaxRetryDelay
	}
	if c.now == nil {
		c.now = time.Now
	}
	// The AK is no secret by itself, but it names the account: kept out of messages too.
	if a := cfg.AccessKey; a != nil {
		c.redact = newRedactor(a.AccessKey, a.SecretKey, a.SecurityToken)
	} else {
		c.redact = newRedactor(cfg.Password.Password)
	}
	return c, nil
}

// Region is the client's region, e.g. eu-de.
func (c *Client) Region() string { return c.cfg.Region }

// Close closes idle pooled connections of a connection pool the client
// made itself; a shared HTTPClient is left to its owner. Calls in flight finish.
func (c *Client) Close() {
	if c.ownsHTTP {
		c.http.CloseIdleConnections()
	}
}

// request is one API call as the typed methods describe it.
type request struct {
	// op names the operation in errors ("create VPC").
	op      string
	service Service
	method  string
	// path starts with "/" and is already escaped (see apiPath).
	path  string
	query url.Values
	// body is sent as JSON when not nil.
	body any
	// projectID is sent as (signed) X-Project-Id with AK/SK; a token names its project itself.
	projectID string
	// unauthenticated marks the token request, which carries neither signature nor token.
	unauthenticated bool
	// repeatable marks a POST that is safe to send again after a lost answer (a token request).
	repeatable bool
	// key is the object the answer wraps the result in ({"vpc": {...}}); empty for unwrapped answers (CCE).
	key string
}

// answer is a 2xx response, read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
	// path is the request's path, for errors about the answer.
	path string
}

// TransportError is a call that got no answer: connection refused, reset,
// or no complete answer within the attempt's deadline. It unwraps to the
// cause, so errors.Is(err, context.DeadlineExceeded) works.
type TransportError struct {
	Op     string
	Method string
	Path   string
	Err    error
	msg    string
}

func (e *TransportError) Error() string { return e.msg }

func (e *TransportError) Unwrap() error { return e.Err }

// apiPath joins escaped segments into a request path: ids and names are
// escaped one by one, so a "/" in one cannot address another resource.
func apiPath(segments ...string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteString("/" + url.PathEscape(s))
	}
	return b.String()
}

// do sends r and decodes the 2xx answer into out (nothing when out is nil).
func (c *Client) do(ctx context.Context, r request, out any) error {
	ans, err := c.exchange(ctx, r)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	return c.decode(r, ans, out)
}

// exchange sends r until a 2xx answer, retrying what is retryable, and
// returns it; anything else ends as an *APIError or *TransportError.
func (c *Client) exchange(ctx context.Context, r request) (*answer, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", r.op, err)
	}
	u, err := url.Parse(c.bases[r.service] + r.path)
	if err != nil {
		return nil, &ConfigError{msg: r.op + ": cannot build the request URL"}
	}
	if len(r.query) > 0 {
		u.RawQuery = r.query.Encode()
	}
	var payload []byte
	if r.body != nil {
		if payload, err = json.Marshal(r.body); err != nil {
			return nil, fmt.Errorf("%s: cannot encode the request: %w", r.op, err)
		}
	}
	renewed := false
	for attempt := 1; ; {
		var tok *issuedToken
		if !r.unauthenticated && c.cfg.Password != nil {
			if tok, err = c.token(ctx); err != nil {
				return nil, fmt.Errorf("%s: %w", r.op, err)
			}
		}
		ans, sendErr := c.send(ctx, r, u, payload, tok)
		var failure error
		retryable := false
		var retryAfter time.Duration
		switch {
		case sendErr != nil:
			failure = c.transportError(r, u, sendErr, tok)
			// The caller's own end is final; an attempt's deadline or a lost connection is not.
			retryable = ctx.Err() == nil && (r.repeatable || idempotent(r.method))
		case ans.status >= 200 && ans.status < 300:
			return ans, nil
		case ans.status == http.StatusUnauthorized && tok != nil && !renewed:
			// Tokens end early (revoked, password changed): one fresh token, not counted as an attempt.
			renewed = true
			c.tokens.discard(tok)
			continue
		default:
			failure = newAPIError(r.op, r.method, u.Path, ans.status, ans.header, ans.body, func(s string) string { return c.redact.scrub(s, tokenValue(tok)) })
			retryable = retryableStatus(r, ans.status)
			retryAfter = parseRetryAfter(ans.header.Get("Retry-After"), c.now())
		}
		if !retryable || attempt >= c.attempts {
			return nil, failure
		}
		delay := c.backoff(attempt, retryAfter)
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < delay {
			// The retry could not finish in time; the caller learns the real failure now.
			return nil, failure
		}
		if !sleep(ctx, delay) {
			return nil, failure
		}
		attempt++
	}
}

// send makes one attempt, bounded by the client's request timeout.
func (c *Client) send(ctx context.Context, r request, u *url.URL, payload []byte, tok *issuedToken) (*answer, error) {
	attemptCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(attemptCtx, r.method, u.String(), body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json;charset=UTF-8")
	}
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	switch {
	case r.unauthenticated:
	case tok != nil:
		req.Header.Set("X-Auth-Token", tok.value)
	default:
		if r.projectID != "" {
			req.Header.Set("X-Project-Id", r.projectID)
		}
		if err := SignRequest(req, payload, *c.cfg.AccessKey, c.now()); err != nil {
			return nil, err
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// Read within the attempt's deadline: a server that stalls mid-body is a timeout too.
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxAnswerBytes {
		return nil, fmt.Errorf("the answer exceeds %d bytes", maxAnswerBytes)
	}
	return &answer{status: resp.StatusCode, header: resp.Header, body: data, path: u.Path}, nil
}

func (c *Client) transportError(r request, u *url.URL, err error, tok *issuedToken) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		// Its text repeats the whole URL; the path alone is said once below.
		err = urlErr.Err
	}
	reason := err.Error()
	if errors.Is(err, context.DeadlineExceeded) {
		reason = "no complete answer within " + c.timeout.String() + " (" + reason + ")"
	}
	msg := r.op + ": " + r.method + " " + u.Path + ": " + reason
	return &TransportError{Op: r.op, Method: r.method, Path: u.Path, Err: err, msg: c.redact.scrub(msg, tokenValue(tok))}
}

// decode reads a 2xx answer into out. A body that does not fit is a
// contract breach, reported without quoting the body: 2xx bodies are data
// and may hold key material (a kubeconfig's client key).
func (c *Client) decode(r request, ans *answer, out any) error {
	breach := func(message string) error {
		return &APIError{Op: r.op, Method: r.method, Path: ans.path, StatusCode: ans.status, Message: message, RequestID: ans.header.Get("X-Request-Id")}
	}
	body := bytes.TrimSpace(ans.body)
	switch {
	case len(body) == 0:
		return breach("the answer is empty")
	case !json.Valid(body):
		return breach("the answer is not valid JSON")
	case body[0] != '{':
		return breach("the answer is not a JSON object")
	}
	if r.key != "" {
		var wrapped map[string]json.RawMessage
		if json.Unmarshal(body, &wrapped) != nil {
			return breach("the answer is not a JSON object")
		}
		raw := bytes.TrimSpace(wrapped[r.key])
		if len(raw) == 0 || raw[0] != '{' {
			return breach(fmt.Sprintf("the answer has no %q object", r.key))
		}
		body = raw
	}
	if err := json.Unmarshal(body, out); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			// Field and types only: Value is the JSON type, followed by the number itself for overflows.
			kind, _, _ := strings.Cut(typeErr.Value, " ")
			return breach(fmt.Sprintf("the answer does not fit: %s is a JSON %s, expected %s", typeErr.Field, kind, typeErr.Type))
		}
		return breach("the answer cannot be read")
	}
	return nil
}

func tokenValue(tok *issuedToken) string {
	if tok == nil {
		return ""
	}
	return tok.value
}

func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}

// retryableStatus: 429 is refused before anything happens, so any request
// may repeat it; a 5xx may have done the work, so only idempotent requests
// repeat (a repeated create could make a second resource).
func retryableStatus(r request, status int) bool {
	if status == http.StatusTooManyRequests {
		return true
	}
	switch status {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return r.repeatable || idempotent(r.method)
	}
	return false
}

// backoff is exponential with "equal jitter" (half fixed, half random), or
// the server's Retry-After; both capped by the client's MaxRetryDelay.
func (c *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, c.maxDelay)
	}
	ceiling := c.baseDelay << (attempt - 1)
	if ceiling <= 0 || ceiling > c.maxDelay {
		ceiling = c.maxDelay
	}
	half := ceiling / 2
	return half + rand.N(half+1)
}

// parseRetryAfter reads delta-seconds or an HTTP date; 0 when absent or unusable.
func parseRetryAfter(value string, now time.Time) time.Duration {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0
	}
	if seconds, err := strconv.Atoi(value); err == nil {
		return max(0, time.Duration(seconds)*time.Second)
	}
	if at, err := http.ParseTime(value); err == nil {
		return max(0, at.Sub(now))
	}
	return 0
}

// sleep waits d or until ctx ends; false if ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// projectCache holds the project id AK/SK discovery found.
type projectCache struct {
	mu     sync.Mutex
	id     string
	flight sharedCall[string]
}

// requireID refuses an empty id before it turns a resource path into its
// collection's (a GET that lists, a DELETE of nothing).
func requireID(op, what, id string) error {
	if id == "" {
		return &ConfigError{msg: op + ": the " + what + " is empty"}
	}
	return nil
}

// projectFor is ProjectID with the error naming op.
func (c *Client) projectFor(ctx context.Context, op string) (string, error) {
	id, err := c.ProjectID(ctx)
	if err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	return id, nil
}
