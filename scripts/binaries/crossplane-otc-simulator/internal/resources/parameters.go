// Package resources are the Terraform resources of the six kinds, as the
// simulator runs them against OTC: how each creates, refreshes, updates and
// destroys its object, which arguments force a replacement, and what its
// refresh puts into status.atProvider. Field names are the provider's.
package resources

import (
	"fmt"
	"strings"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

// All are the resources by kind.
func All() map[string]*terraformed.Resource {
	return map[string]*terraformed.Resource{
		"VpcV1":      vpc,
		"SubnetV1":   subnet,
		"EIPV1":      eip,
		"KeypairV2":  keypair,
		"ClusterV3":  cluster,
		"NodePoolV3": nodePool,
	}
}

func stringParam(p apis.Parameters, name string) string {
	value, _ := p[name].(string)
	return value
}

// requiredString is a string argument Terraform requires; the error is
// Terraform's for a missing one.
func requiredString(p apis.Parameters, name string) (string, error) {
	if value := stringParam(p, name); value != "" {
		return value, nil
	}
	return "", missing(terraformed.SnakeCase(name))
}

func missing(argument string) error {
	return fmt.Errorf("the argument %q is required, but no definition was found", argument)
}

// numberParam is an integer argument. The API server's decoder gives
// integers as int64 and other numbers as float64.
func numberParam(p apis.Parameters, name string) (int, bool) {
	switch value := p[name].(type) {
	case int64:
		return int(value), true
	case float64:
		return int(value), true
	default:
		return 0, false
	}
}

func boolParam(p apis.Parameters, name string) (value, ok bool) {
	value, ok = p[name].(bool)
	return value, ok
}

// firstBlock is the first element of a block list given as [{...}].
func firstBlock(p apis.Parameters, name string) apis.Parameters {
	list, _ := p[name].([]any)
	if len(list) == 0 {
		return apis.Parameters{}
	}
	block, _ := list[0].(map[string]any)
	return block
}

// observed is status.atProvider: the arguments echoed as Terraform's state
// keeps them (references and secret references are no state), with the
// observed values over them. Empty values are left out.
func observed(p apis.Parameters, values map[string]any) apis.Parameters {
	out := apis.Parameters{}
	for key, value := range p.DeepCopy() {
		if strings.HasSuffix(key, "Ref") || strings.HasSuffix(key, "Selector") {
			continue
		}
		out[key] = value
	}
	for key, value := range defined(values) {
		out[key] = value
	}
	return out
}

// defined drops the empty values: what an optional echo leaves out.
func defined(values map[string]any) apis.Parameters {
	out := apis.Parameters{}
	for key, value := range values {
		switch v := value.(type) {
		case nil:
			continue
		case string:
			if v == "" {
				continue
			}
		}
		out[key] = value
	}
	return out
}

// number is an integer as the API server's decoder gives it.
func number(n int) int64 { return int64(n) }
