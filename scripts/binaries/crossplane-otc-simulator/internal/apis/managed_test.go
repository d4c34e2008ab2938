package apis

import (
	"encoding/json"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
	xpv2 "github.com/crossplane/crossplane-runtime/v2/apis/common/v2"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
)

// The types satisfy what crossplane-runtime's reconcilers need of them.
var (
	_ resource.ModernManaged           = &Managed[VpcV1]{}
	_ resource.ProviderConfig          = &ProviderConfig{}
	_ resource.ProviderConfig          = &ClusterProviderConfig{}
	_ resource.ProviderConfigUsage     = &ProviderConfigUsage{}
	_ resource.ProviderConfigUsageList = &ProviderConfigUsageList{}
)

// available is Ready True at a fixed time, so that samples compare equal.
var available = func() xpv1.Condition {
	c := xpv1.Available()
	c.LastTransitionTime = metav1.Unix(1767225600, 0)
	return c
}()

func sample() *Managed[NodePoolV3] {
	return &Managed[NodePoolV3]{
		TypeMeta: metav1.TypeMeta{APIVersion: "cce.opentelekomcloud.m.crossplane.io/v1alpha1", Kind: "NodePoolV3"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "team-a", Name: "pool", UID: "u1", Generation: 2,
			Labels:      map[string]string{"team": "a"},
			Annotations: map[string]string{"crossplane.io/external-name": "np1"},
			Finalizers:  []string{"finalizer.managedresource.crossplane.io"},
		},
		Spec: ManagedSpec{
			ManagedResourceSpec: xpv2.ManagedResourceSpec{
				ProviderConfigReference:          &xpv1.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"},
				WriteConnectionSecretToReference: &xpv1.LocalSecretReference{Name: "conn"},
				ManagementPolicies:               xpv1.ManagementPolicies{xpv1.ManagementActionAll},
			},
			ForProvider: Parameters{
				"name":             "pool",
				"initialNodeCount": int64(2),
				"rootVolume":       []any{map[string]any{"size": int64(40), "volumetype": "SSD"}},
				"k8sTags":          map[string]any{"a": "b"},
			},
			InitProvider: Parameters{"dataVolumes": []any{map[string]any{"size": int64(100)}}},
		},
		Status: ManagedStatus{
			ResourceStatus: xpv1.ResourceStatus{ConditionedStatus: xpv1.ConditionedStatus{Conditions: []xpv1.Condition{available}}},
			AtProvider:     Parameters{"id": "np1", "rootVolume": []any{map[string]any{"size": int64(40)}}},
		},
	}
}

func TestDeepCopyIsDeep(t *testing.T) {
	original := sample()
	want := sample()
	cp := original.DeepCopyObject().(*Managed[NodePoolV3])
	if !reflect.DeepEqual(cp, original) {
		t.Fatalf("the copy differs:\n%+v\n%+v", cp, original)
	}

	cp.Spec.ForProvider["name"] = "changed"
	cp.Spec.ForProvider["rootVolume"].([]any)[0].(map[string]any)["size"] = int64(99)
	cp.Spec.ForProvider["rootVolume"] = append(cp.Spec.ForProvider["rootVolume"].([]any), "more")
	cp.Spec.ForProvider["k8sTags"].(map[string]any)["a"] = "changed"
	cp.Spec.InitProvider["dataVolumes"].([]any)[0].(map[string]any)["size"] = int64(1)
	cp.Status.AtProvider["rootVolume"].([]any)[0].(map[string]any)["size"] = int64(1)
	cp.Status.AtProvider["id"] = "other"
	cp.Labels["team"] = "b"
	cp.Annotations["crossplane.io/external-name"] = "other"
	cp.Finalizers[0] = "other"
	cp.Spec.ProviderConfigReference.Name = "other"
	cp.Spec.WriteConnectionSecretToReference.Name = "other"
	cp.Spec.ManagementPolicies[0] = xpv1.ManagementActionObserve
	cp.Status.Conditions[0].Reason = "Other"

	if !reflect.DeepEqual(original, want) {
		t.Fatalf("changing the copy changed the original:\n%+v", original)
	}
}

func TestDeepCopyOfNils(t *testing.T) {
	var nilMR *Managed[VpcV1]
	if nilMR.DeepCopy() != nil {
		t.Fatal("DeepCopy of nil is not nil")
	}
	var nilParams Parameters
	if nilParams.DeepCopy() != nil {
		t.Fatal("DeepCopy of nil Parameters is not nil")
	}
	empty := &Managed[VpcV1]{}
	if cp := empty.DeepCopy(); cp.Spec.ForProvider != nil || cp.Status.AtProvider != nil {
		t.Fatalf("nil blocks became %+v", cp)
	}
	var nilList *ManagedList[VpcV1]
	if nilList.DeepCopyObject() != nil {
		t.Fatal("DeepCopyObject of a nil list is not nil")
	}
}

func TestListDeepCopy(t *testing.T) {
	list := &ManagedList[NodePoolV3]{
		ListMeta: metav1.ListMeta{ResourceVersion: "7"},
		Items:    []Managed[NodePoolV3]{*sample(), *sample()},
	}
	cp := list.DeepCopyObject().(*ManagedList[NodePoolV3])
	if !reflect.DeepEqual(cp, list) {
		t.Fatal("the list copy differs")
	}
	cp.Items[1].Spec.ForProvider["rootVolume"].([]any)[0].(map[string]any)["size"] = int64(1)
	if list.Items[1].Spec.ForProvider["rootVolume"].([]any)[0].(map[string]any)["size"] != int64(40) {
		t.Fatal("changing the list copy changed the original")
	}
	if empty := (&ManagedList[VpcV1]{}).DeepCopyObject().(*ManagedList[VpcV1]); empty.Items != nil {
		t.Fatal("an empty list's copy has items")
	}
}

func TestProviderConfigDeepCopies(t *testing.T) {
	pc := &ProviderConfig{configObject{
		ObjectMeta: metav1.ObjectMeta{Name: "default", Labels: map[string]string{"a": "b"}},
		Spec: ProviderConfigSpec{Credentials: ProviderCredentials{
			Source: xpv1.CredentialsSourceSecret,
			CommonCredentialSelectors: xpv1.CommonCredentialSelectors{
				SecretRef: &xpv1.SecretKeySelector{SecretReference: xpv1.SecretReference{Name: "creds", Namespace: "team-a"}, Key: "credentials"},
			},
		}},
	}}
	cp := pc.DeepCopyObject().(*ProviderConfig)
	cp.Spec.Credentials.SecretRef.Name = "other"
	cp.Labels["a"] = "c"
	if pc.Spec.Credentials.SecretRef.Name != "creds" || pc.Labels["a"] != "b" {
		t.Fatal("the ProviderConfig copy shares data")
	}
	cpc := &ClusterProviderConfig{pc.configObject}
	ccp := cpc.DeepCopyObject().(*ClusterProviderConfig)
	ccp.Spec.Credentials.SecretRef.Key = "other"
	if cpc.Spec.Credentials.SecretRef.Key != "credentials" {
		t.Fatal("the ClusterProviderConfig copy shares data")
	}
	pc.SetUsers(3)
	if pc.GetUsers() != 3 {
		t.Fatal("users")
	}
	pc.SetConditions(xpv1.Available())
	if pc.GetCondition(xpv1.TypeReady).Status != corev1.ConditionTrue {
		t.Fatal("conditions")
	}

	usage := &ProviderConfigUsage{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"l": "1"}}}
	usage.SetProviderConfigReference(xpv1.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"})
	usage.SetResourceReference(xpv1.TypedReference{Kind: "VpcV1", Name: "net"})
	uc := usage.DeepCopyObject().(*ProviderConfigUsage)
	uc.Labels["l"] = "2"
	if usage.Labels["l"] != "1" || uc.GetProviderConfigReference().Name != "default" || uc.GetResourceReference().Name != "net" {
		t.Fatal("the usage copy")
	}
	list := &ProviderConfigUsageList{Items: []ProviderConfigUsage{*usage, *usage}}
	items := list.GetItems()
	if len(items) != 2 || items[1].GetResourceReference().Name != "net" {
		t.Fatalf("GetItems %+v", items)
	}
	if lc := list.DeepCopyObject().(*ProviderConfigUsageList); len(lc.Items) != 2 {
		t.Fatal("usage list copy")
	}
	if lc := (&ProviderConfigList{Items: []ProviderConfig{*pc}}).DeepCopyObject().(*ProviderConfigList); len(lc.Items) != 1 || lc.Items[0].Name != "default" {
		t.Fatal("ProviderConfig list copy")
	}
	if lc := (&ClusterProviderConfigList{Items: []ClusterProviderConfig{*cpc}}).DeepCopyObject().(*ClusterProviderConfigList); len(lc.Items) != 1 {
		t.Fatal("ClusterProviderConfig list copy")
	}
}

func TestCreateParameters(t *testing.T) {
	cases := []struct {
		name              string
		forProvider, init Parameters
		want              Parameters
	}{
		{
			name:        "initProvider fills what forProvider leaves out",
			forProvider: Parameters{"name": "a"},
			init:        Parameters{"description": "d", "tags": map[string]any{"x": "y"}},
			want:        Parameters{"name": "a", "description": "d", "tags": map[string]any{"x": "y"}},
		},
		{
			name:        "forProvider wins, whole fields",
			forProvider: Parameters{"name": "a", "tags": map[string]any{"x": "1"}},
			init:        Parameters{"name": "b", "tags": map[string]any{"z": "2"}},
			want:        Parameters{"name": "a", "tags": map[string]any{"x": "1"}},
		},
		{
			name:        "no initProvider",
			forProvider: Parameters{"name": "a"},
			want:        Parameters{"name": "a"},
		},
		{
			name: "nothing",
			want: Parameters{},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := &Managed[VpcV1]{Spec: ManagedSpec{ForProvider: tc.forProvider, InitProvider: tc.init}}
			got := m.CreateParameters()
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			// The merge is a copy: changing it leaves the spec alone.
			for _, value := range got {
				if tags, ok := value.(map[string]any); ok {
					tags["mutated"] = "yes"
				}
			}
			got["name"] = "mutated"
			for _, block := range []Parameters{m.Spec.ForProvider, m.Spec.InitProvider} {
				if block["name"] == "mutated" {
					t.Fatal("CreateParameters shares the spec's fields")
				}
				if tags, ok := block["tags"].(map[string]any); ok && tags["mutated"] != nil {
					t.Fatal("CreateParameters shares the spec's nested maps")
				}
			}
		})
	}
}

func TestManagedAccessors(t *testing.T) {
	m := &Managed[EIPV1]{}
	m.SetConditions(xpv1.Available())
	if m.GetCondition(xpv1.TypeReady).Reason != xpv1.ReasonAvailable {
		t.Fatal("conditions")
	}
	m.SetObservedGeneration(4)
	if m.GetObservedGeneration() != 4 {
		t.Fatal("observed generation")
	}
	m.SetManagementPolicies(xpv1.ManagementPolicies{xpv1.ManagementActionObserve})
	if len(m.GetManagementPolicies()) != 1 {
		t.Fatal("management policies")
	}
	m.SetProviderConfigReference(&xpv1.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "c"})
	if m.GetProviderConfigReference().Name != "c" {
		t.Fatal("provider config reference")
	}
	m.SetWriteConnectionSecretToReference(&xpv1.LocalSecretReference{Name: "s"})
	if m.GetWriteConnectionSecretToReference().Name != "s" {
		t.Fatal("connection secret reference")
	}
}

func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSchemeKinds(t *testing.T) {
	s := newScheme(t)
	cases := []struct {
		object runtime.Object
		want   schema.GroupVersionKind
	}{
		{&Managed[VpcV1]{}, schema.GroupVersionKind{Group: "vpc.opentelekomcloud.m.crossplane.io", Version: "v1alpha1", Kind: "VpcV1"}},
		{&ManagedList[VpcV1]{}, schema.GroupVersionKind{Group: "vpc.opentelekomcloud.m.crossplane.io", Version: "v1alpha1", Kind: "VpcV1List"}},
		{&Managed[SubnetV1]{}, schema.GroupVersionKind{Group: "vpc.opentelekomcloud.m.crossplane.io", Version: "v1alpha1", Kind: "SubnetV1"}},
		{&ManagedList[SubnetV1]{}, schema.GroupVersionKind{Group: "vpc.opentelekomcloud.m.crossplane.io", Version: "v1alpha1", Kind: "SubnetV1List"}},
		{&Managed[EIPV1]{}, schema.GroupVersionKind{Group: "vpc.opentelekomcloud.m.crossplane.io", Version: "v1alpha1", Kind: "EIPV1"}},
		{&ManagedList[EIPV1]{}, schema.GroupVersionKind{Group: "vpc.opentelekomcloud.m.crossplane.io", Version: "v1alpha1", Kind: "EIPV1List"}},
		{&Managed[KeypairV2]{}, schema.GroupVersionKind{Group: "compute.opentelekomcloud.m.crossplane.io", Version: "v1alpha1", Kind: "KeypairV2"}},
		{&ManagedList[KeypairV2]{}, schema.GroupVersionKind{Group: "compute.opentelekomcloud.m.crossplane.io", Version: "v1alpha1", Kind: "KeypairV2List"}},
		{&Managed[ClusterV3]{}, schema.GroupVersionKind{Group: "cce.opentelekomcloud.m.crossplane.io", Version: "v1alpha1", Kind: "ClusterV3"}},
		{&ManagedList[ClusterV3]{}, schema.GroupVersionKind{Group: "cce.opentelekomcloud.m.crossplane.io", Version: "v1alpha1", Kind: "ClusterV3List"}},
		{&Managed[NodePoolV3]{}, schema.GroupVersionKind{Group: "cce.opentelekomcloud.m.crossplane.io", Version: "v1alpha1", Kind: "NodePoolV3"}},
		{&ManagedList[NodePoolV3]{}, schema.GroupVersionKind{Group: "cce.opentelekomcloud.m.crossplane.io", Version: "v1alpha1", Kind: "NodePoolV3List"}},
		{&ProviderConfig{}, ProviderGroupVersion.WithKind("ProviderConfig")},
		{&ProviderConfigList{}, ProviderGroupVersion.WithKind("ProviderConfigList")},
		{&ClusterProviderConfig{}, ProviderGroupVersion.WithKind("ClusterProviderConfig")},
		{&ClusterProviderConfigList{}, ProviderGroupVersion.WithKind("ClusterProviderConfigList")},
		{&ProviderConfigUsage{}, ProviderGroupVersion.WithKind("ProviderConfigUsage")},
		{&ProviderConfigUsageList{}, ProviderGroupVersion.WithKind("ProviderConfigUsageList")},
	}
	for _, tc := range cases {
		gvks, _, err := s.ObjectKinds(tc.object)
		if err != nil {
			t.Errorf("%T: %v", tc.object, err)
			continue
		}
		if len(gvks) != 1 || gvks[0] != tc.want {
			t.Errorf("%T is %v, want %v", tc.object, gvks, tc.want)
		}
		created, err := s.New(tc.want)
		if err != nil || reflect.TypeOf(created) != reflect.TypeOf(tc.object) {
			t.Errorf("New(%v) = %T, %v; want %T", tc.want, created, err, tc.object)
		}
	}
	if got := ProviderGroupVersion.String(); got != "opentelekomcloud.m.crossplane.io/v1beta1" {
		t.Errorf("provider group version %s", got)
	}
}

func TestKinds(t *testing.T) {
	for _, tc := range []struct {
		kind   Kind
		gvk    schema.GroupVersionKind
		plural string
	}{
		{VpcV1{}, GVK[VpcV1](), "vpcv1s"},
		{SubnetV1{}, GVK[SubnetV1](), "subnetv1s"},
		{EIPV1{}, GVK[EIPV1](), "eipv1s"},
		{KeypairV2{}, GVK[KeypairV2](), "keypairv2s"},
		{ClusterV3{}, GVK[ClusterV3](), "clusterv3s"},
		{NodePoolV3{}, GVK[NodePoolV3](), "nodepoolv3s"},
	} {
		if tc.kind.GroupVersionKind() != tc.gvk || tc.kind.Plural() != tc.plural {
			t.Errorf("%T: %v %s", tc.kind, tc.kind.GroupVersionKind(), tc.kind.Plural())
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	original := sample()
	data, err := json.Marshal(original)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	spec := raw["spec"].(map[string]any)
	if _, ok := spec["forProvider"]; !ok {
		t.Fatalf("no spec.forProvider in %s", data)
	}
	if _, ok := spec["providerConfigRef"]; !ok {
		t.Fatalf("spec.providerConfigRef not inline in %s", data)
	}
	status := raw["status"].(map[string]any)
	if _, ok := status["atProvider"]; !ok {
		t.Fatalf("no status.atProvider in %s", data)
	}
	if _, ok := status["conditions"]; !ok {
		t.Fatalf("status.conditions not inline in %s", data)
	}

	decoded := &Managed[NodePoolV3]{}
	if err := json.Unmarshal(data, decoded); err != nil {
		t.Fatal(err)
	}
	// encoding/json gives numbers as float64; compare through JSON.
	again, err := json.Marshal(decoded)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(data) {
		t.Fatalf("round trip changed the object:\n%s\n%s", data, again)
	}
	if decoded.Spec.ForProvider["rootVolume"].([]any)[0].(map[string]any)["volumetype"] != "SSD" ||
		decoded.Status.AtProvider["id"] != "np1" || decoded.Spec.InitProvider["dataVolumes"] == nil {
		t.Fatalf("decoded %+v", decoded)
	}
	if decoded.Spec.ProviderConfigReference.Kind != "ProviderConfig" || decoded.GetCondition(xpv1.TypeReady).Status != corev1.ConditionTrue {
		t.Fatalf("decoded %+v", decoded)
	}
}

// Through the scheme's codecs, as a client reads it from the API server.
func TestDecodeThroughTheScheme(t *testing.T) {
	s := newScheme(t)
	codecs := serializer.NewCodecFactory(s)
	data := []byte(`{"apiVersion":"vpc.opentelekomcloud.m.crossplane.io/v1alpha1","kind":"EIPV1",
		"metadata":{"name":"ip","namespace":"team-a"},
		"spec":{"forProvider":{"bandwidth":[{"name":"bw","size":10}]},"providerConfigRef":{"kind":"ProviderConfig","name":"default"}},
		"status":{"atProvider":{"id":"e1","publicip":[{"ipAddress":"80.158.0.2"}]}}}`)
	obj, gvk, err := codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	eip, ok := obj.(*Managed[EIPV1])
	if !ok || gvk.Kind != "EIPV1" {
		t.Fatalf("decoded %T %v", obj, gvk)
	}
	if eip.Status.AtProvider["publicip"].([]any)[0].(map[string]any)["ipAddress"] != "80.158.0.2" {
		t.Fatalf("atProvider %v", eip.Status.AtProvider)
	}
	if eip.Spec.ForProvider["bandwidth"].([]any)[0].(map[string]any)["name"] != "bw" {
		t.Fatalf("forProvider %v", eip.Spec.ForProvider)
	}
}
