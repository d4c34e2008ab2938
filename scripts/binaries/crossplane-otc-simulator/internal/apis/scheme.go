package apis

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// AddToScheme registers every kind of the simulator.
func AddToScheme(s *runtime.Scheme) error {
	addManaged[VpcV1](s)
	addManaged[SubnetV1](s)
	addManaged[EIPV1](s)
	addManaged[KeypairV2](s)
	addManaged[ClusterV3](s)
	addManaged[NodePoolV3](s)
	s.AddKnownTypes(ProviderGroupVersion,
		&ProviderConfig{}, &ProviderConfigList{},
		&ClusterProviderConfig{}, &ClusterProviderConfigList{},
		&ProviderConfigUsage{}, &ProviderConfigUsageList{},
	)
	metav1.AddToGroupVersion(s, ProviderGroupVersion)
	return nil
}

func addManaged[K Kind](s *runtime.Scheme) {
	var kind K
	gvk := kind.GroupVersionKind()
	s.AddKnownTypeWithName(gvk, &Managed[K]{})
	s.AddKnownTypeWithName(gvk.GroupVersion().WithKind(gvk.Kind+"List"), &ManagedList[K]{})
	metav1.AddToGroupVersion(s, gvk.GroupVersion())
}

// GVK of kind K.
func GVK[K Kind]() schema.GroupVersionKind {
	var kind K
	return kind.GroupVersionKind()
}
