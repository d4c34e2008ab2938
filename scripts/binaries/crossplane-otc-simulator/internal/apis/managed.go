// Package apis holds the Go types of the provider's namespaced managed
// resources and provider configs, shaped so that crossplane-runtime's own
// reconcilers can work on them.
//
// The real provider generates one Go struct per kind with typed parameters.
// The simulator keeps forProvider, initProvider and atProvider as JSON
// values instead: the CRDs (crds/) say which fields exist, the API server
// enforces them, and the external clients read the few fields they act on.
// One generic type, instantiated per kind, is enough for the scheme to tell
// the kinds apart.
package apis

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
	xpv2 "github.com/crossplane/crossplane-runtime/v2/apis/common/v2"
)

// Kind tags one managed resource kind.
type Kind interface {
	GroupVersionKind() schema.GroupVersionKind
	// Plural is the CRD's resource name.
	Plural() string
}

// Parameters is a forProvider, initProvider or atProvider block as JSON
// decodes it: maps, slices, strings, float64, bool and nil.
type Parameters map[string]any

// DeepCopy copies every level.
func (p Parameters) DeepCopy() Parameters {
	if p == nil {
		return nil
	}
	return runtime.DeepCopyJSON(p)
}

// ManagedSpec is the spec every namespaced MR of the provider shares.
type ManagedSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              Parameters `json:"forProvider"`
	InitProvider             Parameters `json:"initProvider,omitempty"`
}

// ManagedStatus is the status every MR of the provider shares.
type ManagedStatus struct {
	xpv1.ResourceStatus `json:",inline"`
	AtProvider          Parameters `json:"atProvider,omitempty"`
}

// Managed is one managed resource of kind K.
type Managed[K Kind] struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ManagedSpec   `json:"spec"`
	Status ManagedStatus `json:"status,omitempty"`
}

// ManagedList is a list of K.
type ManagedList[K Kind] struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Managed[K] `json:"items"`
}

// DeepCopyInto copies m into out.
func (m *Managed[K]) DeepCopyInto(out *Managed[K]) {
	*out = *m
	out.TypeMeta = m.TypeMeta
	m.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	m.Spec.ManagedResourceSpec.DeepCopyInto(&out.Spec.ManagedResourceSpec)
	out.Spec.ForProvider = m.Spec.ForProvider.DeepCopy()
	out.Spec.InitProvider = m.Spec.InitProvider.DeepCopy()
	m.Status.ResourceStatus.DeepCopyInto(&out.Status.ResourceStatus)
	out.Status.AtProvider = m.Status.AtProvider.DeepCopy()
}

// DeepCopy copies m.
func (m *Managed[K]) DeepCopy() *Managed[K] {
	if m == nil {
		return nil
	}
	out := new(Managed[K])
	m.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (m *Managed[K]) DeepCopyObject() runtime.Object { return m.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *ManagedList[K]) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := &ManagedList[K]{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Managed[K], len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// GetCondition of this MR.
func (m *Managed[K]) GetCondition(ct xpv1.ConditionType) xpv1.Condition {
	return m.Status.GetCondition(ct)
}

// SetConditions of this MR.
func (m *Managed[K]) SetConditions(c ...xpv1.Condition) { m.Status.SetConditions(c...) }

// GetObservedGeneration of this MR's status.
func (m *Managed[K]) GetObservedGeneration() int64 { return m.Status.ObservedGeneration }

// SetObservedGeneration of this MR's status.
func (m *Managed[K]) SetObservedGeneration(g int64) { m.Status.ObservedGeneration = g }

// GetManagementPolicies of this MR.
func (m *Managed[K]) GetManagementPolicies() xpv1.ManagementPolicies {
	return m.Spec.ManagementPolicies
}

// SetManagementPolicies of this MR.
func (m *Managed[K]) SetManagementPolicies(p xpv1.ManagementPolicies) {
	m.Spec.ManagementPolicies = p
}

// GetProviderConfigReference of this MR.
func (m *Managed[K]) GetProviderConfigReference() *xpv1.ProviderConfigReference {
	return m.Spec.ProviderConfigReference
}

// SetProviderConfigReference of this MR.
func (m *Managed[K]) SetProviderConfigReference(r *xpv1.ProviderConfigReference) {
	m.Spec.ProviderConfigReference = r
}

// GetWriteConnectionSecretToReference of this MR.
func (m *Managed[K]) GetWriteConnectionSecretToReference() *xpv1.LocalSecretReference {
	return m.Spec.WriteConnectionSecretToReference
}

// SetWriteConnectionSecretToReference of this MR.
func (m *Managed[K]) SetWriteConnectionSecretToReference(r *xpv1.LocalSecretReference) {
	m.Spec.WriteConnectionSecretToReference = r
}

// CreateParameters are forProvider with initProvider's fields filled in
// where forProvider leaves them out: what upjet creates with (it merges
// initProvider into the create, and ignores its fields afterwards).
func (m *Managed[K]) CreateParameters() Parameters {
	merged := Parameters{}
	for key, value := range m.Spec.InitProvider.DeepCopy() {
		merged[key] = value
	}
	for key, value := range m.Spec.ForProvider.DeepCopy() {
		merged[key] = value
	}
	return merged
}
