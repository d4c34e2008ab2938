package resources

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/otc"
	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

// eip is opentelekomcloud_vpc_eip_v1. Its address is in
// atProvider.publicip[0].ipAddress, the only place the provider has it.
// Bandwidth name and size and the EIP's name and port change in place in
// Terraform; the simulator does not do that.
var eip = &terraformed.Resource{
	ForceNew: terraformed.Set("publicip.*.type", "publicip.*.ip_address", "bandwidth.*.share_type", "bandwidth.*.charge_mode", "region"),
	Create: func(ctx context.Context, c *otc.Client, p apis.Parameters) (string, error) {
		publicip, bandwidth := firstBlock(p, "publicip"), firstBlock(p, "bandwidth")
		if stringParam(publicip, "ipAddress") != "" {
			return "", errors.New("the simulator allocates addresses itself: leave publicip[0].ipAddress out")
		}
		size, ok := numberParam(bandwidth, "size")
		if !ok {
			return "", missing("bandwidth.0.size")
		}
		name, err := requiredString(bandwidth, "name")
		if err != nil {
			return "", missing("bandwidth.0.name")
		}
		created, err := c.CreatePublicIP(ctx, otc.CreatePublicIPOpts{
			Type:  stringParam(publicip, "type"),
			Alias: stringParam(publicip, "name"),
			Bandwidth: otc.BandwidthOpts{
				Name:       name,
				Size:       size,
				ShareType:  stringParam(bandwidth, "shareType"),
				ChargeMode: stringParam(bandwidth, "chargeMode"),
			},
		})
		if err != nil {
			return "", err
		}
		return created.ID, nil
	},
	Read: func(ctx context.Context, c *otc.Client, id string, p, _ apis.Parameters) (*terraformed.State, error) {
		e, err := c.GetPublicIP(ctx, id)
		if otc.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		phase, failure := eipPhase(e.Status)
		reported := apis.Parameters{
			"publicip":  []any{map[string]any(defined(map[string]any{"type": e.Type, "ipAddress": e.PublicIPAddress}))},
			"bandwidth": []any{map[string]any(defined(map[string]any{"size": number(e.BandwidthSize), "shareType": e.BandwidthShareType}))},
			"region":    c.Region(),
		}
		publicip := merge(firstBlock(p, "publicip"), map[string]any(defined(map[string]any{"type": e.Type, "ipAddress": e.PublicIPAddress, "name": e.Alias, "portId": e.PortID})))
		bandwidth := merge(firstBlock(p, "bandwidth"), map[string]any(defined(map[string]any{"size": number(e.BandwidthSize), "shareType": e.BandwidthShareType, "id": e.BandwidthID, "name": e.BandwidthName})))
		return &terraformed.State{
			Phase:   phase,
			Failure: failure,
			AtProvider: observed(p, map[string]any{
				"id":        e.ID,
				"publicip":  []any{publicip},
				"bandwidth": []any{bandwidth},
				"region":    c.Region(),
			}),
			Reported: reported,
		}, nil
	},
	Delete: func(ctx context.Context, c *otc.Client, id string, _ apis.Parameters) error {
		return c.DeletePublicIP(ctx, id)
	},
}

func eipPhase(status string) (terraformed.Phase, string) {
	switch {
	case slices.Contains([]string{"DOWN", "ACTIVE", "ELB", "VPN"}, status):
		return terraformed.Settled, ""
	case slices.Contains([]string{"PENDING_CREATE", "PENDING_UPDATE", "BINDING", "NOTIFYING"}, status):
		return terraformed.Settling, ""
	case status == "PENDING_DELETE" || status == "NOTIFY_DELETE":
		return terraformed.Deleting, ""
	default:
		return terraformed.Failed, fmt.Sprintf("unexpected state '%s', wanted target 'DOWN'", status)
	}
}
