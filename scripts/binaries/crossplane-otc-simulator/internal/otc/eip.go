package otc

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// Elastic IPs (VPC v1 /v1/{project}/publicips) with their bandwidth:
// created PENDING_CREATE, then DOWN (unbound) or ACTIVE (bound). A bound
// EIP cannot be released (409).

// PublicIP is an EIP as the VPC API answers it.
type PublicIP struct {
	ID string `json:"id"`
	// Status is PENDING_CREATE, DOWN (unbound), ACTIVE (bound), ELB, ERROR, ...
	Status          string `json:"status"`
	Type            string `json:"type"`
	PublicIPAddress string `json:"public_ip_address"`
	// PrivateIPAddress and PortID are empty while unbound (null on the wire).
	PrivateIPAddress   string `json:"private_ip_address,omitempty"`
	PortID             string `json:"port_id,omitempty"`
	IPVersion          int    `json:"ip_version"`
	TenantID           string `json:"tenant_id,omitempty"`
	CreateTime         string `json:"create_time,omitempty"`
	BandwidthID        string `json:"bandwidth_id,omitempty"`
	BandwidthName      string `json:"bandwidth_name,omitempty"`
	BandwidthSize      int    `json:"bandwidth_size,omitempty"`
	BandwidthShareType string `json:"bandwidth_share_type,omitempty"`
	Alias              string `json:"alias,omitempty"`
}

// CreatePublicIPOpts is an EIP creation; empty fields take OTC's defaults
// as packages/otc sets them (type 5_bgp, IPv4, dedicated bandwidth).
type CreatePublicIPOpts struct {
	Type      string
	IPVersion int
	Alias     string
	Bandwidth BandwidthOpts
}

// BandwidthOpts is the bandwidth an EIP is created with.
type BandwidthOpts struct {
	// Name is 1-64 characters of A-Z a-z 0-9 _ . -.
	Name string `json:"name"`
	// Size is in Mbit/s.
	Size int `json:"size"`
	// ShareType is PER (dedicated, the default) or WHOLE (shared, naming ID).
	ShareType string `json:"share_type"`
	// ChargeMode is traffic or bandwidth.
	ChargeMode string `json:"charge_mode,omitempty"`
	ID         string `json:"id,omitempty"`
}

type publicIPBody struct {
	Type      string `json:"type"`
	IPVersion int    `json:"ip_version"`
	Alias     string `json:"alias,omitempty"`
}

// CreatePublicIP assigns an EIP; it starts PENDING_CREATE and turns DOWN once usable.
func (c *Client) CreatePublicIP(ctx context.Context, opts CreatePublicIPOpts) (*PublicIP, error) {
	const op = "create EIP"
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	ip := publicIPBody{Type: opts.Type, IPVersion: opts.IPVersion, Alias: opts.Alias}
	if ip.Type == "" {
		ip.Type = "5_bgp"
	}
	if ip.IPVersion == 0 {
		ip.IPVersion = 4
	}
	bandwidth := opts.Bandwidth
	if bandwidth.ShareType == "" {
		bandwidth.ShareType = "PER"
	}
	var eip PublicIP
	body := map[string]any{"publicip": ip, "bandwidth": bandwidth}
	r := request{op: op, service: ServiceVPC, method: http.MethodPost, path: apiPath("v1", p, "publicips"), body: body, projectID: p, key: "publicip"}
	if err := c.do(ctx, r, &eip); err != nil {
		return nil, err
	}
	return &eip, nil
}

// GetPublicIP reads an EIP; IsNotFound(err) when it does not exist.
func (c *Client) GetPublicIP(ctx context.Context, id string) (*PublicIP, error) {
	const op = "get EIP"
	if err := requireID(op, "EIP id", id); err != nil {
		return nil, err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	var eip PublicIP
	r := request{op: op, service: ServiceVPC, method: http.MethodGet, path: apiPath("v1", p, "publicips", id), projectID: p, key: "publicip"}
	if err := c.do(ctx, r, &eip); err != nil {
		return nil, err
	}
	return &eip, nil
}

// publicIPPageSize is the page size of ListPublicIPs (the API allows up to 2000).
const publicIPPageSize = 200

// ListPublicIPs lists every EIP of the project, page by page (the marker is
// the last item's id; a short page is the last). A cluster's master EIP is
// named by address, so this is how its id is found.
func (c *Client) ListPublicIPs(ctx context.Context) ([]PublicIP, error) {
	const op = "list EIPs"
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	var all []PublicIP
	marker := ""
	for {
		query := url.Values{"limit": {strconv.Itoa(publicIPPageSize)}}
		if marker != "" {
			query.Set("marker", marker)
		}
		var page struct {
			PublicIPs []PublicIP `json:"publicips"`
		}
		r := request{op: op, service: ServiceVPC, method: http.MethodGet, path: apiPath("v1", p, "publicips"), query: query, projectID: p}
		if err := c.do(ctx, r, &page); err != nil {
			return nil, err
		}
		all = append(all, page.PublicIPs...)
		if len(page.PublicIPs) < publicIPPageSize {
			return all, nil
		}
		next := page.PublicIPs[len(page.PublicIPs)-1].ID
		if next == "" || next == marker {
			// A server that repeats a marker would otherwise be paged forever.
			return all, nil
		}
		marker = next
	}
}

// DeletePublicIP releases an EIP; IsNotFound(err) when it was gone
// already, IsConflict(err) while it is bound.
func (c *Client) DeletePublicIP(ctx context.Context, id string) error {
	const op = "delete EIP"
	if err := requireID(op, "EIP id", id); err != nil {
		return err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return err
	}
	return c.do(ctx, request{op: op, service: ServiceVPC, method: http.MethodDelete, path: apiPath("v1", p, "publicips", id), projectID: p}, nil)
}
