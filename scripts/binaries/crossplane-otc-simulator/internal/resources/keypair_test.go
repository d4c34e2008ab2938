package resources

import (
	"context"
	"testing"

	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

const keypairAnswer = `{"keypair":{"name":"ci-key","public_key":"ssh-ed25519 AAAA ci","fingerprint":"aa:bb","user_id":"u","type":"ssh"}}`

func TestKeypairCreate(t *testing.T) {
	cases := []struct {
		name        string
		forProvider string
		wantBody    string
		wantErr     string
	}{
		{
			name:        "import",
			forProvider: `{"name":"ci-key","publicKey":"ssh-ed25519 AAAA ci","region":"eu-de"}`,
			wantBody:    `{"keypair":{"name":"ci-key","public_key":"ssh-ed25519 AAAA ci"}}`,
		},
		{
			name:        "no name",
			forProvider: `{"publicKey":"ssh-ed25519 AAAA ci"}`,
			wantErr:     `the argument "name" is required, but no definition was found`,
		},
		{
			name:        "no public key",
			forProvider: `{"name":"ci-key"}`,
			wantErr:     "the simulator imports keys only: set publicKey",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, c := newFakeOTC(t)
			fake.on("POST", keypairBase, 200, keypairAnswer)
			id, err := keypair.Create(context.Background(), c, params(t, tc.forProvider))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				fake.expect()
				return
			}
			if err != nil || id != "ci-key" {
				t.Fatalf("got %q, %v: a key pair's ID is its name", id, err)
			}
			fake.expect(request{method: "POST", path: keypairBase, body: tc.wantBody})
		})
	}
}

func TestKeypairRead(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("GET", keypairBase+"/ci-key", 200, keypairAnswer)
	fake.on("GET", keypairBase+"/gone", 404, `{"itemNotFound":{"code":404,"message":"Keypair gone not found for user"}}`)
	// OTC may normalise the key: its whitespace and comment are no drift.
	forProvider := params(t, `{"name":"ci-key","publicKey":"ssh-ed25519   AAAA  other-comment"}`)
	state := read(t, keypair, c, "ci-key", forProvider, nil)
	if state.Phase != terraformed.Settled {
		t.Fatalf("phase %v", state.Phase)
	}
	sameJSON(t, "atProvider", state.AtProvider, `{"id":"ci-key","name":"ci-key","publicKey":"ssh-ed25519 AAAA ci","region":"eu-de"}`)
	sameJSON(t, "reported", state.Reported, `{"name":"ci-key","region":"eu-de"}`)
	noChanges(t, forProvider, state)
	if !terraformed.Matches(keypair.ForceNew, "public_key") || !terraformed.Matches(keypair.ForceNew, "name") {
		t.Fatal("a key pair is replaced for a new name or key")
	}

	if state, err := keypair.Read(context.Background(), c, "gone", forProvider, nil); err != nil || state != nil {
		t.Fatalf("gone: %+v, %v", state, err)
	}
}

func TestKeypairDelete(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("DELETE", keypairBase+"/ci-key", 202, "")
	if err := keypair.Delete(context.Background(), c, "ci-key", params(t, `{}`)); err != nil {
		t.Fatal(err)
	}
	fake.expect(request{method: "DELETE", path: keypairBase + "/ci-key"})
}
