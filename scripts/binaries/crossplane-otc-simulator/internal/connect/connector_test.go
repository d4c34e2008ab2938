package connect

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/otc"
	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

const (
	mrNamespace    = "team-a"
	otherNamespace = "crossplane-system"
)

func secret(namespace, value string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "otc-creds"},
		Data:       map[string][]byte{"credentials": []byte(value)},
	}
}

// credentials are AK/SK with a known project, so that connecting sends nothing.
func credentials(region string) string {
	return `{"access_key":"AKTEST0000000000","secret_key":"s3cr3t-do-not-echo","region":"` + region + `","tenant_id":"0123456789abcdef0123456789abcdef"}`
}

func secretRef(namespace string) *xpv1.SecretKeySelector {
	return &xpv1.SecretKeySelector{SecretReference: xpv1.SecretReference{Namespace: namespace, Name: "otc-creds"}, Key: "credentials"}
}

func configSpec(namespace string) apis.ProviderConfigSpec {
	return apis.ProviderConfigSpec{Credentials: apis.ProviderCredentials{
		Source:                    xpv1.CredentialsSourceSecret,
		CommonCredentialSelectors: xpv1.CommonCredentialSelectors{SecretRef: secretRef(namespace)},
	}}
}

func providerConfig(namespace, name string, spec apis.ProviderConfigSpec) *apis.ProviderConfig {
	pc := &apis.ProviderConfig{}
	pc.Namespace, pc.Name, pc.Spec = namespace, name, spec
	return pc
}

func clusterProviderConfig(name string, spec apis.ProviderConfigSpec) *apis.ClusterProviderConfig {
	cpc := &apis.ClusterProviderConfig{}
	cpc.Name, cpc.Spec = name, spec
	return cpc
}

func newMR(ref *xpv1.ProviderConfigReference) *apis.Managed[apis.VpcV1] {
	m := &apis.Managed[apis.VpcV1]{
		TypeMeta:   metav1.TypeMeta{APIVersion: apis.GVK[apis.VpcV1]().GroupVersion().String(), Kind: "VpcV1"},
		ObjectMeta: metav1.ObjectMeta{Namespace: mrNamespace, Name: "net", UID: "mr-uid"},
		Spec:       apis.ManagedSpec{ForProvider: apis.Parameters{"name": "a"}},
	}
	m.Spec.ProviderConfigReference = ref
	meta.SetExternalName(m, "v1")
	return m
}

// regionRecorder is a resource whose refresh notes the region of the
// client it was given: which credentials the connection used.
type regionRecorder struct {
	mu      sync.Mutex
	regions []string
}

func (r *regionRecorder) resource() *terraformed.Resource {
	return &terraformed.Resource{
		Read: func(_ context.Context, c *otc.Client, id string, _, _ apis.Parameters) (*terraformed.State, error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.regions = append(r.regions, c.Region())
			return &terraformed.State{Phase: terraformed.Settled, AtProvider: apis.Parameters{"id": id}}, nil
		},
	}
}

func newConnector(t *testing.T, objects ...client.Object) (*Connector[apis.VpcV1], client.Client, *regionRecorder) {
	t.Helper()
	s := runtime.NewScheme()
	if err := apis.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	kube := fake.NewClientBuilder().WithScheme(s).WithObjects(objects...).Build()
	clients := otc.NewClients(otc.Settings{Endpoints: otc.Endpoints{
		IAM: "http://127.0.0.1:9", ECS: "http://127.0.0.1:9", VPC: "http://127.0.0.1:9", CCE: "http://127.0.0.1:9",
	}})
	t.Cleanup(clients.Close)
	recorder := &regionRecorder{}
	engine := &terraformed.Engine[apis.VpcV1]{
		Resource:   recorder.resource(),
		Operations: terraformed.NewOperations(),
		Kube:       kube,
		Timing:     terraformed.Timing{Poll: time.Millisecond, Timeout: time.Second},
		Log:        logging.NewNopLogger(),
	}
	return &Connector[apis.VpcV1]{
		Kube:    kube,
		Usage:   resource.NewProviderConfigUsageTracker(kube, &apis.ProviderConfigUsage{}),
		Clients: clients,
		Engine:  engine,
	}, kube, recorder
}

func TestConnect(t *testing.T) {
	objects := func() []client.Object {
		return []client.Object{
			secret(mrNamespace, credentials("eu-de")),
			secret(otherNamespace, credentials("eu-nl")),
			secret("team-b", credentials("eu-ch2")),
			// A namespaced config naming another namespace's Secret.
			providerConfig(mrNamespace, "default", configSpec(otherNamespace)),
			providerConfig("team-b", "elsewhere", configSpec("team-b")),
			clusterProviderConfig("cluster-wide", configSpec(otherNamespace)),
			clusterProviderConfig("default", configSpec("team-b")),
			providerConfig(mrNamespace, "broken-json", apis.ProviderConfigSpec{Credentials: apis.ProviderCredentials{
				Source: xpv1.CredentialsSourceSecret, CommonCredentialSelectors: xpv1.CommonCredentialSelectors{SecretRef: &xpv1.SecretKeySelector{
					SecretReference: xpv1.SecretReference{Name: "not-json"}, Key: "credentials",
				}},
			}}),
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: mrNamespace, Name: "not-json"}, Data: map[string][]byte{"credentials": []byte("access_key=x")}},
			providerConfig(mrNamespace, "wrong-key", apis.ProviderConfigSpec{Credentials: apis.ProviderCredentials{
				Source: xpv1.CredentialsSourceSecret, CommonCredentialSelectors: xpv1.CommonCredentialSelectors{SecretRef: &xpv1.SecretKeySelector{
					SecretReference: xpv1.SecretReference{Name: "otc-creds"}, Key: "absent",
				}},
			}}),
			providerConfig(mrNamespace, "no-source", apis.ProviderConfigSpec{}),
		}
	}
	cases := []struct {
		name       string
		ref        *xpv1.ProviderConfigReference
		wantRegion string
		wantErr    string
		wantUsage  bool
	}{
		{
			name:       "a ProviderConfig reads its Secret in the MR's namespace",
			ref:        &xpv1.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"},
			wantRegion: "eu-de",
			wantUsage:  true,
		},
		{
			name:       "a ClusterProviderConfig's Secret namespace stands",
			ref:        &xpv1.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "cluster-wide"},
			wantRegion: "eu-nl",
			wantUsage:  true,
		},
		{
			name:       "a cluster-wide and a namespaced config may share a name",
			ref:        &xpv1.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "default"},
			wantRegion: "eu-ch2",
			wantUsage:  true,
		},
		{
			name:      "a ProviderConfig of another namespace is not found",
			ref:       &xpv1.ProviderConfigReference{Kind: "ProviderConfig", Name: "elsewhere"},
			wantErr:   "cannot get terraform setup: cannot get referenced ProviderConfig:",
			wantUsage: true,
		},
		{
			name:      "no such ClusterProviderConfig",
			ref:       &xpv1.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "absent"},
			wantErr:   "cannot get terraform setup: cannot get referenced ClusterProviderConfig:",
			wantUsage: true,
		},
		{
			name:      "an unknown kind",
			ref:       &xpv1.ProviderConfigReference{Kind: "StoreConfig", Name: "default"},
			wantErr:   `cannot get terraform setup: unsupported provider config kind "StoreConfig": ProviderConfig or ClusterProviderConfig`,
			wantUsage: true,
		},
		{
			name:    "no reference",
			wantErr: "cannot get terraform setup: cannot track ProviderConfig usage:",
		},
		{
			name:    "a reference without a kind",
			ref:     &xpv1.ProviderConfigReference{Name: "default"},
			wantErr: "cannot get terraform setup: cannot track ProviderConfig usage:",
		},
		{
			name:      "a Secret that is not JSON",
			ref:       &xpv1.ProviderConfigReference{Kind: "ProviderConfig", Name: "broken-json"},
			wantErr:   "cannot get terraform setup: cannot extract credentials: cannot unmarshal opentelekomcloud credentials as JSON",
			wantUsage: true,
		},
		{
			name:      "a Secret without the key",
			ref:       &xpv1.ProviderConfigReference{Kind: "ProviderConfig", Name: "wrong-key"},
			wantErr:   "cannot get terraform setup: cannot extract credentials",
			wantUsage: true,
		},
		{
			name:      "no credentials source",
			ref:       &xpv1.ProviderConfigReference{Kind: "ProviderConfig", Name: "no-source"},
			wantErr:   "cannot get terraform setup: cannot extract credentials",
			wantUsage: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			connector, kube, recorder := newConnector(t, objects()...)
			ctx := context.Background()
			m := newMR(tc.ref)
			ext, err := connector.Connect(ctx, m)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one starting %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "access_key=x") {
					t.Fatalf("the error quotes a credential: %v", err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := ext.Observe(ctx, m); err != nil {
					t.Fatal(err)
				}
				if len(recorder.regions) != 1 || recorder.regions[0] != tc.wantRegion {
					t.Fatalf("connected to %v, want %s", recorder.regions, tc.wantRegion)
				}
			}

			// The usage is recorded before the config is used, even a broken one.
			usage := &apis.ProviderConfigUsage{}
			err = kube.Get(ctx, client.ObjectKey{Namespace: mrNamespace, Name: "mr-uid"}, usage)
			if !tc.wantUsage {
				if err == nil {
					t.Fatal("a usage without a reference")
				}
				return
			}
			if err != nil {
				t.Fatalf("no ProviderConfigUsage: %v", err)
			}
			if usage.GetProviderConfigReference() != *tc.ref {
				t.Errorf("usage of %+v, want %+v", usage.GetProviderConfigReference(), *tc.ref)
			}
			if r := usage.GetResourceReference(); r.Kind != "VpcV1" || r.Name != "net" || r.APIVersion != "vpc.opentelekomcloud.m.crossplane.io/v1alpha1" {
				t.Errorf("usage for %+v", r)
			}
			if usage.Labels[xpv1.LabelKeyProviderName] != tc.ref.Name || usage.Labels[xpv1.LabelKeyProviderKind] != tc.ref.Kind {
				t.Errorf("usage labels %v", usage.Labels)
			}
			if len(usage.OwnerReferences) != 1 || usage.OwnerReferences[0].UID != "mr-uid" {
				t.Errorf("usage owners %+v", usage.OwnerReferences)
			}
		})
	}
}

// MRs with the same credentials share one client; other credentials get another.
func TestConnectSharesClients(t *testing.T) {
	connector, _, _ := newConnector(t,
		secret(mrNamespace, credentials("eu-de")),
		secret(otherNamespace, credentials("eu-nl")),
		providerConfig(mrNamespace, "a", configSpec(mrNamespace)),
		providerConfig(mrNamespace, "b", configSpec(mrNamespace)),
		clusterProviderConfig("c", configSpec(otherNamespace)),
	)
	ctx := context.Background()
	for _, name := range []string{"a", "b"} {
		m := newMR(&xpv1.ProviderConfigReference{Kind: "ProviderConfig", Name: name})
		if _, err := connector.Connect(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if n := connector.Clients.Len(); n != 1 {
		t.Fatalf("%d clients for one set of credentials", n)
	}
	if _, err := connector.Connect(ctx, newMR(&xpv1.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "c"})); err != nil {
		t.Fatal(err)
	}
	if n := connector.Clients.Len(); n != 2 {
		t.Fatalf("%d clients for two sets of credentials", n)
	}
}
