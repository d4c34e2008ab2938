package resources

import (
	"context"
	"fmt"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/otc"
	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

// nodePool is opentelekomcloud_cce_node_pool_v3. Terraform waits for the
// cluster to be Available, orders the pool, records its ID at once, then
// waits from Synchronizing/Synchronized to the normal (empty) phase;
// SoldOut or Error fail that wait after the ID is recorded, so the MR reads
// Available with its last operation failed. initialNodeCount scales in
// place; the node template forces a new pool. It has no region: it lives
// where its cluster does.
var nodePool = &terraformed.Resource{
	ForceNew: terraformed.Set("cluster_id", "flavor", "availability_zone", "os", "key_pair", "root_volume", "data_volumes", "runtime"),
	InPlace:  terraformed.Set("initial_node_count"),
	WaitBeforeCreate: func(ctx context.Context, c *otc.Client, p apis.Parameters) (string, error) {
		clusterID, err := requiredString(p, "clusterId")
		if err != nil {
			return "", err
		}
		cl, err := c.GetCCECluster(ctx, clusterID)
		if otc.IsNotFound(err) {
			return "", fmt.Errorf("error waiting for CCE cluster %s to become available: the cluster does not exist", clusterID)
		}
		if err != nil {
			return "", err
		}
		if cl.Status != nil && cl.Status.Phase == "Available" {
			return "", nil
		}
		return fmt.Sprintf("CCE cluster %s to become Available", clusterID), nil
	},
	Create: createNodePool,
	Read:   readNodePool,
	Update: func(ctx context.Context, c *otc.Client, id string, p apis.Parameters, _ []terraformed.Change) error {
		clusterID, err := requiredString(p, "clusterId")
		if err != nil {
			return err
		}
		count, ok := numberParam(p, "initialNodeCount")
		if !ok {
			return missing("initial_node_count")
		}
		_, err = c.UpdateCCENodePool(ctx, clusterID, id, otc.UpdateCCENodePoolOpts{InitialNodeCount: &count})
		return err
	},
	Delete: func(ctx context.Context, c *otc.Client, id string, p apis.Parameters) error {
		clusterID, err := requiredString(p, "clusterId")
		if err != nil {
			return err
		}
		return c.DeleteCCENodePool(ctx, clusterID, id)
	},
}

func createNodePool(ctx context.Context, c *otc.Client, p apis.Parameters) (string, error) {
	clusterID, err := requiredString(p, "clusterId")
	if err != nil {
		return "", err
	}
	count, ok := numberParam(p, "initialNodeCount")
	if !ok {
		return "", missing("initial_node_count")
	}
	roots := volumes(p, "rootVolume")
	if len(roots) == 0 {
		return "", missing("root_volume")
	}
	template := otc.CCENodeTemplate{
		AZ:          stringParam(p, "availabilityZone"),
		OS:          stringParam(p, "os"),
		RootVolume:  roots[0],
		DataVolumes: volumes(p, "dataVolumes"),
	}
	if template.AZ == "" {
		template.AZ = "random"
	}
	if runtime := stringParam(p, "runtime"); runtime != "" {
		template.Runtime = &otc.CCERuntime{Name: runtime}
	}
	if template.Flavor, err = requiredString(p, "flavor"); err != nil {
		return "", err
	}
	if template.Login.SSHKey, err = requiredString(p, "keyPair"); err != nil {
		return "", err
	}
	name, err := requiredString(p, "name")
	if err != nil {
		return "", err
	}
	created, err := c.CreateCCENodePool(ctx, clusterID, otc.CreateCCENodePoolOpts{
		Metadata: otc.CCEMetadata{Name: name},
		Spec:     otc.CCENodePoolSpec{Type: "vm", InitialNodeCount: count, NodeTemplate: template},
	})
	if err != nil {
		return "", err
	}
	return created.Metadata.UID, nil
}

func readNodePool(ctx context.Context, c *otc.Client, id string, p, _ apis.Parameters) (*terraformed.State, error) {
	clusterID, err := requiredString(p, "clusterId")
	if err != nil {
		return nil, err
	}
	pool, err := c.GetCCENodePool(ctx, clusterID, id)
	if otc.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	phase := ""
	if pool.Status != nil {
		phase = pool.Status.Phase
	}
	t := pool.Spec.NodeTemplate
	reported := defined(map[string]any{
		"name":             pool.Metadata.Name,
		"clusterId":        clusterID,
		"flavor":           t.Flavor,
		"initialNodeCount": number(pool.Spec.InitialNodeCount),
		"os":               t.OS,
		"keyPair":          t.Login.SSHKey,
		"rootVolume":       []any{volumeParameters(t.RootVolume)},
	})
	// "random" lets CCE pick a zone per scale-out: whatever zone it names is what was asked for.
	if stringParam(p, "availabilityZone") != "random" {
		reported["availabilityZone"] = t.AZ
	}
	if t.Runtime != nil {
		reported["runtime"] = t.Runtime.Name
	}
	dataVolumes := []any{}
	for _, volume := range t.DataVolumes {
		dataVolumes = append(dataVolumes, volumeParameters(volume))
	}
	reported["dataVolumes"] = dataVolumes
	state := &terraformed.State{
		AtProvider: observed(p, merge(reported, map[string]any{"id": pool.Metadata.UID})),
		Reported:   reported,
	}
	// The normal phase is the empty string, which Terraform's state keeps as such.
	state.AtProvider["status"] = phase
	switch phase {
	case "":
		state.Phase = terraformed.Settled
	case "Synchronizing", "Synchronized":
		state.Phase = terraformed.Settling
	case "Deleting":
		state.Phase = terraformed.Deleting
	default:
		state.Phase = terraformed.Failed
		state.Failure = fmt.Sprintf("error waiting for Open Telekom Cloud CCE Node Pool to become available: unexpected state '%s', wanted target ''", phase)
	}
	return state, nil
}

func volumeParameters(v otc.CCEVolume) map[string]any {
	return map[string]any{"size": number(v.Size), "volumetype": v.VolumeType}
}

// volumes are rootVolume or dataVolumes as CCE takes them; entries without
// size or type are left out for CCE to refuse.
func volumes(p apis.Parameters, name string) []otc.CCEVolume {
	list, _ := p[name].([]any)
	var out []otc.CCEVolume
	for _, entry := range list {
		block, _ := entry.(map[string]any)
		size, okSize := numberParam(block, "size")
		volumeType := stringParam(block, "volumetype")
		if okSize && volumeType != "" {
			out = append(out, otc.CCEVolume{Size: size, VolumeType: volumeType})
		}
	}
	return out
}
