package otc

import (
	"context"
	"net/http"
)

// VPC v1 subnets: created and read at /v1/{project}/subnets, updated and
// deleted under their VPC (/v1/{project}/vpcs/{vpc}/subnets/{id}). Created
// UNKNOWN, then ACTIVE. A subnet's id equals its Neutron network id
// (neutron_network_id, what CCE's hostNetwork.subnet takes); its Neutron
// subnet id (neutron_subnet_id, what ELB takes) differs. Both are kept as
// the API returns them, so that callers pick the right one explicitly.

// Subnet is a subnet as the VPC API answers it.
type Subnet struct {
	// ID equals NeutronNetworkID for subnets made through the VPC API.
	ID               string `json:"id"`
	Name             string `json:"name"`
	Description      string `json:"description,omitempty"`
	CIDR             string `json:"cidr"`
	GatewayIP        string `json:"gateway_ip"`
	VPCID            string `json:"vpc_id"`
	NeutronNetworkID string `json:"neutron_network_id"`
	NeutronSubnetID  string `json:"neutron_subnet_id"`
	// Status is UNKNOWN, ACTIVE, DOWN or ERROR.
	Status           string   `json:"status"`
	DHCPEnable       bool     `json:"dhcp_enable"`
	PrimaryDNS       string   `json:"primary_dns,omitempty"`
	SecondaryDNS     string   `json:"secondary_dns,omitempty"`
	DNSList          []string `json:"dnsList,omitempty"`
	AvailabilityZone string   `json:"availability_zone,omitempty"`
	// The IPv6 half of a dual-stack subnet, where the region offers it.
	IPv6Enable        bool   `json:"ipv6_enable,omitempty"`
	CIDRv6            string `json:"cidr_v6,omitempty"`
	GatewayIPv6       string `json:"gateway_ip_v6,omitempty"`
	NeutronSubnetIDv6 string `json:"neutron_subnet_id_v6,omitempty"`
}

// CreateSubnetOpts is the body of a subnet creation.
type CreateSubnetOpts struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// CIDR lies inside the VPC's, at most a /28.
	CIDR string `json:"cidr"`
	// GatewayIP is an address of CIDR, conventionally its first.
	GatewayIP        string `json:"gateway_ip"`
	VPCID            string `json:"vpc_id"`
	AvailabilityZone string `json:"availability_zone,omitempty"`
	// PrimaryDNS and SecondaryDNS default to OTC's resolvers.
	PrimaryDNS   string   `json:"primary_dns,omitempty"`
	SecondaryDNS string   `json:"secondary_dns,omitempty"`
	DNSList      []string `json:"dnsList,omitempty"`
	// DHCPEnable defaults to true.
	DHCPEnable *bool `json:"dhcp_enable,omitempty"`
	IPv6Enable *bool `json:"ipv6_enable,omitempty"`
}

// UpdateSubnetOpts changes what OTC lets change in place. OTC requires the
// name in every update; nil and empty optional fields are left as they are.
type UpdateSubnetOpts struct {
	Name         string   `json:"name"`
	Description  *string  `json:"description,omitempty"`
	DHCPEnable   *bool    `json:"dhcp_enable,omitempty"`
	PrimaryDNS   string   `json:"primary_dns,omitempty"`
	SecondaryDNS string   `json:"secondary_dns,omitempty"`
	DNSList      []string `json:"dnsList,omitempty"`
	IPv6Enable   *bool    `json:"ipv6_enable,omitempty"`
}

// CreateSubnet creates a subnet; it starts UNKNOWN and turns ACTIVE.
func (c *Client) CreateSubnet(ctx context.Context, opts CreateSubnetOpts) (*Subnet, error) {
	const op = "create subnet"
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	var subnet Subnet
	r := request{op: op, service: ServiceVPC, method: http.MethodPost, path: apiPath("v1", p, "subnets"), body: map[string]any{"subnet": opts}, projectID: p, key: "subnet"}
	if err := c.do(ctx, r, &subnet); err != nil {
		return nil, err
	}
	return &subnet, nil
}

// GetSubnet reads a subnet by its id (the network id); IsNotFound(err)
// when it does not exist.
func (c *Client) GetSubnet(ctx context.Context, id string) (*Subnet, error) {
	const op = "get subnet"
	if err := requireID(op, "subnet id", id); err != nil {
		return nil, err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	var subnet Subnet
	r := request{op: op, service: ServiceVPC, method: http.MethodGet, path: apiPath("v1", p, "subnets", id), projectID: p, key: "subnet"}
	if err := c.do(ctx, r, &subnet); err != nil {
		return nil, err
	}
	return &subnet, nil
}

// UpdateSubnet changes a subnet of vpcID in place. OTC answers only the
// subnet's id and status: read it again for the rest.
func (c *Client) UpdateSubnet(ctx context.Context, vpcID, id string, opts UpdateSubnetOpts) (*Subnet, error) {
	const op = "update subnet"
	if err := requireID(op, "VPC id", vpcID); err != nil {
		return nil, err
	}
	if err := requireID(op, "subnet id", id); err != nil {
		return nil, err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	var subnet Subnet
	r := request{op: op, service: ServiceVPC, method: http.MethodPut, path: apiPath("v1", p, "vpcs", vpcID, "subnets", id), body: map[string]any{"subnet": opts}, projectID: p, key: "subnet"}
	if err := c.do(ctx, r, &subnet); err != nil {
		return nil, err
	}
	return &subnet, nil
}

// DeleteSubnet deletes a subnet of vpcID; IsNotFound(err) when it was gone
// already, IsConflict(err) while a CCE cluster or a load balancer uses it.
func (c *Client) DeleteSubnet(ctx context.Context, vpcID, id string) error {
	const op = "delete subnet"
	if err := requireID(op, "VPC id", vpcID); err != nil {
		return err
	}
	if err := requireID(op, "subnet id", id); err != nil {
		return err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return err
	}
	return c.do(ctx, request{op: op, service: ServiceVPC, method: http.MethodDelete, path: apiPath("v1", p, "vpcs", vpcID, "subnets", id), projectID: p}, nil)
}
