package resources

import (
	"context"
	"fmt"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/otc"
	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

// certificateDays is how long the client certificate the refresh asks CCE
// for is valid.
const certificateDays = 1

// cluster is opentelekomcloud_cce_cluster_v3. Terraform's create orders the
// cluster, waits until it is Available, binds the master EIP named by its
// address (eip), and only then records the cluster's ID. Nearly every
// argument forces a new cluster.
//
// Every refresh fills certificateClusters and certificateUsers from the
// cluster's kubeconfig unless ignoreCertificateClustersData /
// ignoreCertificateUsersData say not to (the client key in plain status);
// a failed read leaves them out, as Terraform only logs it. The simulator
// asks CCE for a certificate once per set of endpoints and keeps it in
// status after that, where Terraform reads it on every refresh.
var cluster = &terraformed.Resource{
	ForceNew: terraformed.Set("name", "cluster_type", "flavor_id", "cluster_version", "vpc_id", "subnet_id",
		"container_network_type", "container_network_cidr", "authentication_mode", "masters", "multi_az", "region"),
	IDWhenSettled: true,
	Create:        createCluster,
	Read:          readCluster,
	Delete: func(ctx context.Context, c *otc.Client, id string, p apis.Parameters) error {
		return c.DeleteCCECluster(ctx, id, otc.CCEClusterDeletion{
			DeleteEVS: deleteChoice(p, "deleteEvs"),
			DeleteNet: deleteChoice(p, "deleteNet"),
			DeleteOBS: deleteChoice(p, "deleteObs"),
			DeleteSFS: deleteChoice(p, "deleteSfs"),
			DeleteEFS: deleteChoice(p, "deleteEfs"),
		})
	},
}

func deleteChoice(p apis.Parameters, name string) string {
	switch value := stringParam(p, name); value {
	case "true", "try", "false":
		return value
	default:
		return ""
	}
}

func createCluster(ctx context.Context, c *otc.Client, p apis.Parameters) (string, error) {
	spec := otc.CCEClusterSpec{
		Version:          stringParam(p, "clusterVersion"),
		Description:      stringParam(p, "description"),
		ContainerNetwork: otc.CCEContainerNetwork{CIDR: stringParam(p, "containerNetworkCidr")},
		Authentication:   &otc.CCEAuthentication{Mode: stringParam(p, "authenticationMode")},
	}
	if spec.Authentication.Mode == "" {
		spec.Authentication.Mode = "rbac"
	}
	if mode, ok := numberParam(p, "billingMode"); ok {
		spec.BillingMode = mode
	}
	for _, required := range []struct {
		name string
		to   *string
	}{
		{"clusterType", &spec.Type},
		{"flavorId", &spec.Flavor},
		{"vpcId", &spec.HostNetwork.VPC},
		{"subnetId", &spec.HostNetwork.Subnet},
		{"containerNetworkType", &spec.ContainerNetwork.Mode},
	} {
		value, err := requiredString(p, required.name)
		if err != nil {
			return "", err
		}
		*required.to = value
	}
	if masters, ok := p["masters"].([]any); ok {
		for _, master := range masters {
			zone, _ := master.(map[string]any)["availabilityZone"].(string)
			spec.Masters = append(spec.Masters, otc.CCEMaster{AvailabilityZone: zone})
		}
	}
	name, err := requiredString(p, "name")
	if err != nil {
		return "", err
	}
	created, err := c.CreateCCECluster(ctx, otc.CreateCCEClusterOpts{Metadata: otc.CCEMetadata{Name: name}, Spec: spec})
	if err != nil {
		return "", err
	}
	return created.Metadata.UID, nil
}

func readCluster(ctx context.Context, c *otc.Client, id string, p, previous apis.Parameters) (*terraformed.State, error) {
	cl, err := c.GetCCECluster(ctx, id)
	if otc.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	phase := ""
	if cl.Status != nil {
		phase = cl.Status.Phase
	}
	internal, external := endpoint(cl, "Internal"), endpoint(cl, "External")
	reported := defined(map[string]any{
		"name":                 cl.Metadata.Name,
		"clusterType":          cl.Spec.Type,
		"flavorId":             cl.Spec.Flavor,
		"vpcId":                cl.Spec.HostNetwork.VPC,
		"subnetId":             cl.Spec.HostNetwork.Subnet,
		"containerNetworkType": cl.Spec.ContainerNetwork.Mode,
		"containerNetworkCidr": cl.Spec.ContainerNetwork.CIDR,
		"region":               c.Region(),
	})
	if cl.Spec.Authentication != nil && cl.Spec.Authentication.Mode != "" {
		reported["authenticationMode"] = cl.Spec.Authentication.Mode
	}
	values := merge(reported, map[string]any{"id": cl.Metadata.UID, "status": phase, "internal": internal, "external": external})
	if cl.Spec.Version != "" {
		values["clusterVersion"] = cl.Spec.Version
	}
	state := &terraformed.State{Reported: reported}
	state.Phase, state.Failure = clusterPhase(phase)
	address := stringParam(p, "eip")
	if state.Phase == terraformed.Settled && address != "" && external == "" {
		state.FollowUp = func(ctx context.Context, c *otc.Client) error { return bindEIP(ctx, c, id, address) }
	}
	if phase == "Available" && state.FollowUp == nil {
		for key, value := range certificateData(ctx, c, id, p, previous, internal, external) {
			values[key] = value
		}
	}
	state.AtProvider = observed(p, values)
	return state, nil
}

// clusterPhase: Terraform's create waits from Creating to Available, its
// delete from Deleting to gone.
func clusterPhase(phase string) (terraformed.Phase, string) {
	switch phase {
	case "Available":
		return terraformed.Settled, ""
	case "Creating", "Upgrading", "ScalingUp", "ScalingDown":
		return terraformed.Settling, ""
	case "Deleting":
		return terraformed.Deleting, ""
	default:
		return terraformed.Failed, fmt.Sprintf("error waiting for Open Telekom Cloud CCE cluster to become available: unexpected state '%s', wanted target 'Available'", phase)
	}
}

// endpoint is the endpoint's URL (https://192.168.0.10:5443), as Terraform's
// internal and external give it.
func endpoint(cl *otc.CCECluster, kind string) string {
	if cl.Status == nil {
		return ""
	}
	for _, candidate := range cl.Status.Endpoints {
		if candidate.Type == kind {
			return candidate.URL
		}
	}
	return ""
}

func bindEIP(ctx context.Context, c *otc.Client, clusterID, address string) error {
	eips, err := c.ListPublicIPs(ctx)
	if err != nil {
		return err
	}
	for _, candidate := range eips {
		if candidate.PublicIPAddress == address {
			return c.BindCCEMasterEIP(ctx, clusterID, candidate.ID)
		}
	}
	return fmt.Errorf("error binding EIP %s to the cluster: no EIP with this address", address)
}

// certificateData are certificateClusters and certificateUsers as far as
// the ignore flags allow: kept from the previous status when it has them
// for these endpoints, else from a new kubeconfig.
func certificateData(ctx context.Context, c *otc.Client, id string, p, previous apis.Parameters, internal, external string) map[string]any {
	ignoreClusters, _ := boolParam(p, "ignoreCertificateClustersData")
	ignoreUsers, _ := boolParam(p, "ignoreCertificateUsersData")
	wantClusters, wantUsers := !ignoreClusters, !ignoreUsers
	out := map[string]any{}
	if !wantClusters && !wantUsers {
		return out
	}
	if previous != nil && stringParam(previous, "internal") == internal && stringParam(previous, "external") == external {
		clusters, haveClusters := previous["certificateClusters"].([]any)
		users, haveUsers := previous["certificateUsers"].([]any)
		if (!wantClusters || haveClusters) && (!wantUsers || haveUsers) {
			if wantClusters {
				out["certificateClusters"] = clusters
			}
			if wantUsers {
				out["certificateUsers"] = users
			}
			return out
		}
	}
	kubeconfig, err := c.GetCCEClusterCert(ctx, id, certificateDays)
	if err != nil {
		// Terraform logs a failed certificate read and refreshes without it.
		return out
	}
	if wantClusters {
		clusters := []any{}
		for _, entry := range kubeconfig.Clusters {
			clusters = append(clusters, map[string]any(defined(map[string]any{"name": entry.Name, "server": entry.Cluster.Server, "certificateAuthorityData": entry.Cluster.CertificateAuthorityData})))
		}
		out["certificateClusters"] = clusters
	}
	if wantUsers {
		users := []any{}
		for _, entry := range kubeconfig.Users {
			users = append(users, map[string]any(defined(map[string]any{"name": entry.Name, "clientCertificateData": entry.User.ClientCertificateData, "clientKeyData": entry.User.ClientKeyData})))
		}
		out["certificateUsers"] = users
	}
	return out
}
