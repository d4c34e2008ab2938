package otc

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// cacheSettings point every client at a server that knows the project.
func cacheSettings(t *testing.T, maxClients int) (Settings, *atomic.Int32) {
	var discoveries atomic.Int32
	server := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		discoveries.Add(1)
		writeJSON(w, 200, `{"projects":[{"id":"`+testProjectID+`","name":"eu-de"}]}`)
	})
	base := server.URL
	return Settings{Endpoints: Endpoints{IAM: base, ECS: base, VPC: base, CCE: base}, MaxClients: maxClients}, &discoveries
}

func values(secretKey string) CredentialValues {
	return CredentialValues{"access_key": "AKCACHETEST0001", "secret_key": secretKey, "region": "eu-de"}
}

func TestClientsHandsOutOneConnectedClientPerCredentials(t *testing.T) {
	settings, discoveries := cacheSettings(t, 0)
	cs := NewClients(settings)
	defer cs.Close()
	ctx := context.Background()
	a1, err := cs.Get(ctx, values("sk-cache-test-one"))
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := cs.Get(ctx, values("sk-cache-test-one"))
	b, _ := cs.Get(ctx, values("sk-cache-test-two"))
	if a1 != a2 || a1 == b || cs.Len() != 2 {
		t.Fatalf("same credentials: %v, different: %v, kept %d", a1 == a2, a1 == b, cs.Len())
	}
	// Connected once per client: the project is discovered at the first Get only.
	if discoveries.Load() != 2 {
		t.Fatalf("%d discoveries", discoveries.Load())
	}
	if a1.http != b.http {
		t.Fatal("clients of one cache do not share the connection pool")
	}
	if cs.capacity != DefaultClientsCapacity {
		t.Fatalf("capacity %d", cs.capacity)
	}
}

func TestClientsDropsTheLeastRecentlyUsed(t *testing.T) {
	settings, _ := cacheSettings(t, 2)
	cs := NewClients(settings)
	defer cs.Close()
	ctx := context.Background()
	a, _ := cs.Get(ctx, values("sk-a"))
	b, _ := cs.Get(ctx, values("sk-b"))
	if again, _ := cs.Get(ctx, values("sk-a")); again != a {
		t.Fatal("a was not kept")
	}
	// b is now the least recently used: c pushes it out, a stays.
	if _, err := cs.Get(ctx, values("sk-c")); err != nil {
		t.Fatal(err)
	}
	if cs.Len() != 2 {
		t.Fatalf("kept %d", cs.Len())
	}
	if again, _ := cs.Get(ctx, values("sk-a")); again != a {
		t.Fatal("a was dropped")
	}
	if again, _ := cs.Get(ctx, values("sk-b")); again == b {
		t.Fatal("b was kept beyond the capacity")
	}
}

func TestClientsRefusesUnusableCredentialsWithoutKeepingThem(t *testing.T) {
	settings, _ := cacheSettings(t, 0)
	cs := NewClients(settings)
	defer cs.Close()
	_, err := cs.Get(context.Background(), CredentialValues{"access_key": "AKONLY", "region": "eu-de"})
	if err == nil || err.Error() != "access_key and secret_key must be given together" || cs.Len() != 0 {
		t.Fatalf("got %v, kept %d", err, cs.Len())
	}
}

func TestClientsFailsAtConnectWhenIAMRefusesAndTriesAgainNextTime(t *testing.T) {
	var refuse atomic.Bool
	refuse.Store(true)
	server := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if refuse.Load() {
			writeJSON(w, 401, `{"error_msg":"Incorrect IAM authentication information: the access key is unknown","error_code":"APIGW.0301"}`)
			return
		}
		writeJSON(w, 200, `{"projects":[{"id":"`+testProjectID+`","name":"eu-de"}]}`)
	})
	cs := NewClients(Settings{Endpoints: mustSingleEndpoint(t, server.URL)})
	defer cs.Close()
	if _, err := cs.Get(context.Background(), values("sk-refused")); !IsCredentialRejection(err) {
		t.Fatalf("got %v", err)
	}
	refuse.Store(false)
	if _, err := cs.Get(context.Background(), values("sk-refused")); err != nil {
		t.Fatalf("the failure was kept: %v", err)
	}
}

func TestClientsIsSafeForConcurrentUse(t *testing.T) {
	settings, _ := cacheSettings(t, 4)
	cs := NewClients(settings)
	defer cs.Close()
	var wg sync.WaitGroup
	got := make([][]*Client, 16)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				c, err := cs.Get(context.Background(), values([]string{"sk-1", "sk-2", "sk-3"}[i%3]))
				if err != nil {
					t.Error(err)
					return
				}
				got[g] = append(got[g], c)
			}
		}()
	}
	wg.Wait()
	for g := range got {
		for i, c := range got[g] {
			if c != got[0][i%3] {
				t.Fatalf("goroutine %d call %d got another client for the same credentials", g, i)
			}
		}
	}
}

func TestFingerprintCoversEveryFieldAndHidesTheValues(t *testing.T) {
	base := akskConfig("http://127.0.0.1:1")
	base.AccessKey.SecurityToken = "tok"
	mutations := map[string]func(*Config){
		"region":         func(c *Config) { c.Region = "eu-nl" },
		"project name":   func(c *Config) { c.ProjectName = "eu-de_other" },
		"project id":     func(c *Config) { c.ProjectID = "other" },
		"access key":     func(c *Config) { c.AccessKey.AccessKey = "OTHER" },
		"secret key":     func(c *Config) { c.AccessKey.SecretKey = "other" },
		"security token": func(c *Config) { c.AccessKey.SecurityToken = "" },
		"password": func(c *Config) {
			c.AccessKey = nil
			c.Password = &PasswordCredentials{UserName: "u", Password: "p", DomainName: "d"}
		},
		"endpoint": func(c *Config) { c.Endpoints.CCE = "http://127.0.0.1:2" },
		// Length prefixes: moving a character from one field to the next is a different configuration.
		"field boundary": func(c *Config) { c.ProjectName = "eu-de_tes"; c.ProjectID = "t" + c.ProjectID },
	}
	seen := map[string]string{Fingerprint(base): "base"}
	for name, mutate := range mutations {
		cfg := base
		ak := *base.AccessKey
		cfg.AccessKey = &ak
		mutate(&cfg)
		fp := Fingerprint(cfg)
		if other, ok := seen[fp]; ok {
			t.Errorf("%s has the fingerprint of %s", name, other)
		}
		seen[fp] = name
		if len(fp) != 64 || strings.Contains(fp, testSK) {
			t.Errorf("fingerprint %q", fp)
		}
	}
	password := passwordConfig("http://127.0.0.1:1")
	again := password
	again.Password = &PasswordCredentials{UserName: "ci-user", Password: testPassword, DomainName: "OTC00000000001000000001"}
	if Fingerprint(password) != Fingerprint(again) {
		t.Fatal("equal configurations with distinct pointers differ")
	}
}
