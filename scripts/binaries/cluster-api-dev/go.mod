// Builds the Cluster API development infrastructure provider (CAPD, with its
// in-memory backend). The test module replaces cluster-api and cluster-api/api
// with its parent directories; the published modules at the same tag stand in.
module wrapper

go 1.26.0

require (
	sigs.k8s.io/cluster-api v1.14.2
	sigs.k8s.io/cluster-api/api v1.14.2
	sigs.k8s.io/cluster-api/test v1.14.2
)
