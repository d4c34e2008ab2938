package terraformed

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/otc"
)

// Timing of the asynchronous operations.
type Timing struct {
	// Poll is how often a running operation asks OTC where it stands
	// (Terraform's waits poll every few seconds).
	Poll time.Duration
	// Timeout bounds one operation, as upjet's async timeout does.
	Timeout time.Duration
}

// Engine runs one kind's operations; one per kind, shared by its external clients.
type Engine[K apis.Kind] struct {
	Resource   *Resource
	Operations *Operations
	// Kube writes how an operation ended; Reader reads the MR first from
	// the API server, not from a cache that may lag the reconciler's writes.
	Kube   client.Client
	Reader client.Reader
	Timing Timing
	Log    logging.Logger
	// Ended asks for a reconcile of the MR whose operation ended, as
	// upjet's callbacks do: the status write alone wakes nothing, since the
	// controller only reacts to changes of the desired state.
	Ended func(key client.ObjectKey)
}

// External is the external client of one MR, connected with its credentials.
type External[K apis.Kind] struct {
	engine *Engine[K]
	otc    *otc.Client
}

// Connected returns the external client that works with c.
func (e *Engine[K]) Connected(c *otc.Client) *External[K] {
	return &External[K]{engine: e, otc: c}
}

// Observe is Terraform's refresh. While an operation runs it reports the
// object as existing and up to date without asking OTC, as upjet does.
func (x *External[K]) Observe(ctx context.Context, mg *apis.Managed[K]) (managed.ExternalObservation, error) {
	e := x.engine
	last := e.Operations.Get(mg.GetUID())
	if last.Running {
		mg.SetConditions(asyncOngoing())
		return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
	}
	mg.SetConditions(asyncFinished())

	id := meta.GetExternalName(mg)
	lateInitialized := false
	if id == "" && last.ID != "" {
		// Terraform's state has the ID the MR does not show yet.
		meta.SetExternalName(mg, last.ID)
		id, lateInitialized = last.ID, true
	}
	if id == "" {
		return managed.ExternalObservation{}, nil
	}
	state, err := e.Resource.Read(ctx, x.otc, id, mg.CreateParameters(), mg.Status.AtProvider)
	if err != nil {
		return managed.ExternalObservation{}, fmt.Errorf("cannot run refresh: %w", err)
	}
	if state == nil {
		if meta.WasDeleted(mg) {
			e.Operations.Forget(mg.GetUID())
		}
		return managed.ExternalObservation{}, nil
	}
	mg.Status.AtProvider = state.AtProvider
	// Upjet calls an object Available as soon as Terraform's state has it.
	mg.SetConditions(xpv1.Available())
	if meta.WasDeleted(mg) {
		return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
	}
	changes := Changes(mg.Spec.ForProvider, state.Reported)
	return managed.ExternalObservation{
		ResourceExists:          true,
		ResourceUpToDate:        len(changes) == 0,
		ResourceLateInitialized: lateInitialized,
	}, nil
}

// Create starts Terraform's apply of a new object and returns at once.
func (x *External[K]) Create(_ context.Context, mg *apis.Managed[K]) (managed.ExternalCreation, error) {
	e := x.engine
	if !e.Operations.Start(mg.GetUID(), OperationCreate) {
		return managed.ExternalCreation{}, nil
	}
	mg.SetConditions(asyncOngoing())
	parameters := mg.CreateParameters()
	uid := mg.GetUID()
	e.run(mg, OperationCreate, func(ctx context.Context) error {
		return x.create(ctx, uid, parameters)
	})
	return managed.ExternalCreation{}, nil
}

func (x *External[K]) create(ctx context.Context, uid types.UID, p apis.Parameters) error {
	e := x.engine
	if e.Resource.WaitBeforeCreate != nil {
		err := x.poll(ctx, func() (bool, error) {
			waiting, err := e.Resource.WaitBeforeCreate(ctx, x.otc, p)
			return waiting == "", err
		})
		if err != nil {
			return err
		}
	}
	id, err := e.Resource.Create(ctx, x.otc, p)
	if err != nil {
		return err
	}
	if !e.Resource.IDWhenSettled {
		e.Operations.RecordID(uid, id)
	}
	if err := x.settle(ctx, id, p); err != nil {
		return err
	}
	e.Operations.RecordID(uid, id)
	return nil
}

// settle waits as Terraform's create and update do, until OTC's object is
// in the state they wait for, running follow-ups on the way.
func (x *External[K]) settle(ctx context.Context, id string, p apis.Parameters) error {
	return x.poll(ctx, func() (bool, error) {
		state, err := x.engine.Resource.Read(ctx, x.otc, id, p, nil)
		switch {
		case err != nil:
			return false, err
		case state == nil:
			return false, errors.New("the object disappeared while waiting for it")
		case state.Phase == Failed:
			return false, errors.New(state.Failure)
		case state.Phase == Deleting:
			return false, errors.New("the object is being deleted")
		case state.Phase == Settled && state.FollowUp != nil:
			return false, state.FollowUp(ctx, x.otc)
		default:
			return state.Phase == Settled, nil
		}
	})
}

// Update applies in-place changes asynchronously; a change Terraform would
// replace the object for is refused, as upjet refuses it.
func (x *External[K]) Update(ctx context.Context, mg *apis.Managed[K]) (managed.ExternalUpdate, error) {
	e := x.engine
	id := meta.GetExternalName(mg)
	state, err := e.Resource.Read(ctx, x.otc, id, mg.CreateParameters(), mg.Status.AtProvider)
	if err != nil || state == nil {
		return managed.ExternalUpdate{}, fmt.Errorf("cannot run refresh: %w", errors.Join(err, errIfGone(state)))
	}
	changes := Changes(mg.Spec.ForProvider, state.Reported)
	for _, change := range changes {
		if Matches(e.Resource.ForceNew, change.Argument) {
			return managed.ExternalUpdate{}, fmt.Errorf("refuse to update the external resource because the following update requires replacing it: %s", ForceNewMessage(change))
		}
		if !Matches(e.Resource.InPlace, change.Argument) {
			return managed.ExternalUpdate{}, fmt.Errorf("the simulator does not update the argument %q in place", change.Argument)
		}
	}
	if len(changes) == 0 || !e.Operations.Start(mg.GetUID(), OperationUpdate) {
		return managed.ExternalUpdate{}, nil
	}
	mg.SetConditions(asyncOngoing())
	parameters := mg.CreateParameters()
	desired := mg.Spec.ForProvider.DeepCopy()
	e.run(mg, OperationUpdate, func(ctx context.Context) error {
		if err := e.Resource.Update(ctx, x.otc, id, desired, changes); err != nil {
			return err
		}
		return x.settle(ctx, id, parameters)
	})
	return managed.ExternalUpdate{}, nil
}

func errIfGone(state *State) error {
	if state == nil {
		return errors.New("the object is gone")
	}
	return nil
}

// Delete starts Terraform's destroy, which waits until OTC no longer has
// the object; a destroy already running is left alone.
func (x *External[K]) Delete(_ context.Context, mg *apis.Managed[K]) (managed.ExternalDelete, error) {
	e := x.engine
	id := meta.GetExternalName(mg)
	if id == "" || !e.Operations.Start(mg.GetUID(), OperationDelete) {
		return managed.ExternalDelete{}, nil
	}
	mg.SetConditions(asyncOngoing())
	parameters := mg.CreateParameters()
	e.run(mg, OperationDelete, func(ctx context.Context) error {
		if err := e.Resource.Delete(ctx, x.otc, id, parameters); err != nil && !otc.IsNotFound(err) {
			return err
		}
		return x.poll(ctx, func() (bool, error) {
			state, err := e.Resource.Read(ctx, x.otc, id, parameters, nil)
			return state == nil && err == nil, err
		})
	})
	return managed.ExternalDelete{}, nil
}

// Disconnect keeps the OTC client: it is shared by every MR with the same credentials.
func (x *External[K]) Disconnect(context.Context) error { return nil }

// poll calls done until it reports true, fails, or ctx ends.
func (x *External[K]) poll(ctx context.Context, done func() (bool, error)) error {
	ticker := time.NewTicker(x.engine.Timing.Poll)
	defer ticker.Stop()
	for {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-ticker.C:
		}
	}
}

// run does op in the background, bounded by the async timeout, and then
// reports how it ended on the MR as upjet's callbacks do: the external name
// Terraform's state now holds, LastAsyncOperation, Synced and
// AsyncOperation; and asks for a reconcile of it.
func (e *Engine[K]) run(mg *apis.Managed[K], kind OperationKind, op func(ctx context.Context) error) {
	uid, key := mg.GetUID(), client.ObjectKeyFromObject(mg)
	go func() {
		ctx, cancel := context.WithTimeoutCause(context.Background(), e.Timing.Timeout,
			fmt.Errorf("the %s did not finish within %s", kind, e.Timing.Timeout))
		defer cancel()
		err := op(ctx)
		if err != nil {
			err = fmt.Errorf("%s failed: %w", terraformCommand(kind), err)
		}
		e.Operations.End(uid, err)
		if err := e.report(key, uid, kind, err); err != nil {
			e.Log.Info("Cannot report the end of an asynchronous operation", "kind", kind, "name", key, "error", err)
		}
		if e.Ended != nil {
			e.Ended(key)
		}
	}()
}

func terraformCommand(kind OperationKind) string {
	if kind == OperationDelete {
		return "destroy"
	}
	return "apply"
}

// report writes how an operation ended onto the MR.
func (e *Engine[K]) report(key client.ObjectKey, uid types.UID, kind OperationKind, opErr error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id := e.Operations.Get(uid).ID
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		current := &apis.Managed[K]{}
		if err := e.Reader.Get(ctx, key, current); err != nil {
			return client.IgnoreNotFound(err)
		}
		if current.GetUID() != uid {
			return nil
		}
		if id != "" && meta.GetExternalName(current) == "" {
			before := current.DeepCopy()
			meta.SetExternalName(current, id)
			if err := e.Kube.Patch(ctx, current, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
				return err
			}
		}
		before := current.DeepCopy()
		synced := xpv1.ReconcileSuccess()
		if opErr != nil {
			synced = xpv1.ReconcileError(fmt.Errorf("%s failed: %w", kind, opErr))
		}
		current.SetConditions(lastAsync(kind, opErr), synced.WithObservedGeneration(current.GetGeneration()), asyncFinished())
		return e.Kube.Status().Patch(ctx, current, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{}))
	})
}
