package resources

import (
	"context"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/otc"
	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

// subnet is opentelekomcloud_vpc_subnet_v1. Its ID is the network ID, which
// CCE takes as the subnet.
var subnet = &terraformed.Resource{
	ForceNew: terraformed.Set("cidr", "gateway_ip", "vpc_id", "availability_zone", "region"),
	Create: func(ctx context.Context, c *otc.Client, p apis.Parameters) (string, error) {
		opts := otc.CreateSubnetOpts{
			Description:      stringParam(p, "description"),
			AvailabilityZone: stringParam(p, "availabilityZone"),
			PrimaryDNS:       stringParam(p, "primaryDns"),
			SecondaryDNS:     stringParam(p, "secondaryDns"),
		}
		for _, required := range []struct {
			name string
			to   *string
		}{{"name", &opts.Name}, {"cidr", &opts.CIDR}, {"gatewayIp", &opts.GatewayIP}, {"vpcId", &opts.VPCID}} {
			value, err := requiredString(p, required.name)
			if err != nil {
				return "", err
			}
			*required.to = value
		}
		if dhcp, ok := boolParam(p, "dhcpEnable"); ok {
			opts.DHCPEnable = &dhcp
		}
		if ipv6, ok := boolParam(p, "ipv6Enable"); ok {
			opts.IPv6Enable = &ipv6
		}
		created, err := c.CreateSubnet(ctx, opts)
		if err != nil {
			return "", err
		}
		return created.ID, nil
	},
	Read: func(ctx context.Context, c *otc.Client, id string, p, _ apis.Parameters) (*terraformed.State, error) {
		s, err := c.GetSubnet(ctx, id)
		if otc.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		reported := defined(map[string]any{
			"name":             s.Name,
			"cidr":             s.CIDR,
			"gatewayIp":        s.GatewayIP,
			"vpcId":            s.VPCID,
			"availabilityZone": s.AvailabilityZone,
			"primaryDns":       s.PrimaryDNS,
			"secondaryDns":     s.SecondaryDNS,
			"dhcpEnable":       s.DHCPEnable,
			"description":      s.Description,
			"region":           c.Region(),
		})
		phase, failure := statusPhase(s.Status, []string{"UNKNOWN"}, "ACTIVE")
		return &terraformed.State{
			Phase:   phase,
			Failure: failure,
			AtProvider: observed(p, merge(reported, map[string]any{
				"id":          s.ID,
				"networkId":   s.NeutronNetworkID,
				"subnetId":    s.NeutronSubnetID,
				"status":      s.Status,
				"ipv6Enable":  s.IPv6Enable,
				"cidrIpv6":    s.CIDRv6,
				"gatewayIpv6": s.GatewayIPv6,
				"subnetIdV6":  s.NeutronSubnetIDv6,
			})),
			Reported: reported,
		}, nil
	},
	Delete: func(ctx context.Context, c *otc.Client, id string, p apis.Parameters) error {
		vpcID, err := requiredString(p, "vpcId")
		if err != nil {
			return err
		}
		return c.DeleteSubnet(ctx, vpcID, id)
	},
}
