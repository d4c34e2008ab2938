// Package terraformed imitates what upjet adds on top of crossplane-runtime
// for provider-opentelekomcloud's resources, which the simulator cannot run:
// Terraform's create, refresh, update and destroy of one OTC object, run
// asynchronously as upjet's workspaces run them, with upjet's
// AsyncOperation and LastAsyncOperation conditions, its refusal of changes
// Terraform would replace the object for, and the external name recorded
// from the ID Terraform's state holds. Everything else, the reconcile loop,
// finalizer, critical annotations, management policies, connection
// publishing and ProviderConfig usage, is crossplane-runtime's own.
package terraformed

import (
	"context"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/otc"
)

// Phase is where OTC's side of an existing object stands, as the Terraform
// waits of its kind see it.
type Phase int

const (
	// Settling: OTC still works on it (VPC CREATING, cluster Creating, node pool Synchronizing).
	Settling Phase = iota
	// Settled: in the state Terraform's create and update wait for.
	Settled
	// Failed: in a state Terraform's wait fails on (node pool SoldOut or Error).
	Failed
	// Deleting: OTC is deleting it.
	Deleting
)

// State is Terraform's refresh of one existing object.
type State struct {
	Phase Phase
	// Failure says why the phase is Failed, in Terraform's words.
	Failure string
	// AtProvider is status.atProvider: the observed values and the
	// arguments echoed as Terraform's state keeps them.
	AtProvider apis.Parameters
	// Reported are forProvider's arguments as OTC reports them: what a plan
	// compares the spec with.
	Reported apis.Parameters
	// FollowUp is what Terraform's create does next once OTC's part is done
	// (ClusterV3: bind the master EIP); the create waits for it.
	FollowUp func(ctx context.Context, c *otc.Client) error
}

// Resource is one Terraform resource type, as the simulator runs it against OTC.
type Resource struct {
	// ForceNew are the arguments Terraform replaces the object for
	// (snake_case; "*" for a list index; a list or block covers all below it).
	ForceNew map[string]bool
	// InPlace are the arguments Update changes in place; others are not simulated.
	InPlace map[string]bool
	// IDWhenSettled: Terraform records the ID only after the create's wait
	// (ClusterV3), so an MR whose create is cut short has no external name.
	IDWhenSettled bool

	// WaitBeforeCreate says what Terraform's create waits for before it
	// orders anything (NodePoolV3: its cluster to be Available), "" once
	// nothing; an error fails the create.
	WaitBeforeCreate func(ctx context.Context, c *otc.Client, p apis.Parameters) (string, error)
	// Create orders the object and returns its ID.
	Create func(ctx context.Context, c *otc.Client, p apis.Parameters) (string, error)
	// Read refreshes the object; nil once OTC no longer has it. previous is
	// the MR's last atProvider.
	Read func(ctx context.Context, c *otc.Client, id string, p, previous apis.Parameters) (*State, error)
	// Update applies in-place changes.
	Update func(ctx context.Context, c *otc.Client, id string, p apis.Parameters, changes []Change) error
	// Delete starts the deletion; OTC may keep the object a while.
	Delete func(ctx context.Context, c *otc.Client, id string, p apis.Parameters) error
}
