package otc

import (
	"context"
	"net/http"
)

// CCE v3 node pools (…/clusters/{cluster}/nodepools): created
// Synchronizing, then the empty (normal) phase once their servers exist,
// or SoldOut while the flavor has no capacity in the zone. A pool needs an
// Available cluster; a deletion shows Deleting until the pool answers 404.

// CCENodePool is a node pool as CCE answers it.
type CCENodePool struct {
	Kind       string             `json:"kind"`
	APIVersion string             `json:"apiVersion"`
	Metadata   CCEMetadata        `json:"metadata"`
	Spec       CCENodePoolSpec    `json:"spec"`
	Status     *CCENodePoolStatus `json:"status,omitempty"`
}

// CCENodePoolSpec is what a node pool is made of.
type CCENodePoolSpec struct {
	// Type is vm for ECS nodes.
	Type string `json:"type,omitempty"`
	// InitialNodeCount is the pool's size; 0 is a valid size, so it is always sent.
	InitialNodeCount int                `json:"initialNodeCount"`
	NodeTemplate     CCENodeTemplate    `json:"nodeTemplate"`
	Autoscaling      *CCEAutoscaling    `json:"autoscaling,omitempty"`
	NodeManagement   *CCENodeManagement `json:"nodeManagement,omitempty"`
}

// CCENodeTemplate is every node's shape.
type CCENodeTemplate struct {
	// Flavor is the ECS flavor, e.g. s3.xlarge.4.
	Flavor string `json:"flavor"`
	// AZ is a zone, or random: CCE picks the zone with the most room.
	AZ string `json:"az"`
	// OS is e.g. EulerOS 2.9 or HCE OS 2.0.
	OS          string            `json:"os,omitempty"`
	Login       CCELogin          `json:"login"`
	RootVolume  CCEVolume         `json:"rootVolume"`
	DataVolumes []CCEVolume       `json:"dataVolumes"`
	Runtime     *CCERuntime       `json:"runtime,omitempty"`
	BillingMode int               `json:"billingMode,omitempty"`
	K8sTags     map[string]string `json:"k8sTags,omitempty"`
	Taints      []CCETaint        `json:"taints,omitempty"`
	ExtendParam map[string]any    `json:"extendParam,omitempty"`
}

// CCELogin names the key pair nodes accept.
type CCELogin struct {
	SSHKey string `json:"sshKey"`
}

// CCEVolume is a node disk.
type CCEVolume struct {
	// Size is in GiB.
	Size int `json:"size"`
	// VolumeType is e.g. SSD, SAS.
	VolumeType  string         `json:"volumetype"`
	ExtendParam map[string]any `json:"extendParam,omitempty"`
}

// CCERuntime is the container runtime, containerd or docker.
type CCERuntime struct {
	Name string `json:"name"`
}

// CCETaint is a taint every node gets.
type CCETaint struct {
	Key   string `json:"key"`
	Value string `json:"value,omitempty"`
	// Effect is NoSchedule, PreferNoSchedule or NoExecute.
	Effect string `json:"effect"`
}

// CCEAutoscaling is the pool's autoscaler setting.
type CCEAutoscaling struct {
	Enable                bool `json:"enable"`
	MinNodeCount          int  `json:"minNodeCount,omitempty"`
	MaxNodeCount          int  `json:"maxNodeCount,omitempty"`
	ScaleDownCooldownTime int  `json:"scaleDownCooldownTime,omitempty"`
	Priority              int  `json:"priority,omitempty"`
}

// CCENodeManagement places the pool's nodes in a server group.
type CCENodeManagement struct {
	ServerGroupReference string `json:"serverGroupReference,omitempty"`
}

// CCENodePoolStatus is where the pool is.
type CCENodePoolStatus struct {
	// Phase is "" (normal), Synchronizing, Synchronized, SoldOut, Deleting or Error.
	Phase        string `json:"phase"`
	CurrentNode  int    `json:"currentNode"`
	CreatingNode int    `json:"creatingNode,omitempty"`
	DeletingNode int    `json:"deletingNode,omitempty"`
	JobID        string `json:"jobId,omitempty"`
}

// CreateCCENodePoolOpts orders a node pool; kind and apiVersion are added.
type CreateCCENodePoolOpts struct {
	Metadata CCEMetadata
	Spec     CCENodePoolSpec
}

// UpdateCCENodePoolOpts changes the pool's size or autoscaling; nil fields
// are left as they are.
type UpdateCCENodePoolOpts struct {
	InitialNodeCount *int
	Autoscaling      *CCEAutoscaling
}

func nodePoolPath(projectID, clusterID string, id ...string) string {
	return clusterPath(projectID, append([]string{clusterID, "nodepools"}, id...)...)
}

// CreateCCENodePool orders a node pool in cluster clusterID; it starts
// Synchronizing. CCE answers 400 while the cluster is not Available.
func (c *Client) CreateCCENodePool(ctx context.Context, clusterID string, opts CreateCCENodePoolOpts) (*CCENodePool, error) {
	const op = "create CCE node pool"
	if err := requireID(op, "cluster id", clusterID); err != nil {
		return nil, err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	body := CCENodePool{Kind: "NodePool", APIVersion: "v3", Metadata: opts.Metadata, Spec: opts.Spec}
	var pool CCENodePool
	if err := c.do(ctx, request{op: op, service: ServiceCCE, method: http.MethodPost, path: nodePoolPath(p, clusterID), body: body, projectID: p}, &pool); err != nil {
		return nil, err
	}
	return &pool, nil
}

// GetCCENodePool reads a node pool; IsNotFound(err) when it (or its cluster) does not exist.
func (c *Client) GetCCENodePool(ctx context.Context, clusterID, id string) (*CCENodePool, error) {
	const op = "get CCE node pool"
	if err := requireID(op, "cluster id", clusterID); err != nil {
		return nil, err
	}
	if err := requireID(op, "node pool id", id); err != nil {
		return nil, err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	var pool CCENodePool
	if err := c.do(ctx, request{op: op, service: ServiceCCE, method: http.MethodGet, path: nodePoolPath(p, clusterID, id), projectID: p}, &pool); err != nil {
		return nil, err
	}
	return &pool, nil
}

// UpdateCCENodePool scales a node pool or changes its autoscaling. CCE's
// update takes the whole pool (name, node template, autoscaling), so the
// current one is read and sent back with the changes, as packages/otc
// does; a pool that is gone fails with IsNotFound(err).
func (c *Client) UpdateCCENodePool(ctx context.Context, clusterID, id string, opts UpdateCCENodePoolOpts) (*CCENodePool, error) {
	const op = "update CCE node pool"
	current, err := c.GetCCENodePool(ctx, clusterID, id)
	if err != nil {
		return nil, err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return nil, err
	}
	spec := current.Spec
	if opts.InitialNodeCount != nil {
		spec.InitialNodeCount = *opts.InitialNodeCount
	}
	if opts.Autoscaling != nil {
		spec.Autoscaling = opts.Autoscaling
	}
	body := CCENodePool{Kind: "NodePool", APIVersion: "v3", Metadata: CCEMetadata{Name: current.Metadata.Name}, Spec: spec}
	var pool CCENodePool
	if err := c.do(ctx, request{op: op, service: ServiceCCE, method: http.MethodPut, path: nodePoolPath(p, clusterID, id), body: body, projectID: p}, &pool); err != nil {
		return nil, err
	}
	return &pool, nil
}

// DeleteCCENodePool starts a node pool's deletion (phase Deleting until it
// answers 404); IsNotFound(err) when it was gone already.
func (c *Client) DeleteCCENodePool(ctx context.Context, clusterID, id string) error {
	const op = "delete CCE node pool"
	if err := requireID(op, "cluster id", clusterID); err != nil {
		return err
	}
	if err := requireID(op, "node pool id", id); err != nil {
		return err
	}
	p, err := c.projectFor(ctx, op)
	if err != nil {
		return err
	}
	return c.do(ctx, request{op: op, service: ServiceCCE, method: http.MethodDelete, path: nodePoolPath(p, clusterID, id), projectID: p}, nil)
}
