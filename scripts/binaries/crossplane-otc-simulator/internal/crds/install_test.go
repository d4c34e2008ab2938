package crds

import (
	"context"
	"errors"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
)

const providerGroup = "opentelekomcloud.m.crossplane.io"

var moduleCRDs = sync.OnceValues(func() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	return Read(os.DirFS("../../crds"))
})

// readModuleCRDs are the module's CRDs by kind, read once per test binary
// (callers must not change them).
func readModuleCRDs(t *testing.T) map[string]*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	list, err := moduleCRDs()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 9 {
		t.Fatalf("%d CRDs, want 9", len(list))
	}
	byKind := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, crd := range list {
		byKind[crd.Spec.Names.Kind] = crd
	}
	return byKind
}

func TestReadTheModulesCRDs(t *testing.T) {
	list, err := moduleCRDs()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 9 {
		t.Fatalf("%d CRDs, want 9", len(list))
	}
	var names []string
	for _, crd := range list {
		names = append(names, crd.Name)
		if crd.Kind != "CustomResourceDefinition" || crd.APIVersion != "apiextensions.k8s.io/v1" {
			t.Errorf("%s has type %s %s", crd.Name, crd.APIVersion, crd.Kind)
		}
		group := crd.Spec.Group
		if group != providerGroup && !strings.HasSuffix(group, "."+providerGroup) {
			t.Errorf("%s: group %q is not the provider's", crd.Name, group)
		}
		if crd.Name != crd.Spec.Names.Plural+"."+group {
			t.Errorf("%s is not named <plural>.<group>", crd.Name)
		}
		if len(crd.Spec.Versions) != 1 || !crd.Spec.Versions[0].Served || !crd.Spec.Versions[0].Storage {
			t.Errorf("%s: want one served storage version", crd.Name)
			continue
		}
		if crd.Spec.Versions[0].Schema == nil || crd.Spec.Versions[0].Schema.OpenAPIV3Schema == nil {
			t.Errorf("%s has no schema", crd.Name)
		}
	}
	// Read answers in file name order.
	files, _ := os.ReadDir("../../crds")
	var fileNames []string
	for _, f := range files {
		if strings.HasSuffix(f.Name(), ".yaml") {
			fileNames = append(fileNames, f.Name())
		}
	}
	sort.Strings(fileNames)
	for i, name := range fileNames {
		// Files are named <group>_<plural>.yaml.
		group, plural, _ := strings.Cut(strings.TrimSuffix(name, ".yaml"), "_")
		if list[i].Name != plural+"."+group {
			t.Errorf("CRD %d is %s, from file %s", i, list[i].Name, name)
		}
	}
}

// The managed resource CRDs are what the scheme registers.
func TestCRDsMatchTheKinds(t *testing.T) {
	byKind := readModuleCRDs(t)
	for _, kind := range []apis.Kind{apis.VpcV1{}, apis.SubnetV1{}, apis.EIPV1{}, apis.KeypairV2{}, apis.ClusterV3{}, apis.NodePoolV3{}} {
		gvk := kind.GroupVersionKind()
		crd := byKind[gvk.Kind]
		if crd == nil {
			t.Errorf("no CRD for %s", gvk.Kind)
			continue
		}
		if crd.Spec.Group != gvk.Group || crd.Spec.Versions[0].Name != gvk.Version || crd.Spec.Names.Plural != kind.Plural() ||
			crd.Spec.Names.ListKind != gvk.Kind+"List" || crd.Spec.Scope != apiextensionsv1.NamespaceScoped {
			t.Errorf("%s: CRD %s/%s %s %s %s does not match %v %s", gvk.Kind, crd.Spec.Group, crd.Spec.Versions[0].Name,
				crd.Spec.Names.Plural, crd.Spec.Names.ListKind, crd.Spec.Scope, gvk, kind.Plural())
		}
		if crd.Spec.Versions[0].Subresources == nil || crd.Spec.Versions[0].Subresources.Status == nil {
			t.Errorf("%s has no status subresource", gvk.Kind)
		}
		at := atProvider(t, crd)
		if _, ok := at.Properties["id"]; !ok {
			t.Errorf("%s atProvider has no id", gvk.Kind)
		}
	}
	for kind, scope := range map[string]apiextensionsv1.ResourceScope{
		apis.ProviderConfigKind:        apiextensionsv1.NamespaceScoped,
		apis.ClusterProviderConfigKind: apiextensionsv1.ClusterScoped,
		apis.ProviderConfigUsageKind:   apiextensionsv1.NamespaceScoped,
	} {
		crd := byKind[kind]
		if crd == nil {
			t.Errorf("no CRD for %s", kind)
			continue
		}
		if crd.Spec.Group != apis.ProviderGroupVersion.Group || crd.Spec.Versions[0].Name != apis.ProviderGroupVersion.Version || crd.Spec.Scope != scope {
			t.Errorf("%s: %s/%s %s", kind, crd.Spec.Group, crd.Spec.Versions[0].Name, crd.Spec.Scope)
		}
	}
}

func atProvider(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	status, ok := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["status"]
	if !ok {
		t.Fatalf("%s has no status", crd.Name)
	}
	at, ok := status.Properties["atProvider"]
	if !ok {
		t.Fatalf("%s has no status.atProvider", crd.Name)
	}
	return at
}

// propertyPaths lists every property of schema, at any depth.
func propertyPaths(path string, schema *apiextensionsv1.JSONSchemaProps) []string {
	if schema == nil {
		return nil
	}
	var out []string
	for name, property := range schema.Properties {
		out = append(out, path+"."+name)
		out = append(out, propertyPaths(path+"."+name, &property)...)
	}
	if schema.Items != nil {
		out = append(out, propertyPaths(path+"[]", schema.Items.Schema)...)
	}
	if schema.AdditionalProperties != nil {
		out = append(out, propertyPaths(path+"{}", schema.AdditionalProperties.Schema)...)
	}
	return out
}

func TestNodePoolHasNoRegion(t *testing.T) {
	crd := readModuleCRDs(t)["NodePoolV3"]
	paths := propertyPaths("", crd.Spec.Versions[0].Schema.OpenAPIV3Schema)
	if len(paths) < 50 {
		t.Fatalf("only %d properties: the walk is broken", len(paths))
	}
	for _, path := range paths {
		if strings.HasSuffix(path, ".region") {
			t.Errorf("NodePoolV3 has %s: a node pool lives where its cluster does", path)
		}
	}
	// Its siblings do have one.
	byKind := readModuleCRDs(t)
	for _, kind := range []string{"VpcV1", "SubnetV1", "EIPV1", "KeypairV2", "ClusterV3"} {
		if _, ok := atProvider(t, byKind[kind]).Properties["region"]; !ok {
			t.Errorf("%s atProvider has no region", kind)
		}
	}
}

func TestEIPAddressIsInPublicIPOnly(t *testing.T) {
	at := atProvider(t, readModuleCRDs(t)["EIPV1"])
	for _, key := range []string{"address", "status"} {
		if _, ok := at.Properties[key]; ok {
			t.Errorf("EIPV1 atProvider has %s", key)
		}
	}
	publicip, ok := at.Properties["publicip"]
	if !ok || publicip.Type != "array" || publicip.Items == nil || publicip.Items.Schema == nil {
		t.Fatalf("EIPV1 atProvider.publicip is not a list: %+v", publicip)
	}
	if address, ok := publicip.Items.Schema.Properties["ipAddress"]; !ok || address.Type != "string" {
		t.Fatal("EIPV1 atProvider.publicip[].ipAddress is not a string")
	}
}

func TestSubnetAtProvider(t *testing.T) {
	at := atProvider(t, readModuleCRDs(t)["SubnetV1"])
	for _, key := range []string{"cidrIpv6", "gatewayIpv6", "networkId", "subnetId", "subnetIdV6", "status", "id"} {
		if property, ok := at.Properties[key]; !ok || property.Type != "string" {
			t.Errorf("SubnetV1 atProvider.%s: %+v, want a string", key, property)
		}
	}
}

func TestReadErrors(t *testing.T) {
	valid := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.org
spec:
  group: example.org
  scope: Namespaced
  names: {kind: Thing, plural: things}
  versions: [{name: v1, served: true, storage: true}]
`
	cases := []struct {
		name    string
		files   fstest.MapFS
		want    []string
		wantErr string
	}{
		{
			name: "yaml files only, in name order",
			files: fstest.MapFS{
				"b.yaml":    {Data: []byte(strings.ReplaceAll(valid, "things", "bees"))},
				"a.yaml":    {Data: []byte(valid)},
				"README.md": {Data: []byte("# not a CRD")},
				"c.yml":     {Data: []byte("not: read")},
			},
			want: []string{"things.example.org", "bees.example.org"},
		},
		{
			name:  "empty",
			files: fstest.MapFS{},
			want:  []string{},
		},
		{
			name:    "an unknown field",
			files:   fstest.MapFS{"bad.yaml": {Data: []byte(valid + "  colour: blue\n")}},
			wantErr: "bad.yaml:",
		},
		{
			name:    "not YAML",
			files:   fstest.MapFS{"broken.yaml": {Data: []byte("spec: [unclosed")}},
			wantErr: "broken.yaml:",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			list, err := Read(tc.files)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one starting %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			names := []string{}
			for _, crd := range list {
				names = append(names, crd.Name)
			}
			if !reflect.DeepEqual(names, tc.want) {
				t.Fatalf("read %v, want %v", names, tc.want)
			}
		})
	}
}

// fakeAPIServer stands in for server-side apply, which controller-runtime's
// fake client does not do: an applied CRD is stored, Established once
// establish says so.
type fakeAPIServer struct {
	mu        sync.Mutex
	applied   []string
	owners    []string
	applyErr  error
	establish func(name string) bool
}

func (s *fakeAPIServer) client(t *testing.T) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			if patch.Type() != types.ApplyPatchType {
				t.Errorf("patch type %s, want server-side apply", patch.Type())
			}
			po := &client.PatchOptions{}
			po.ApplyOptions(opts)
			s.mu.Lock()
			s.applied = append(s.applied, obj.GetName())
			s.owners = append(s.owners, po.FieldManager)
			force := po.Force != nil && *po.Force
			err := s.applyErr
			s.mu.Unlock()
			if !force {
				t.Error("apply without force")
			}
			if err != nil {
				return err
			}
			crd := obj.(*apiextensionsv1.CustomResourceDefinition).DeepCopy()
			crd.ResourceVersion = ""
			return c.Create(ctx, crd)
		},
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := c.Get(ctx, key, obj, opts...); err != nil {
				return err
			}
			if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok && s.establish(key.Name) {
				crd.Status.Conditions = append(crd.Status.Conditions, apiextensionsv1.CustomResourceDefinitionCondition{
					Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue,
				})
			}
			return nil
		},
	}).Build()
}

func TestInstall(t *testing.T) {
	list, err := Read(os.DirFS("../../crds"))
	if err != nil {
		t.Fatal(err)
	}
	var gets sync.Map
	server := &fakeAPIServer{establish: func(name string) bool {
		// Established on the second look: Install waits.
		n, _ := gets.LoadOrStore(name, new(int))
		*n.(*int)++
		return *n.(*int) > 1
	}}
	kube := server.client(t)
	if err := Install(context.Background(), kube, list); err != nil {
		t.Fatal(err)
	}
	if len(server.applied) != 9 {
		t.Fatalf("applied %v", server.applied)
	}
	for i, crd := range list {
		if server.applied[i] != crd.Name || server.owners[i] != FieldManager {
			t.Errorf("apply %d: %s by %q", i, server.applied[i], server.owners[i])
		}
		stored := &apiextensionsv1.CustomResourceDefinition{}
		if err := kube.Get(context.Background(), client.ObjectKey{Name: crd.Name}, stored); err != nil {
			t.Errorf("%s not stored: %v", crd.Name, err)
		}
	}
	// Install applies copies: what it was given is unchanged.
	again, _ := Read(os.DirFS("../../crds"))
	if !reflect.DeepEqual(again, list) {
		t.Fatal("Install changed the CRDs it was given")
	}
}

func TestInstallFailures(t *testing.T) {
	list, err := Read(os.DirFS("../../crds"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("apply refused", func(t *testing.T) {
		server := &fakeAPIServer{applyErr: errors.New("forbidden"), establish: func(string) bool { return true }}
		err := Install(context.Background(), server.client(t), list)
		if err == nil || err.Error() != "cannot apply CRD "+list[0].Name+": forbidden" {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("never established", func(t *testing.T) {
		server := &fakeAPIServer{establish: func(string) bool { return false }}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		err := Install(ctx, server.client(t), list)
		if err == nil || !strings.HasPrefix(err.Error(), "CRD "+list[0].Name+" is not established") {
			t.Fatalf("error %v", err)
		}
	})
}
