package otc

import (
	"context"
	"net/http"
)

// SSH key pairs (ECS, Nova /v2.1/{project}/os-keypairs), what CCE node
// pools log in with. A key pair's name is its id. Only public keys are
// imported: a key pair OTC generates would come back with its private key,
// which the provider must never hold.

// Keypair is a key pair as Nova answers it.
type Keypair struct {
	Name        string `json:"name"`
	PublicKey   string `json:"public_key"`
	Fingerprint string `json:"fingerprint"`
	UserID      string `json:"user_id,omitempty"`
	// Type is ssh (x509 key pairs do not exist for ECS).
	Type      string `json:"type,omitempty"`
	CreatedAt string `json:"created_at,omitempty"`
}

// CreateKeypairOpts imports a public key.
type CreateKeypairOpts struct {
	// Name is unique per user and project: OTC answers 409 for a name in use.
	Name string `json:"name"`
	// PublicKey is in OpenSSH format, e.g. "ssh-ed25519 AAAA... comment".
	PublicKey string `json:"public_key"`
}

// CreateKeypair imports opts.PublicKey as key pair opts.Name.
func (c *Client) CreateKeypair(ctx context.Context, opts CreateKeypairOpts) (*Keypair, error) {
	const op = "create key pair"
	if err := requireID(op, "key pair name", opts.Name); err != nil {
		return nil, err
	}
	if opts.PublicKey == "" {
		// Without one, OTC would generate a key pair and answer its private key.
		return nil, &ConfigError{msg: op + ": a public key is required"}
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	var keypair Keypair
	r := request{op: op, service: ServiceECS, method: http.MethodPost, path: apiPath("v2.1", p, "os-keypairs"), body: map[string]any{"keypair": opts}, projectID: p, key: "keypair"}
	if err := c.do(ctx, r, &keypair); err != nil {
		return nil, err
	}
	return &keypair, nil
}

// GetKeypair reads key pair name; IsNotFound(err) when there is none.
func (c *Client) GetKeypair(ctx context.Context, name string) (*Keypair, error) {
	const op = "get key pair"
	if err := requireID(op, "key pair name", name); err != nil {
		return nil, err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	var keypair Keypair
	r := request{op: op, service: ServiceECS, method: http.MethodGet, path: apiPath("v2.1", p, "os-keypairs", name), projectID: p, key: "keypair"}
	if err := c.do(ctx, r, &keypair); err != nil {
		return nil, err
	}
	return &keypair, nil
}

// DeleteKeypair deletes key pair name; IsNotFound(err) when it was gone
// already. Servers created with it keep the key.
func (c *Client) DeleteKeypair(ctx context.Context, name string) error {
	const op = "delete key pair"
	if err := requireID(op, "key pair name", name); err != nil {
		return err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return err
	}
	return c.do(ctx, request{op: op, service: ServiceECS, method: http.MethodDelete, path: apiPath("v2.1", p, "os-keypairs", name), projectID: p}, nil)
}
