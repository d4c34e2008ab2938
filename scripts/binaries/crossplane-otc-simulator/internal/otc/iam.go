package otc

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// IAM: password tokens (POST /v3/auth/tokens, the token in the
// X-Subject-Token header, sent as X-Auth-Token) and project discovery
// (GET /v3/projects?name=), as packages/otc's iam-token.ts and iam.ts do.

const (
	tokenPath = "/v3/auth/tokens"
	// tokenRenewalMargin: a token is renewed this long before it expires,
	// so that none expires between being picked and arriving.
	tokenRenewalMargin = 5 * time.Minute
)

// issuedToken is a project-scoped IAM token.
type issuedToken struct {
	value     string
	projectID string
	// renewAt is on the client's clock: from then on a new token is got before use.
	renewAt time.Time
}

// tokenCache keeps a client's current token; at most one token request is
// in flight, and concurrent calls wait for it.
type tokenCache struct {
	mu      sync.Mutex
	current *issuedToken
	flight  sharedCall[*issuedToken]
}

func (t *tokenCache) fresh(now time.Time) *issuedToken {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.current != nil && now.Before(t.current.renewAt) {
		return t.current
	}
	return nil
}

// discard forgets tok (a service refused it) unless a newer one replaced it already.
func (t *tokenCache) discard(tok *issuedToken) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.current == tok {
		t.current = nil
	}
}

// token returns the current token, or one IAM issues now.
func (c *Client) token(ctx context.Context) (*issuedToken, error) {
	if tok := c.tokens.fresh(c.now()); tok != nil {
		return tok, nil
	}
	return c.tokens.flight.do(ctx, func(ctx context.Context) (*issuedToken, error) {
		// Another flight may have landed between the check above and this one starting.
		if tok := c.tokens.fresh(c.now()); tok != nil {
			return tok, nil
		}
		tok, err := c.issueToken(ctx)
		if err != nil {
			return nil, err
		}
		c.tokens.mu.Lock()
		c.tokens.current = tok
		c.tokens.mu.Unlock()
		return tok, nil
	})
}

type tokenRequestBody struct {
	Auth struct {
		Identity struct {
			Methods  []string `json:"methods"`
			Password struct {
				User struct {
					Name     string `json:"name"`
					Password string `json:"password"`
					Domain   struct {
						Name string `json:"name"`
					} `json:"domain"`
				} `json:"user"`
			} `json:"password"`
		} `json:"identity"`
		Scope struct {
			Project struct {
				Name string `json:"name"`
			} `json:"project"`
		} `json:"scope"`
	} `json:"auth"`
}

type tokenAnswer struct {
	Token struct {
		ExpiresAt string `json:"expires_at"`
		IssuedAt  string `json:"issued_at"`
		Project   struct {
			ID string `json:"id"`
		} `json:"project"`
	} `json:"token"`
}

// issueToken asks IAM for a token scoped to the configured project. IAM's
// refusal is an *APIError 401 (IsCredentialRejection).
func (c *Client) issueToken(ctx context.Context) (*issuedToken, error) {
	const op = "get IAM token"
	p := c.cfg.Password
	var body tokenRequestBody
	body.Auth.Identity.Methods = []string{"password"}
	body.Auth.Identity.Password.User.Name = p.UserName
	body.Auth.Identity.Password.User.Password = p.Password
	body.Auth.Identity.Password.User.Domain.Name = p.DomainName
	body.Auth.Scope.Project.Name = c.cfg.ProjectName
	ans, err := c.exchange(ctx, request{op: op, service: ServiceIAM, method: http.MethodPost, path: tokenPath, body: body, unauthenticated: true, repeatable: true})
	if err != nil {
		return nil, err
	}
	return readIssuedToken(op, ans, c.now())
}

// readIssuedToken reads a 2xx token answer. The renewal time is receivedAt
// plus the token's lifetime (issued_at to expires_at, both on IAM's clock,
// so a skewed local clock does not matter) minus five minutes, or minus
// half the lifetime for short-lived tokens. An answer without token,
// project or expiry breaks IAM's contract.
func readIssuedToken(op string, ans *answer, receivedAt time.Time) (*issuedToken, error) {
	breach := func(what string) error {
		return &APIError{Op: op, Method: http.MethodPost, Path: ans.path, StatusCode: ans.status, Message: "the token answer " + what, RequestID: ans.header.Get("X-Request-Id")}
	}
	value := ans.header.Get("X-Subject-Token")
	if value == "" {
		return nil, breach("has no X-Subject-Token header")
	}
	var parsed tokenAnswer
	if json.Unmarshal(ans.body, &parsed) != nil {
		return nil, breach("is not JSON")
	}
	if parsed.Token.Project.ID == "" {
		return nil, breach(`has no "token.project.id"`)
	}
	expiresAt, err := time.Parse(time.RFC3339Nano, parsed.Token.ExpiresAt)
	if err != nil {
		return nil, breach(`has no valid "token.expires_at"`)
	}
	lifetime := expiresAt.Sub(receivedAt)
	if issuedAt, err := time.Parse(time.RFC3339Nano, parsed.Token.IssuedAt); err == nil {
		lifetime = expiresAt.Sub(issuedAt)
	}
	margin := min(tokenRenewalMargin, max(0, lifetime/2))
	return &issuedToken{value: value, projectID: parsed.Token.Project.ID, renewAt: receivedAt.Add(lifetime - margin)}, nil
}

// Project is an IAM project as GET /v3/projects lists it.
type Project struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	DomainID    string `json:"domain_id,omitempty"`
	ParentID    string `json:"parent_id,omitempty"`
	Enabled     bool   `json:"enabled"`
	Description string `json:"description,omitempty"`
}

// ListProjects lists the IAM projects named name that the credentials see.
func (c *Client) ListProjects(ctx context.Context, name string) ([]Project, error) {
	var answer struct {
		Projects []Project `json:"projects"`
	}
	r := request{op: "list IAM projects", service: ServiceIAM, method: http.MethodGet, path: "/v3/projects", query: url.Values{"name": {name}}}
	if err := c.do(ctx, r, &answer); err != nil {
		return nil, err
	}
	return answer.Projects, nil
}

// ProjectID is the id of the project calls act in: tenant_id when
// configured; for a password, the project of the token (getting one if
// need be); for AK/SK, the one project named ProjectName, found once with
// IAM and kept. A failure is not kept: the next call asks again, so a
// fixed Secret or project takes effect at once. It is what checks the
// credentials when a client is first used.
func (c *Client) ProjectID(ctx context.Context) (string, error) {
	if c.cfg.ProjectID != "" {
		return c.cfg.ProjectID, nil
	}
	if c.cfg.Password != nil {
		tok, err := c.token(ctx)
		if err != nil {
			return "", err
		}
		return tok.projectID, nil
	}
	c.project.mu.Lock()
	id := c.project.id
	c.project.mu.Unlock()
	if id != "" {
		return id, nil
	}
	return c.project.flight.do(ctx, func(ctx context.Context) (string, error) {
		id, err := c.discoverProjectID(ctx)
		if err != nil {
			return "", err
		}
		c.project.mu.Lock()
		c.project.id = id
		c.project.mu.Unlock()
		return id, nil
	})
}

// discoverProjectID resolves ProjectName the way Huawei's SDKs do: exactly
// one project must have that name. IAM filters by exact name already; the
// names are compared again so that a proxy or simulator that matches
// loosely cannot pick the wrong project.
func (c *Client) discoverProjectID(ctx context.Context) (string, error) {
	name := c.cfg.ProjectName
	projects, err := c.ListProjects(ctx, name)
	if err != nil {
		return "", err
	}
	var matches []Project
	for _, p := range projects {
		if p.Name == name && p.ID != "" {
			matches = append(matches, p)
		}
	}
	switch len(matches) {
	case 0:
		return "", &ConfigError{msg: fmt.Sprintf("no IAM project named %q is visible to these credentials", name)}
	case 1:
		return matches[0].ID, nil
	default:
		return "", &ConfigError{msg: fmt.Sprintf("%d IAM projects are named %q; set tenant_id to choose one", len(matches), name)}
	}
}
