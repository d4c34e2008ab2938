// Builds the Cluster API core, kubeadm bootstrap and kubeadm control-plane
// managers. Upstream's only replace points sigs.k8s.io/cluster-api/api at its
// nested directory, which the published api module at the same tag stands in for.
module wrapper

go 1.26.0

require (
	sigs.k8s.io/cluster-api v1.14.2
	sigs.k8s.io/cluster-api/api v1.14.2
)
