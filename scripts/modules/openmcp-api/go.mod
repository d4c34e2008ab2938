// Pins the openMCP API module whose CRD manifests (crds/manifests/) tests
// install and the API generator reads; nothing here is built.
module wrapper

go 1.26.6

require github.com/openmcp-project/openmcp-operator/api v1.3.0
