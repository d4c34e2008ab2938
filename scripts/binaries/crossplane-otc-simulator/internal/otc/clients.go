package otc

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"sync"
)

// DefaultClientsCapacity is how many clients a Clients keeps by default.
const DefaultClientsCapacity = 32

// Clients hands out one Client per distinct credentials, shared by every
// managed resource that uses them, as Crossplane's Terraform providers
// share a provider instance per configuration: the IAM token and the
// discovered project stay warm across reconciles. All clients share one
// connection pool (connections carry no credentials: each request is
// signed or carries its token). Beyond the capacity the least recently
// used client is dropped. Safe for concurrent use.
type Clients struct {
	mu       sync.Mutex
	settings Settings
	capacity int
	ownsHTTP bool
	// order holds *cachedClient, most recently used first.
	order *list.List
	byKey map[string]*list.Element
}

type cachedClient struct {
	key    string
	client *Client
}

// NewClients returns an empty cache whose clients are made with settings.
func NewClients(settings Settings) *Clients {
	cs := &Clients{settings: settings, capacity: settings.MaxClients, order: list.New(), byKey: map[string]*list.Element{}}
	if cs.capacity < 1 {
		cs.capacity = DefaultClientsCapacity
	}
	if cs.settings.Client.HTTPClient == nil {
		cs.settings.Client.HTTPClient = NewHTTPClient(settings.Client.RequestTimeout)
		cs.ownsHTTP = true
	}
	return cs
}

// Get returns the client for a credentials Secret's values (see NewConfig),
// connected: its project id is known (configured, discovered with IAM, or
// the token's), so that credentials IAM refuses fail here, at Connect, as
// IsCredentialRejection errors. A failure is not kept: the next Get tries
// again, and a corrected Secret is a different client at once.
func (cs *Clients) Get(ctx context.Context, values CredentialValues) (*Client, error) {
	cfg, err := NewConfig(values, cs.settings)
	if err != nil {
		return nil, err
	}
	return cs.ForConfig(ctx, cfg)
}

// ForConfig is Get for a configuration made otherwise.
func (cs *Clients) ForConfig(ctx context.Context, cfg Config) (*Client, error) {
	client, err := cs.lookup(cfg)
	if err != nil {
		return nil, err
	}
	if _, err := client.ProjectID(ctx); err != nil {
		return nil, err
	}
	return client, nil
}

func (cs *Clients) lookup(cfg Config) (*Client, error) {
	key := Fingerprint(cfg)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if element, ok := cs.byKey[key]; ok {
		cs.order.MoveToFront(element)
		return element.Value.(*cachedClient).client, nil
	}
	client, err := NewClient(cfg, cs.settings.Client)
	if err != nil {
		return nil, err
	}
	cs.byKey[key] = cs.order.PushFront(&cachedClient{key: key, client: client})
	for cs.order.Len() > cs.capacity {
		// A dropped client may still be in use by a reconcile; it keeps
		// working, and the shared pool needs no closing.
		oldest := cs.order.Back()
		cs.order.Remove(oldest)
		delete(cs.byKey, oldest.Value.(*cachedClient).key)
	}
	return client, nil
}

// Len is how many clients are kept.
func (cs *Clients) Len() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.order.Len()
}

// Close forgets every client and closes the idle connections of the pool
// the cache made; calls in flight finish.
func (cs *Clients) Close() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.order.Init()
	cs.byKey = map[string]*list.Element{}
	if cs.ownsHTTP {
		cs.settings.Client.HTTPClient.CloseIdleConnections()
	}
}

// Fingerprint is a SHA-256 digest of everything in cfg that makes one
// client differ from another (the credential values and the settings they
// were read with, resolved), so that a cache holds no credential as a key.
// Fields are written length-prefixed in a fixed order rather than through
// a generic encoding, whose output a redacting String or MarshalJSON
// method could silently collapse.
func Fingerprint(cfg Config) string {
	h := sha256.New()
	write := func(values ...string) {
		for _, v := range values {
			writeField(h, v)
		}
	}
	write("otc-client-v1", cfg.Region, cfg.ProjectName, cfg.ProjectID)
	switch {
	case cfg.AccessKey != nil:
		write("aksk", cfg.AccessKey.AccessKey, cfg.AccessKey.SecretKey, cfg.AccessKey.SecurityToken)
	case cfg.Password != nil:
		write("password", cfg.Password.UserName, cfg.Password.Password, cfg.Password.DomainName)
	default:
		write("none")
	}
	for _, s := range services {
		write(string(s), cfg.Endpoints.For(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func writeField(h hash.Hash, v string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(v)))
	h.Write(n[:])
	h.Write([]byte(v))
}
