package apis

import "k8s.io/apimachinery/pkg/runtime/schema"

// The provider's namespaced groups hold namespaced MRs only, all at v1alpha1.
const (
	vpcGroup     = "vpc.opentelekomcloud.m.crossplane.io"
	cceGroup     = "cce.opentelekomcloud.m.crossplane.io"
	computeGroup = "compute.opentelekomcloud.m.crossplane.io"
	mrVersion    = "v1alpha1"
)

// VpcV1 is opentelekomcloud_vpc_v1.
type VpcV1 struct{}

// GroupVersionKind of VpcV1.
func (VpcV1) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: vpcGroup, Version: mrVersion, Kind: "VpcV1"}
}

// Plural of VpcV1.
func (VpcV1) Plural() string { return "vpcv1s" }

// SubnetV1 is opentelekomcloud_vpc_subnet_v1.
type SubnetV1 struct{}

// GroupVersionKind of SubnetV1.
func (SubnetV1) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: vpcGroup, Version: mrVersion, Kind: "SubnetV1"}
}

// Plural of SubnetV1.
func (SubnetV1) Plural() string { return "subnetv1s" }

// EIPV1 is opentelekomcloud_vpc_eip_v1.
type EIPV1 struct{}

// GroupVersionKind of EIPV1.
func (EIPV1) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: vpcGroup, Version: mrVersion, Kind: "EIPV1"}
}

// Plural of EIPV1.
func (EIPV1) Plural() string { return "eipv1s" }

// KeypairV2 is opentelekomcloud_compute_keypair_v2.
type KeypairV2 struct{}

// GroupVersionKind of KeypairV2.
func (KeypairV2) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: computeGroup, Version: mrVersion, Kind: "KeypairV2"}
}

// Plural of KeypairV2.
func (KeypairV2) Plural() string { return "keypairv2s" }

// ClusterV3 is opentelekomcloud_cce_cluster_v3.
type ClusterV3 struct{}

// GroupVersionKind of ClusterV3.
func (ClusterV3) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: cceGroup, Version: mrVersion, Kind: "ClusterV3"}
}

// Plural of ClusterV3.
func (ClusterV3) Plural() string { return "clusterv3s" }

// NodePoolV3 is opentelekomcloud_cce_node_pool_v3.
type NodePoolV3 struct{}

// GroupVersionKind of NodePoolV3.
func (NodePoolV3) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: cceGroup, Version: mrVersion, Kind: "NodePoolV3"}
}

// Plural of NodePoolV3.
func (NodePoolV3) Plural() string { return "nodepoolv3s" }
