// Added to github.com/kcp-dev/virtual-workspace-framework/pkg/forwardingregistry
// at build time: the build copies the proxy's v0.31.2 of the module to
// .cache/go-src/virtual-workspace-framework@v0.31.2, adds this file, and the
// kcp wrapper's go.mod replaces the module with that directory (see
// scripts/binaries/README.md). kcp v0.32.3 calls this function, which the
// framework gained after v0.31.2, the newest version the module proxy serves
// here. kcp hands it to the custom-resource strategy as the name
// validator, the same rule Kubernetes applies to custom resource names.
package forwardingregistry

import "k8s.io/apimachinery/pkg/api/validation/path"

var ValidatePathSegmentName = path.ValidatePathSegmentName
