package terraformed

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// OperationKind names the asynchronous operation upjet runs.
type OperationKind string

// The operations an external client starts.
const (
	OperationCreate OperationKind = "create"
	OperationUpdate OperationKind = "update"
	OperationDelete OperationKind = "delete"
)

// An operation is one asynchronous create, update or delete of one MR:
// upjet's operation tracker, reduced to what the simulator runs. Terraform
// records the ID as soon as it has one (ID), which for some resources is
// before the operation ends.
type operation struct {
	kind    OperationKind
	running bool
	err     error
	id      string
	ended   time.Time
}

// Operations remember, per MR, the last asynchronous operation and the ID
// Terraform's state holds. Like upjet's, they live in the process only: a
// restart forgets them, and the next observation starts from the external
// name alone.
type Operations struct {
	mu  sync.Mutex
	ops map[types.UID]*operation
}

// NewOperations returns an empty store.
func NewOperations() *Operations {
	return &Operations{ops: map[types.UID]*operation{}}
}

// Start records that kind began for uid, unless an operation is running
// already; it reports whether it started.
func (o *Operations) Start(uid types.UID, kind OperationKind) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	current := o.ops[uid]
	if current != nil && current.running {
		return false
	}
	next := &operation{kind: kind, running: true}
	if current != nil {
		next.id = current.id
	}
	o.ops[uid] = next
	return true
}

// RecordID keeps the ID Terraform's state now has.
func (o *Operations) RecordID(uid types.UID, id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if op := o.ops[uid]; op != nil {
		op.id = id
	}
}

// End records how the running operation ended.
func (o *Operations) End(uid types.UID, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if op := o.ops[uid]; op != nil {
		op.running = false
		op.err = err
		op.ended = time.Now()
	}
}

// Snapshot is what Observe needs of the last operation.
type Snapshot struct {
	Known   bool
	Kind    OperationKind
	Running bool
	Err     error
	ID      string
}

// Get returns the last operation of uid.
func (o *Operations) Get(uid types.UID) Snapshot {
	o.mu.Lock()
	defer o.mu.Unlock()
	op := o.ops[uid]
	if op == nil {
		return Snapshot{}
	}
	return Snapshot{Known: true, Kind: op.kind, Running: op.running, Err: op.err, ID: op.id}
}

// Forget drops what is kept of uid, once its MR is gone.
func (o *Operations) Forget(uid types.UID) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.ops, uid)
}
