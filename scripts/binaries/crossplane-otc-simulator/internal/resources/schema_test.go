package resources

import (
	"fmt"
	"os"
	"reflect"
	"sort"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/crds"
	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

func TestAll(t *testing.T) {
	all := All()
	want := []string{"ClusterV3", "EIPV1", "KeypairV2", "NodePoolV3", "SubnetV1", "VpcV1"}
	var got []string
	for kind, res := range all {
		got = append(got, kind)
		if res.Create == nil || res.Read == nil || res.Delete == nil {
			t.Errorf("%s lacks create, read or delete", kind)
		}
		if len(res.InPlace) > 0 && res.Update == nil {
			t.Errorf("%s changes arguments in place without an update", kind)
		}
		for pattern := range res.InPlace {
			if res.ForceNew[pattern] {
				t.Errorf("%s: %s both forces a new object and changes in place", kind, pattern)
			}
		}
	}
	sort.Strings(got)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("kinds %v, want %v", got, want)
	}
	for _, kind := range []apis.Kind{apis.VpcV1{}, apis.SubnetV1{}, apis.EIPV1{}, apis.KeypairV2{}, apis.ClusterV3{}, apis.NodePoolV3{}} {
		if all[kind.GroupVersionKind().Kind] == nil {
			t.Errorf("no resource for %s", kind.GroupVersionKind().Kind)
		}
	}
	if !all["ClusterV3"].IDWhenSettled || all["NodePoolV3"].IDWhenSettled {
		t.Error("only a cluster records its ID when settled")
	}
	if all["NodePoolV3"].WaitBeforeCreate == nil {
		t.Error("a node pool waits for its cluster")
	}
}

// Every refresh writes only what the provider's CRD declares under
// status.atProvider (the API server would drop anything else without a
// word), with the CRD's types and as JSON values (int64, float64, string,
// bool, []any, map[string]any: what runtime.DeepCopyJSON takes); and
// reports only arguments forProvider has.
func TestRefreshesFitTheCRDs(t *testing.T) {
	definitions, err := crds.Read(os.DirFS("../../crds"))
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*apiextensionsv1.JSONSchemaProps{}
	for _, crd := range definitions {
		schema := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
		schemas[crd.Spec.Names.Kind] = schema
	}
	status := func(kind string) *apiextensionsv1.JSONSchemaProps {
		s := schemas[kind].Properties["status"].Properties["atProvider"]
		return &s
	}
	forProvider := func(kind string) *apiextensionsv1.JSONSchemaProps {
		s := schemas[kind].Properties["spec"].Properties["forProvider"]
		return &s
	}

	cases := []struct {
		kind        string
		res         *terraformed.Resource
		id          string
		forProvider string
		previous    string
		routes      func(f *fakeOTC)
	}{
		{
			kind: "VpcV1", res: vpc, id: "v1",
			forProvider: `{"name":"vpc-a","cidr":"10.0.0.0/16","tags":{"a":"b"}}`,
			routes:      func(f *fakeOTC) { f.on("GET", vpcBase+"/vpcs/v1", 200, vpcAnswer("OK")) },
		},
		{
			kind: "SubnetV1", res: subnet, id: "net-1",
			forProvider: `{"name":"subnet-a","cidr":"10.0.1.0/24","gatewayIp":"10.0.1.1","vpcId":"v1","vpcIdRef":{"name":"net"}}`,
			routes:      func(f *fakeOTC) { f.on("GET", vpcBase+"/subnets/net-1", 200, subnetAnswer("ACTIVE")) },
		},
		{
			kind: "EIPV1", res: eip, id: "e1",
			forProvider: eipForProvider,
			routes:      func(f *fakeOTC) { f.on("GET", vpcBase+"/publicips/e1", 200, eipAnswer("DOWN")) },
		},
		{
			kind: "KeypairV2", res: keypair, id: "ci-key",
			forProvider: `{"name":"ci-key","publicKey":"ssh-ed25519 AAAA ci"}`,
			routes:      func(f *fakeOTC) { f.on("GET", keypairBase+"/ci-key", 200, keypairAnswer) },
		},
		{
			kind: "ClusterV3", res: cluster, id: "c1",
			forProvider: clusterForProvider,
			routes: func(f *fakeOTC) {
				f.on("GET", clusterBase+"/c1", 200, clusterAnswer("Available", internalURL, externalURL))
				f.on("POST", clusterBase+"/c1/clustercert", 200, kubeconfigAnswer(internalURL, externalURL))
			},
		},
		{
			kind: "NodePoolV3", res: nodePool, id: "np1",
			forProvider: poolForProvider,
			routes:      func(f *fakeOTC) { f.on("GET", poolBase+"/np1", 200, poolAnswer("", "eu-de-01", 2)) },
		},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			if schemas[tc.kind] == nil {
				t.Fatalf("no CRD for %s", tc.kind)
			}
			fake, c := newFakeOTC(t)
			tc.routes(fake)
			p := params(t, tc.forProvider)
			if problems := fits("forProvider", map[string]any(p), forProvider(tc.kind)); len(problems) > 0 {
				t.Fatalf("the test's forProvider does not fit the CRD: %v", problems)
			}
			state := read(t, tc.res, c, tc.id, p, nil)
			// The reconciler deep-copies the MR, which holds JSON values only.
			if !reflect.DeepEqual(state.AtProvider.DeepCopy(), state.AtProvider) {
				t.Error("atProvider does not survive a deep copy")
			}
			for _, problem := range fits("atProvider", map[string]any(state.AtProvider), status(tc.kind)) {
				t.Error(problem)
			}
			for _, problem := range fits("reported", map[string]any(state.Reported), forProvider(tc.kind)) {
				t.Error(problem)
			}
		})
	}
}

// fits lists where value does not fit schema.
func fits(path string, value any, schema *apiextensionsv1.JSONSchemaProps) []string {
	if schema == nil {
		return []string{path + ": no schema"}
	}
	var problems []string
	switch v := value.(type) {
	case map[string]any:
		if schema.Type != "object" {
			return []string{fmt.Sprintf("%s: an object where the CRD has %q", path, schema.Type)}
		}
		for key, element := range v {
			switch {
			case schema.Properties != nil:
				property, ok := schema.Properties[key]
				if !ok {
					problems = append(problems, fmt.Sprintf("%s.%s: not in the CRD", path, key))
					continue
				}
				problems = append(problems, fits(path+"."+key, element, &property)...)
			case schema.AdditionalProperties != nil && schema.AdditionalProperties.Schema != nil:
				problems = append(problems, fits(path+"."+key, element, schema.AdditionalProperties.Schema)...)
			case schema.XPreserveUnknownFields != nil && *schema.XPreserveUnknownFields:
			default:
				problems = append(problems, fmt.Sprintf("%s.%s: the CRD's object has no fields", path, key))
			}
		}
	case []any:
		if schema.Type != "array" || schema.Items == nil || schema.Items.Schema == nil {
			return []string{fmt.Sprintf("%s: a list where the CRD has %q", path, schema.Type)}
		}
		for i, element := range v {
			problems = append(problems, fits(fmt.Sprintf("%s[%d]", path, i), element, schema.Items.Schema)...)
		}
	case string:
		if schema.Type != "string" {
			problems = append(problems, fmt.Sprintf("%s: a string where the CRD has %q", path, schema.Type))
		}
	case bool:
		if schema.Type != "boolean" {
			problems = append(problems, fmt.Sprintf("%s: a boolean where the CRD has %q", path, schema.Type))
		}
	case int64, float64:
		if schema.Type != "number" && schema.Type != "integer" {
			problems = append(problems, fmt.Sprintf("%s: a number where the CRD has %q", path, schema.Type))
		}
	case nil:
	default:
		problems = append(problems, fmt.Sprintf("%s: a %T, which JSON does not have", path, value))
	}
	return problems
}
