package otc

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
)

// CCE v3 clusters (/api/v3/projects/{project}/clusters): Kubernetes-style
// objects, sent and answered unwrapped. A cluster goes Creating →
// Available; a deletion shows Deleting until the cluster answers 404.

// CCEMetadata is the metadata of CCE objects.
type CCEMetadata struct {
	// UID is the object's id.
	UID               string            `json:"uid,omitempty"`
	Name              string            `json:"name"`
	Alias             string            `json:"alias,omitempty"`
	CreationTimestamp string            `json:"creationTimestamp,omitempty"`
	UpdateTimestamp   string            `json:"updateTimestamp,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
}

// CCECluster is a cluster as CCE answers it.
type CCECluster struct {
	Kind       string            `json:"kind"`
	APIVersion string            `json:"apiVersion"`
	Metadata   CCEMetadata       `json:"metadata"`
	Spec       CCEClusterSpec    `json:"spec"`
	Status     *CCEClusterStatus `json:"status,omitempty"`
}

// CCEClusterSpec is what a cluster is made of.
type CCEClusterSpec struct {
	Category string `json:"category,omitempty"`
	// Type is VirtualMachine (ECS nodes) or BareMetal.
	Type string `json:"type"`
	// Flavor is e.g. cce.s1.small (one master) or cce.s2.small (three).
	Flavor string `json:"flavor"`
	// Version is vX.Y[.Z[-rN]]; CCE's latest when empty.
	Version          string              `json:"version,omitempty"`
	Description      string              `json:"description,omitempty"`
	HostNetwork      CCEHostNetwork      `json:"hostNetwork"`
	ContainerNetwork CCEContainerNetwork `json:"containerNetwork"`
	// Authentication defaults to rbac.
	Authentication *CCEAuthentication `json:"authentication,omitempty"`
	// Masters has one entry per master (HA flavors) to spread them over zones.
	Masters              []CCEMaster    `json:"masters,omitempty"`
	KubernetesSvcIPRange string         `json:"kubernetesSvcIpRange,omitempty"`
	KubeProxyMode        string         `json:"kubeProxyMode,omitempty"`
	BillingMode          int            `json:"billingMode,omitempty"`
	ExtendParam          map[string]any `json:"extendParam,omitempty"`
}

// CCEHostNetwork is where the cluster's masters and nodes live.
type CCEHostNetwork struct {
	VPC string `json:"vpc"`
	// Subnet is the subnet's network id (neutron_network_id, the VPC API's
	// subnet id), not its Neutron subnet id.
	Subnet string `json:"subnet"`
	// SecurityGroup is spelt with a capital S on CCE's wire.
	SecurityGroup string `json:"SecurityGroup,omitempty"`
}

// CCEContainerNetwork is the pods' network.
type CCEContainerNetwork struct {
	// Mode is overlay_l2, vpc-router or eni.
	Mode string `json:"mode"`
	CIDR string `json:"cidr,omitempty"`
}

// CCEAuthentication is how the API server authenticates.
type CCEAuthentication struct {
	// Mode is rbac or authenticating_proxy.
	Mode                string         `json:"mode"`
	AuthenticatingProxy map[string]any `json:"authenticatingProxy,omitempty"`
}

// CCEMaster places one master.
type CCEMaster struct {
	AvailabilityZone string `json:"availabilityZone"`
}

// CCEClusterStatus is where the cluster is.
type CCEClusterStatus struct {
	// Phase is Creating, Available, Unavailable, Upgrading, Deleting, Error, ...
	Phase     string               `json:"phase"`
	Endpoints []CCEClusterEndpoint `json:"endpoints,omitempty"`
	JobID     string               `json:"jobID,omitempty"`
	Reason    string               `json:"reason,omitempty"`
	Message   string               `json:"message,omitempty"`
}

// CCEClusterEndpoint is one way to reach the API server.
type CCEClusterEndpoint struct {
	// URL is e.g. https://192.168.0.10:5443.
	URL string `json:"url"`
	// Type is Internal, or External while an EIP is bound.
	Type string `json:"type"`
}

// CreateCCEClusterOpts orders a cluster; kind and apiVersion are added.
type CreateCCEClusterOpts struct {
	Metadata CCEMetadata
	Spec     CCEClusterSpec
}

// UpdateCCEClusterOpts changes what CCE lets change in place; nil and
// empty fields are left as they are.
type UpdateCCEClusterOpts struct {
	Description *string
	// CustomSAN are extra subject alternative names of the API server's certificate.
	CustomSAN []string
	// SecurityGroup replaces the nodes' default security group.
	SecurityGroup string
	Alias         string
}

// CCEClusterDeletion says what a cluster deletion also deletes: "true"
// (fail if it cannot), "try" (go on if it cannot) or "false"; empty leaves
// CCE's default (false).
type CCEClusterDeletion struct {
	DeleteEVS string
	DeleteNet string
	DeleteOBS string
	DeleteSFS string
	DeleteEFS string
}

func (d CCEClusterDeletion) query() url.Values {
	q := url.Values{}
	for name, value := range map[string]string{"delete_evs": d.DeleteEVS, "delete_net": d.DeleteNet, "delete_obs": d.DeleteOBS, "delete_sfs": d.DeleteSFS, "delete_efs": d.DeleteEFS} {
		if value != "" {
			q.Set(name, value)
		}
	}
	return q
}

func clusterPath(projectID string, rest ...string) string {
	return apiPath(append([]string{"api", "v3", "projects", projectID, "clusters"}, rest...)...)
}

// CreateCCECluster orders a cluster; it starts Creating and turns Available (or Error) minutes later.
func (c *Client) CreateCCECluster(ctx context.Context, opts CreateCCEClusterOpts) (*CCECluster, error) {
	const op = "create CCE cluster"
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	body := CCECluster{Kind: "Cluster", APIVersion: "v3", Metadata: opts.Metadata, Spec: opts.Spec}
	var cluster CCECluster
	if err := c.do(ctx, request{op: op, service: ServiceCCE, method: http.MethodPost, path: clusterPath(p), body: body, projectID: p}, &cluster); err != nil {
		return nil, err
	}
	return &cluster, nil
}

// GetCCECluster reads a cluster; IsNotFound(err) when it does not exist (any more).
func (c *Client) GetCCECluster(ctx context.Context, id string) (*CCECluster, error) {
	const op = "get CCE cluster"
	if err := requireID(op, "cluster id", id); err != nil {
		return nil, err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	var cluster CCECluster
	if err := c.do(ctx, request{op: op, service: ServiceCCE, method: http.MethodGet, path: clusterPath(p, id), projectID: p}, &cluster); err != nil {
		return nil, err
	}
	return &cluster, nil
}

// UpdateCCECluster changes a cluster's description, certificate SANs,
// node security group or alias in place.
func (c *Client) UpdateCCECluster(ctx context.Context, id string, opts UpdateCCEClusterOpts) (*CCECluster, error) {
	const op = "update CCE cluster"
	if err := requireID(op, "cluster id", id); err != nil {
		return nil, err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	spec := map[string]any{}
	if opts.Description != nil {
		spec["description"] = *opts.Description
	}
	if len(opts.CustomSAN) > 0 {
		spec["customSan"] = opts.CustomSAN
	}
	if opts.SecurityGroup != "" {
		spec["hostNetwork"] = map[string]string{"SecurityGroup": opts.SecurityGroup}
	}
	body := map[string]any{"spec": spec}
	if opts.Alias != "" {
		body["metadata"] = map[string]string{"alias": opts.Alias}
	}
	var cluster CCECluster
	if err := c.do(ctx, request{op: op, service: ServiceCCE, method: http.MethodPut, path: clusterPath(p, id), body: body, projectID: p}, &cluster); err != nil {
		return nil, err
	}
	return &cluster, nil
}

// DeleteCCECluster starts a cluster's deletion (phase Deleting until it
// answers 404; its node pools go with it); IsNotFound(err) when it was gone already.
func (c *Client) DeleteCCECluster(ctx context.Context, id string, deletion CCEClusterDeletion) error {
	const op = "delete CCE cluster"
	if err := requireID(op, "cluster id", id); err != nil {
		return err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return err
	}
	return c.do(ctx, request{op: op, service: ServiceCCE, method: http.MethodDelete, path: clusterPath(p, id), query: deletion.query(), projectID: p}, nil)
}

// BindCCEMasterEIP binds EIP eipID to the cluster's API server, whose
// endpoints then include an External one. CCE answers 400 while the cluster
// is not Available.
func (c *Client) BindCCEMasterEIP(ctx context.Context, clusterID, eipID string) error {
	return c.masterEIP(ctx, "bind CCE master EIP", clusterID, "bind", eipID)
}

// UnbindCCEMasterEIP unbinds EIP eipID from the cluster's API server; the EIP itself is kept.
func (c *Client) UnbindCCEMasterEIP(ctx context.Context, clusterID, eipID string) error {
	return c.masterEIP(ctx, "unbind CCE master EIP", clusterID, "unbind", eipID)
}

func (c *Client) masterEIP(ctx context.Context, op, clusterID, action, eipID string) error {
	if err := requireID(op, "cluster id", clusterID); err != nil {
		return err
	}
	if err := requireID(op, "EIP id", eipID); err != nil {
		return err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return err
	}
	body := map[string]any{"spec": map[string]any{"action": action, "spec": map[string]string{"id": eipID}}}
	return c.do(ctx, request{op: op, service: ServiceCCE, method: http.MethodPut, path: clusterPath(p, clusterID, "mastereip"), body: body, projectID: p}, nil)
}

// CCEKubeconfig is what clustercert answers: a kubeconfig as JSON. Users
// hold a client certificate and its private key: never log it. External
// entries exist only while an EIP is bound.
type CCEKubeconfig struct {
	Kind           string                 `json:"kind"`
	APIVersion     string                 `json:"apiVersion"`
	Preferences    map[string]any         `json:"preferences,omitempty"`
	Clusters       []CCEKubeconfigCluster `json:"clusters"`
	Users          []CCEKubeconfigUser    `json:"users"`
	Contexts       []CCEKubeconfigContext `json:"contexts"`
	CurrentContext string                 `json:"current-context"`
	// Raw is the answer as received, for writing it out unchanged (a
	// connection Secret), fields this struct does not know included.
	Raw json.RawMessage `json:"-"`
}

// CCEKubeconfigCluster is a named API server.
type CCEKubeconfigCluster struct {
	Name    string `json:"name"`
	Cluster struct {
		Server                   string `json:"server"`
		CertificateAuthorityData string `json:"certificate-authority-data,omitempty"`
		InsecureSkipTLSVerify    bool   `json:"insecure-skip-tls-verify,omitempty"`
	} `json:"cluster"`
}

// CCEKubeconfigUser is a named client certificate (base64 PEM).
type CCEKubeconfigUser struct {
	Name string `json:"name"`
	User struct {
		ClientCertificateData string `json:"client-certificate-data,omitempty"`
		ClientKeyData         string `json:"client-key-data,omitempty"`
	} `json:"user"`
}

// CCEKubeconfigContext pairs a cluster with a user.
type CCEKubeconfigContext struct {
	Name    string `json:"name"`
	Context struct {
		Cluster string `json:"cluster"`
		User    string `json:"user"`
	} `json:"context"`
}

// GetCCEClusterCert gets a kubeconfig with a new client certificate valid
// for durationDays (1-1825, or -1 for the maximum). CCE answers 400 while
// the cluster is not Available. The answer never becomes part of an error.
func (c *Client) GetCCEClusterCert(ctx context.Context, clusterID string, durationDays int) (*CCEKubeconfig, error) {
	const op = "get CCE cluster certificate"
	if err := requireID(op, "cluster id", clusterID); err != nil {
		return nil, err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	r := request{op: op, service: ServiceCCE, method: http.MethodPost, path: clusterPath(p, clusterID, "clustercert"), body: map[string]int{"duration": durationDays}, projectID: p}
	if err := c.do(ctx, r, &raw); err != nil {
		return nil, err
	}
	var kubeconfig CCEKubeconfig
	if err := json.Unmarshal(raw, &kubeconfig); err != nil {
		return nil, &APIError{Op: op, Method: r.method, Path: r.path, StatusCode: http.StatusOK, Message: "the answer is no kubeconfig object"}
	}
	kubeconfig.Raw = raw
	return &kubeconfig, nil
}
