package otc

import (
	"context"
	"net/http"
)

// VPC v1 virtual private clouds (/v1/{project}/vpcs): created CREATING,
// then OK. OTC refuses (409) to delete a VPC that still has subnets.

// VPC is a VPC as the VPC API answers it.
type VPC struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	CIDR        string `json:"cidr"`
	// Status is CREATING, OK, DOWN, PENDING_UPDATE, PENDING_DELETE or ERROR.
	Status              string     `json:"status"`
	Routes              []VPCRoute `json:"routes,omitempty"`
	EnableSharedSNAT    bool       `json:"enable_shared_snat,omitempty"`
	EnterpriseProjectID string     `json:"enterprise_project_id,omitempty"`
	TenantID            string     `json:"tenant_id,omitempty"`
}

// VPCRoute is a route of the VPC's route table.
type VPCRoute struct {
	Destination string `json:"destination"`
	NextHop     string `json:"nexthop"`
}

// CreateVPCOpts is the body of a VPC creation.
type CreateVPCOpts struct {
	Name string `json:"name"`
	// CIDR lies in 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16, at most a /24.
	CIDR        string `json:"cidr"`
	Description string `json:"description,omitempty"`
}

// UpdateVPCOpts changes what OTC lets change in place; nil fields are left
// as they are (a pointer, so that an empty description can be set). A new
// CIDR must still contain every subnet of the VPC.
type UpdateVPCOpts struct {
	Name        *string `json:"name,omitempty"`
	CIDR        *string `json:"cidr,omitempty"`
	Description *string `json:"description,omitempty"`
}

func vpcPath(projectID string, id ...string) string {
	return apiPath(append([]string{"v1", projectID, "vpcs"}, id...)...)
}

// CreateVPC creates a VPC; it starts CREATING and turns OK.
func (c *Client) CreateVPC(ctx context.Context, opts CreateVPCOpts) (*VPC, error) {
	const op = "create VPC"
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	var vpc VPC
	body := map[string]any{"vpc": opts}
	r := request{op: op, service: ServiceVPC, method: http.MethodPost, path: vpcPath(p), body: body, projectID: p, key: "vpc"}
	if err := c.do(ctx, r, &vpc); err != nil {
		return nil, err
	}
	return &vpc, nil
}

// GetVPC reads a VPC; IsNotFound(err) when it does not exist.
func (c *Client) GetVPC(ctx context.Context, id string) (*VPC, error) {
	const op = "get VPC"
	if err := requireID(op, "VPC id", id); err != nil {
		return nil, err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	var vpc VPC
	r := request{op: op, service: ServiceVPC, method: http.MethodGet, path: vpcPath(p, id), projectID: p, key: "vpc"}
	if err := c.do(ctx, r, &vpc); err != nil {
		return nil, err
	}
	return &vpc, nil
}

// UpdateVPC changes a VPC's name, CIDR or description in place.
func (c *Client) UpdateVPC(ctx context.Context, id string, opts UpdateVPCOpts) (*VPC, error) {
	const op = "update VPC"
	if err := requireID(op, "VPC id", id); err != nil {
		return nil, err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	var vpc VPC
	body := map[string]any{"vpc": opts}
	r := request{op: op, service: ServiceVPC, method: http.MethodPut, path: vpcPath(p, id), body: body, projectID: p, key: "vpc"}
	if err := c.do(ctx, r, &vpc); err != nil {
		return nil, err
	}
	return &vpc, nil
}

// DeleteVPC deletes a VPC; IsNotFound(err) when it was gone already,
// IsConflict(err) while it has subnets.
func (c *Client) DeleteVPC(ctx context.Context, id string) error {
	const op = "delete VPC"
	if err := requireID(op, "VPC id", id); err != nil {
		return err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return err
	}
	return c.do(ctx, request{op: op, service: ServiceVPC, method: http.MethodDelete, path: vpcPath(p, id), projectID: p}, nil)
}
