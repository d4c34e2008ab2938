// Builds the Cluster API Operator. Its go.mod has no replaces.
module wrapper

go 1.26.6

require sigs.k8s.io/cluster-api-operator v0.29.0
