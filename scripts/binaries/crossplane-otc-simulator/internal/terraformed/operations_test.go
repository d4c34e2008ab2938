package terraformed

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

func TestOperationsLifecycle(t *testing.T) {
	ops := NewOperations()
	const uid = types.UID("uid-1")

	if got := ops.Get(uid); got != (Snapshot{}) {
		t.Fatalf("unknown uid: got %+v", got)
	}
	// Recording or ending nothing does not invent an operation.
	ops.RecordID(uid, "ignored")
	ops.End(uid, errors.New("ignored"))
	if got := ops.Get(uid); got.Known {
		t.Fatalf("RecordID/End without Start made %+v", got)
	}

	if !ops.Start(uid, OperationCreate) {
		t.Fatal("the first Start refused")
	}
	if got := ops.Get(uid); got != (Snapshot{Known: true, Kind: OperationCreate, Running: true}) {
		t.Fatalf("after Start: %+v", got)
	}
	for _, kind := range []OperationKind{OperationCreate, OperationUpdate, OperationDelete} {
		if ops.Start(uid, kind) {
			t.Fatalf("Start(%s) while an operation runs", kind)
		}
	}
	if got := ops.Get(uid); got.Kind != OperationCreate || !got.Running {
		t.Fatalf("a refused Start changed the operation: %+v", got)
	}

	ops.RecordID(uid, "id-1")
	if got := ops.Get(uid); got.ID != "id-1" || !got.Running {
		t.Fatalf("after RecordID: %+v", got)
	}

	failure := errors.New("boom")
	ops.End(uid, failure)
	got := ops.Get(uid)
	if got.Running || got.Err != failure || got.ID != "id-1" || got.Kind != OperationCreate || !got.Known {
		t.Fatalf("after End: %+v", got)
	}

	// The ID outlives its operation; the error does not.
	if !ops.Start(uid, OperationUpdate) {
		t.Fatal("Start after End refused")
	}
	if got := ops.Get(uid); got != (Snapshot{Known: true, Kind: OperationUpdate, Running: true, ID: "id-1"}) {
		t.Fatalf("second operation: %+v", got)
	}
	ops.End(uid, nil)
	if !ops.Start(uid, OperationDelete) {
		t.Fatal("third Start refused")
	}
	if got := ops.Get(uid); got.ID != "id-1" || got.Kind != OperationDelete || got.Err != nil {
		t.Fatalf("third operation: %+v", got)
	}
	ops.End(uid, nil)

	ops.Forget(uid)
	if got := ops.Get(uid); got != (Snapshot{}) {
		t.Fatalf("after Forget: %+v", got)
	}
	// Forgetting twice, or an unknown uid, is harmless.
	ops.Forget(uid)
	ops.Forget("never-seen")

	if !ops.Start(uid, OperationCreate) {
		t.Fatal("Start after Forget refused")
	}
	if got := ops.Get(uid); got.ID != "" {
		t.Fatalf("Forget kept the ID: %+v", got)
	}
}

func TestOperationsKeepMRsApart(t *testing.T) {
	ops := NewOperations()
	if !ops.Start("a", OperationCreate) || !ops.Start("b", OperationCreate) {
		t.Fatal("one MR's operation blocked another's")
	}
	ops.RecordID("a", "id-a")
	ops.End("b", errors.New("b failed"))
	if a := ops.Get("a"); !a.Running || a.ID != "id-a" || a.Err != nil {
		t.Fatalf("a: %+v", a)
	}
	if b := ops.Get("b"); b.Running || b.ID != "" || b.Err == nil {
		t.Fatalf("b: %+v", b)
	}
	ops.Forget("a")
	if !ops.Get("b").Known {
		t.Fatal("forgetting a forgot b")
	}
}

func TestOperationsConcurrentStart(t *testing.T) {
	ops := NewOperations()
	const uid = types.UID("contended")
	const workers = 32
	var started atomic.Int32
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ops.Start(uid, OperationCreate) {
				started.Add(1)
			}
		}()
	}
	wg.Wait()
	if started.Load() != 1 {
		t.Fatalf("%d concurrent Starts succeeded, want 1", started.Load())
	}
}

func TestOperationsConcurrentUse(t *testing.T) {
	ops := NewOperations()
	var wg sync.WaitGroup
	for i := range 16 {
		uid := types.UID(fmt.Sprintf("uid-%d", i%4))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				if ops.Start(uid, OperationKind(fmt.Sprint(j%3))) {
					ops.RecordID(uid, string(uid))
					_ = ops.Get(uid)
					ops.End(uid, nil)
				}
				_ = ops.Get(uid)
				if j%50 == 49 {
					ops.Forget(uid)
				}
			}
		}()
	}
	wg.Wait()
	for i := range 4 {
		uid := types.UID(fmt.Sprintf("uid-%d", i))
		if got := ops.Get(uid); got.Running {
			t.Fatalf("%s still running: %+v", uid, got)
		}
	}
}
