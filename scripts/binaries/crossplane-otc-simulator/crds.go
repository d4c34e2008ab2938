package main

import "embed"

// crdFiles are the simulator's CRDs (crds/README.md says where their facts come from).
//
//go:embed crds/*.yaml
var crdFiles embed.FS
