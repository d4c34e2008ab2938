package apis

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
	xpv2 "github.com/crossplane/crossplane-runtime/v2/apis/common/v2"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
)

// ProviderGroupVersion is where the provider's configuration kinds live.
var ProviderGroupVersion = schema.GroupVersion{Group: "opentelekomcloud.m.crossplane.io", Version: "v1beta1"}

// The configuration kinds, as the managed resources' providerConfigRef.kind names them.
const (
	ProviderConfigKind        = "ProviderConfig"
	ClusterProviderConfigKind = "ClusterProviderConfig"
	ProviderConfigUsageKind   = "ProviderConfigUsage"
)

// ProviderCredentials say where the credentials Secret value comes from.
type ProviderCredentials struct {
	Source                         xpv1.CredentialsSource `json:"source"`
	xpv1.CommonCredentialSelectors `json:",inline"`
}

// ProviderConfigSpec is shared by ProviderConfig and ClusterProviderConfig.
type ProviderConfigSpec struct {
	Credentials ProviderCredentials `json:"credentials"`
}

// configObject is what ProviderConfig and ClusterProviderConfig have in common.
type configObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ProviderConfigSpec        `json:"spec"`
	Status xpv1.ProviderConfigStatus `json:"status,omitempty"`
}

func (c *configObject) deepCopyInto(out *configObject) {
	*out = *c
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	c.Spec.Credentials.CommonCredentialSelectors.DeepCopyInto(&out.Spec.Credentials.CommonCredentialSelectors)
	c.Status.DeepCopyInto(&out.Status)
}

// GetCondition of this provider config.
func (c *configObject) GetCondition(ct xpv1.ConditionType) xpv1.Condition {
	return c.Status.GetCondition(ct)
}

// SetConditions of this provider config.
func (c *configObject) SetConditions(cd ...xpv1.Condition) { c.Status.SetConditions(cd...) }

// GetUsers counts the MRs that use this provider config.
func (c *configObject) GetUsers() int64 { return c.Status.Users }

// SetUsers counts the MRs that use this provider config.
func (c *configObject) SetUsers(i int64) { c.Status.Users = i }

// ProviderConfig configures MRs in its own namespace.
type ProviderConfig struct{ configObject }

// DeepCopyObject implements runtime.Object.
func (c *ProviderConfig) DeepCopyObject() runtime.Object {
	out := &ProviderConfig{}
	c.deepCopyInto(&out.configObject)
	return out
}

// ClusterProviderConfig configures MRs in every namespace.
type ClusterProviderConfig struct{ configObject }

// DeepCopyObject implements runtime.Object.
func (c *ClusterProviderConfig) DeepCopyObject() runtime.Object {
	out := &ClusterProviderConfig{}
	c.deepCopyInto(&out.configObject)
	return out
}

// ProviderConfigList lists ProviderConfigs.
type ProviderConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProviderConfig `json:"items"`
}

// DeepCopyObject implements runtime.Object.
func (l *ProviderConfigList) DeepCopyObject() runtime.Object {
	out := &ProviderConfigList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range l.Items {
		out.Items = append(out.Items, *l.Items[i].DeepCopyObject().(*ProviderConfig))
	}
	return out
}

// ClusterProviderConfigList lists ClusterProviderConfigs.
type ClusterProviderConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterProviderConfig `json:"items"`
}

// DeepCopyObject implements runtime.Object.
func (l *ClusterProviderConfigList) DeepCopyObject() runtime.Object {
	out := &ClusterProviderConfigList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range l.Items {
		out.Items = append(out.Items, *l.Items[i].DeepCopyObject().(*ClusterProviderConfig))
	}
	return out
}

// ProviderConfigUsage records that one MR uses a provider config of either
// kind. It lives in the MR's namespace and carries the labels
// crossplane-runtime counts usages by.
type ProviderConfigUsage struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	xpv2.TypedProviderConfigUsage `json:",inline"`
}

// DeepCopyObject implements runtime.Object.
func (u *ProviderConfigUsage) DeepCopyObject() runtime.Object {
	out := &ProviderConfigUsage{}
	*out = *u
	u.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return out
}

// GetProviderConfigReference of this usage.
func (u *ProviderConfigUsage) GetProviderConfigReference() xpv1.ProviderConfigReference {
	return u.ProviderConfigReference
}

// SetProviderConfigReference of this usage.
func (u *ProviderConfigUsage) SetProviderConfigReference(r xpv1.ProviderConfigReference) {
	u.ProviderConfigReference = r
}

// GetResourceReference of this usage.
func (u *ProviderConfigUsage) GetResourceReference() xpv1.TypedReference {
	return u.ResourceReference
}

// SetResourceReference of this usage.
func (u *ProviderConfigUsage) SetResourceReference(r xpv1.TypedReference) {
	u.ResourceReference = r
}

// ProviderConfigUsageList lists ProviderConfigUsages.
type ProviderConfigUsageList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProviderConfigUsage `json:"items"`
}

// DeepCopyObject implements runtime.Object.
func (l *ProviderConfigUsageList) DeepCopyObject() runtime.Object {
	out := &ProviderConfigUsageList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range l.Items {
		out.Items = append(out.Items, *l.Items[i].DeepCopyObject().(*ProviderConfigUsage))
	}
	return out
}

// GetItems of this list, as crossplane-runtime's usage counting takes them.
func (l *ProviderConfigUsageList) GetItems() []resource.ProviderConfigUsage {
	items := make([]resource.ProviderConfigUsage, len(l.Items))
	for i := range l.Items {
		items[i] = &l.Items[i]
	}
	return items
}
