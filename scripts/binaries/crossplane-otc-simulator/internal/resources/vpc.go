package resources

import (
	"context"
	"fmt"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/otc"
	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

// statusPhase is a Terraform wait from pending states to a target status.
func statusPhase(status string, pending []string, target string) (terraformed.Phase, string) {
	if status == target {
		return terraformed.Settled, ""
	}
	for _, candidate := range pending {
		if status == candidate {
			return terraformed.Settling, ""
		}
	}
	if status == "PENDING_DELETE" {
		return terraformed.Deleting, ""
	}
	return terraformed.Failed, fmt.Sprintf("unexpected state '%s', wanted target '%s'", status, target)
}

// vpc is opentelekomcloud_vpc_v1. name, cidr and description change in
// place in Terraform; the simulator does not do that.
var vpc = &terraformed.Resource{
	ForceNew: terraformed.Set("region"),
	Create: func(ctx context.Context, c *otc.Client, p apis.Parameters) (string, error) {
		name, err := requiredString(p, "name")
		if err != nil {
			return "", err
		}
		cidr, err := requiredString(p, "cidr")
		if err != nil {
			return "", err
		}
		created, err := c.CreateVPC(ctx, otc.CreateVPCOpts{Name: name, CIDR: cidr, Description: stringParam(p, "description")})
		if err != nil {
			return "", err
		}
		return created.ID, nil
	},
	Read: func(ctx context.Context, c *otc.Client, id string, p, _ apis.Parameters) (*terraformed.State, error) {
		v, err := c.GetVPC(ctx, id)
		if otc.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		reported := defined(map[string]any{"name": v.Name, "cidr": v.CIDR, "description": v.Description, "region": c.Region()})
		phase, failure := statusPhase(v.Status, []string{"CREATING"}, "OK")
		return &terraformed.State{
			Phase:      phase,
			Failure:    failure,
			AtProvider: observed(p, merge(reported, map[string]any{"id": v.ID, "status": v.Status})),
			Reported:   reported,
		}, nil
	},
	Delete: func(ctx context.Context, c *otc.Client, id string, _ apis.Parameters) error {
		return c.DeleteVPC(ctx, id)
	},
}

// merge is a and b in one map, b winning.
func merge(a apis.Parameters, b map[string]any) map[string]any {
	out := map[string]any{}
	for key, value := range a {
		out[key] = value
	}
	for key, value := range b {
		out[key] = value
	}
	return out
}
