package terraformed

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/otc"
)

// The tests run the engine for one kind; which one does not matter.
type testKind = apis.VpcV1

type mr = apis.Managed[testKind]

const (
	testNamespace = "team-a"
	testName      = "net"
	testUID       = types.UID("4f1c0d7e-uid")
)

// fastTiming polls every millisecond and gives operations plenty of time.
var fastTiming = Timing{Poll: time.Millisecond, Timeout: 20 * time.Second}

// fakeObject is OTC's side of one object, as a fake Resource sees it.
type fakeObject struct {
	mu       sync.Mutex
	exists   bool
	phase    Phase
	failure  string
	reported apis.Parameters
	readErr  error

	createID  string
	createErr error
	// createGate, when set, holds Create until it is closed.
	createGate chan struct{}
	waitErr    error

	updateErr   error
	updateGate  chan struct{}
	lastChanges []Change
	lastDesired apis.Parameters
	// afterUpdate is what OTC reports once an update went through.
	afterUpdate apis.Parameters

	deleteErr error
	// vanishOnDelete makes Delete remove the object at once.
	vanishOnDelete bool
	// createsNothing: OTC accepts the order but never shows the object.
	createsNothing bool
	// followUpPending: a settled object still needs a follow-up, which
	// fails with followUpErr or else is done.
	followUpPending bool
	followUpErr     error

	creates, updates, deletes, reads, waits, followUps atomic.Int32
	readIDs                                            []string
}

func newFakeObject() *fakeObject {
	return &fakeObject{createID: "id-1", phase: Settled, reported: apis.Parameters{"name": "a"}}
}

func (f *fakeObject) set(change func(f *fakeObject)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f)
}

func (f *fakeObject) resource(forceNew, inPlace map[string]bool, idWhenSettled bool) *Resource {
	return &Resource{
		ForceNew:      forceNew,
		InPlace:       inPlace,
		IDWhenSettled: idWhenSettled,
		WaitBeforeCreate: func(context.Context, *otc.Client, apis.Parameters) (string, error) {
			f.waits.Add(1)
			f.mu.Lock()
			defer f.mu.Unlock()
			return "", f.waitErr
		},
		Create: func(ctx context.Context, _ *otc.Client, _ apis.Parameters) (string, error) {
			f.creates.Add(1)
			f.mu.Lock()
			gate := f.createGate
			f.mu.Unlock()
			if gate != nil {
				select {
				case <-gate:
				case <-ctx.Done():
					return "", ctx.Err()
				}
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.createErr != nil {
				return "", f.createErr
			}
			f.exists = !f.createsNothing
			return f.createID, nil
		},
		Read: func(_ context.Context, _ *otc.Client, id string, _, _ apis.Parameters) (*State, error) {
			f.reads.Add(1)
			f.mu.Lock()
			defer f.mu.Unlock()
			f.readIDs = append(f.readIDs, id)
			if f.readErr != nil {
				return nil, f.readErr
			}
			if !f.exists {
				return nil, nil
			}
			state := &State{
				Phase:      f.phase,
				Failure:    f.failure,
				AtProvider: apis.Parameters{"id": id, "observed": true},
				Reported:   f.reported.DeepCopy(),
			}
			if f.followUpPending {
				state.FollowUp = func(context.Context, *otc.Client) error {
					f.followUps.Add(1)
					f.mu.Lock()
					defer f.mu.Unlock()
					if f.followUpErr != nil {
						return f.followUpErr
					}
					f.followUpPending = false
					return nil
				}
			}
			return state, nil
		},
		Update: func(ctx context.Context, _ *otc.Client, _ string, desired apis.Parameters, changes []Change) error {
			f.updates.Add(1)
			f.mu.Lock()
			gate := f.updateGate
			f.lastChanges, f.lastDesired = changes, desired
			f.mu.Unlock()
			if gate != nil {
				select {
				case <-gate:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.updateErr != nil {
				return f.updateErr
			}
			if f.afterUpdate != nil {
				f.reported = f.afterUpdate.DeepCopy()
			}
			return nil
		},
		Delete: func(context.Context, *otc.Client, string, apis.Parameters) error {
			f.deletes.Add(1)
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.deleteErr != nil {
				return f.deleteErr
			}
			if f.vanishOnDelete {
				f.exists = false
			}
			return nil
		},
	}
}

type harness struct {
	t     *testing.T
	kube  client.Client
	ops   *Operations
	ext   *External[testKind]
	key   client.ObjectKey
	ended <-chan client.ObjectKey
}

func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := apis.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// newMR is an MR as the API server would hand it over.
func newMR(forProvider apis.Parameters) *mr {
	return &mr{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: testName, UID: testUID, Generation: 3},
		Spec:       apis.ManagedSpec{ForProvider: forProvider},
	}
}

// newHarness runs res with a fake API server holding objects.
func newHarness(t *testing.T, res *Resource, timing Timing, funcs *interceptor.Funcs, objects ...client.Object) *harness {
	t.Helper()
	builder := fake.NewClientBuilder().
		WithScheme(newScheme(t)).
		WithStatusSubresource(&mr{}).
		WithObjects(objects...)
	if funcs != nil {
		builder = builder.WithInterceptorFuncs(*funcs)
	}
	kube := builder.Build()
	ops := NewOperations()
	ended := make(chan client.ObjectKey, 16)
	engine := &Engine[testKind]{
		Resource: res, Operations: ops, Kube: kube, Reader: kube, Timing: timing, Log: logging.NewNopLogger(),
		Ended: func(key client.ObjectKey) { ended <- key },
	}
	return &harness{
		t:     t,
		kube:  kube,
		ops:   ops,
		ended: ended,
		// The fake Resource never calls OTC.
		ext: engine.Connected(nil),
		key: client.ObjectKey{Namespace: testNamespace, Name: testName},
	}
}

// stored is the MR as the fake API server has it.
func (h *harness) stored() *mr {
	h.t.Helper()
	got := &mr{}
	if err := h.kube.Get(context.Background(), h.key, got); err != nil {
		h.t.Fatalf("get MR: %v", err)
	}
	return got
}

// waitReported waits until the end of an operation is written onto the MR.
func (h *harness) waitReported() *mr {
	h.t.Helper()
	var got *mr
	waitFor(h.t, "the end of the operation to be reported", func() bool {
		got = h.stored()
		return got.GetCondition(LastAsyncOperation).Reason != ""
	})
	waitFor(h.t, "the operation to end", func() bool { return !h.ops.Get(testUID).Running })
	select {
	case key := <-h.ended:
		if key != h.key {
			h.t.Fatalf("a reconcile was asked for %v, want %v", key, h.key)
		}
	case <-time.After(5 * time.Second):
		h.t.Fatal("no reconcile was asked for after the operation ended")
	}
	return got
}

func waitFor(t *testing.T, what string, condition func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !condition() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func checkCondition(t *testing.T, m *mr, ct xpv1.ConditionType, status corev1.ConditionStatus, reason xpv1.ConditionReason, message string) {
	t.Helper()
	c := m.GetCondition(ct)
	if c.Status != status || c.Reason != reason || !strings.Contains(c.Message, message) {
		t.Errorf("condition %s = %s/%s %q, want %s/%s containing %q", ct, c.Status, c.Reason, c.Message, status, reason, message)
	}
}

func TestObserveWithoutExternalName(t *testing.T) {
	f := newFakeObject()
	h := newHarness(t, f.resource(nil, nil, false), fastTiming, nil)
	m := newMR(apis.Parameters{"name": "a"})
	obs, err := h.ext.Observe(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(obs, managed.ExternalObservation{}) {
		t.Fatalf("got %+v, want a resource that does not exist", obs)
	}
	if f.reads.Load() != 0 {
		t.Fatal("Observe asked OTC without an ID")
	}
	checkCondition(t, m, AsyncOperation, corev1.ConditionTrue, reasonFinished, "")
}

func TestObserveExisting(t *testing.T) {
	cases := []struct {
		name        string
		forProvider apis.Parameters
		reported    apis.Parameters
		exists      bool
		readErr     error
		deleted     bool
		want        managed.ExternalObservation
		wantErr     string
	}{
		{
			name:        "up to date",
			forProvider: apis.Parameters{"name": "a"},
			reported:    apis.Parameters{"name": "a", "region": "eu-de"},
			exists:      true,
			want:        managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
		},
		{
			name:        "drifted",
			forProvider: apis.Parameters{"name": "b"},
			reported:    apis.Parameters{"name": "a"},
			exists:      true,
			want:        managed.ExternalObservation{ResourceExists: true},
		},
		{
			name:        "a deleted MR is not compared",
			forProvider: apis.Parameters{"name": "b"},
			reported:    apis.Parameters{"name": "a"},
			exists:      true,
			deleted:     true,
			want:        managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
		},
		{
			name:        "gone",
			forProvider: apis.Parameters{"name": "a"},
			want:        managed.ExternalObservation{},
		},
		{
			name:        "refresh fails",
			forProvider: apis.Parameters{"name": "a"},
			exists:      true,
			readErr:     errors.New("HTTP 500"),
			wantErr:     "cannot run refresh: HTTP 500",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeObject()
			f.exists, f.reported, f.readErr = tc.exists, tc.reported, tc.readErr
			h := newHarness(t, f.resource(nil, nil, false), fastTiming, nil)
			m := newMR(tc.forProvider)
			meta.SetExternalName(m, "id-7")
			if tc.deleted {
				now := metav1.Now()
				m.SetDeletionTimestamp(&now)
			}
			obs, err := h.ext.Observe(context.Background(), m)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(obs, tc.want) {
				t.Fatalf("got %+v, want %+v", obs, tc.want)
			}
			if !reflect.DeepEqual(f.readIDs, []string{"id-7"}) {
				t.Fatalf("read %v, want id-7", f.readIDs)
			}
			if tc.exists {
				if !reflect.DeepEqual(m.Status.AtProvider, apis.Parameters{"id": "id-7", "observed": true}) {
					t.Fatalf("atProvider %v", m.Status.AtProvider)
				}
				checkCondition(t, m, xpv1.TypeReady, corev1.ConditionTrue, xpv1.ReasonAvailable, "")
			}
		})
	}
}

func TestObserveLateInitializesTheIDTerraformHas(t *testing.T) {
	f := newFakeObject()
	f.exists = true
	h := newHarness(t, f.resource(nil, nil, false), fastTiming, nil)
	h.ops.Start(testUID, OperationCreate)
	h.ops.RecordID(testUID, "id-9")
	h.ops.End(testUID, errors.New("the wait failed"))

	m := newMR(apis.Parameters{"name": "a"})
	obs, err := h.ext.Observe(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	want := managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ResourceLateInitialized: true}
	if !reflect.DeepEqual(obs, want) {
		t.Fatalf("got %+v, want %+v", obs, want)
	}
	if got := meta.GetExternalName(m); got != "id-9" {
		t.Fatalf("external name %q, want id-9", got)
	}
	// An external name the MR already has wins.
	m = newMR(apis.Parameters{"name": "a"})
	meta.SetExternalName(m, "id-own")
	if obs, err = h.ext.Observe(context.Background(), m); err != nil || obs.ResourceLateInitialized || meta.GetExternalName(m) != "id-own" {
		t.Fatalf("got %+v, %v, external name %q", obs, err, meta.GetExternalName(m))
	}
}

func TestCreate(t *testing.T) {
	for _, idWhenSettled := range []bool{false, true} {
		name := "ID at once"
		if idWhenSettled {
			name = "ID when settled"
		}
		t.Run(name, func(t *testing.T) {
			f := newFakeObject()
			f.createGate = make(chan struct{})
			f.phase = Settling
			m := newMR(apis.Parameters{"name": "a"})
			h := newHarness(t, f.resource(nil, nil, idWhenSettled), fastTiming, nil, m.DeepCopy())
			ctx := context.Background()

			done := make(chan struct{})
			go func() {
				defer close(done)
				if _, err := h.ext.Create(ctx, m); err != nil {
					t.Error(err)
				}
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Create did not return at once")
			}
			checkCondition(t, m, AsyncOperation, corev1.ConditionFalse, reasonOngoing, "")
			if got := h.ops.Get(testUID); !got.Running || got.Kind != OperationCreate {
				t.Fatalf("operation %+v", got)
			}

			// While the operation runs, Observe says exists and up to date without asking OTC.
			obs, err := h.ext.Observe(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(obs, managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}) {
				t.Fatalf("Observe while running: %+v", obs)
			}
			checkCondition(t, m, AsyncOperation, corev1.ConditionFalse, reasonOngoing, "")
			// A second Create while running starts nothing.
			if _, err := h.ext.Create(ctx, m); err != nil {
				t.Fatal(err)
			}

			close(f.createGate)
			waitFor(t, "the create to wait for OTC", func() bool { return f.reads.Load() >= 2 })
			wantID := "id-1"
			if idWhenSettled {
				wantID = ""
			}
			if got := h.ops.Get(testUID); !got.Running || got.ID != wantID {
				t.Fatalf("while settling: %+v, want ID %q", got, wantID)
			}
			if got := meta.GetExternalName(h.stored()); got != "" {
				t.Fatalf("external name %q before the operation ended", got)
			}

			f.set(func(f *fakeObject) { f.phase = Settled })
			got := h.waitReported()
			if f.creates.Load() != 1 {
				t.Fatalf("%d creates, want 1", f.creates.Load())
			}
			if meta.GetExternalName(got) != "id-1" {
				t.Fatalf("external name %q, want id-1", meta.GetExternalName(got))
			}
			checkCondition(t, got, LastAsyncOperation, corev1.ConditionTrue, reasonSuccess, "")
			checkCondition(t, got, xpv1.TypeSynced, corev1.ConditionTrue, xpv1.ReasonReconcileSuccess, "")
			checkCondition(t, got, AsyncOperation, corev1.ConditionTrue, reasonFinished, "")
			if g := got.GetCondition(xpv1.TypeSynced).ObservedGeneration; g != 3 {
				t.Errorf("Synced observedGeneration %d, want 3", g)
			}
			if snap := h.ops.Get(testUID); snap.Running || snap.Err != nil || snap.ID != "id-1" {
				t.Fatalf("after the operation: %+v", snap)
			}

			// The next observation refreshes from OTC.
			obs, err = h.ext.Observe(ctx, got)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(obs, managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}) {
				t.Fatalf("Observe after create: %+v", obs)
			}
			checkCondition(t, got, AsyncOperation, corev1.ConditionTrue, reasonFinished, "")
		})
	}
}

// A create runs the follow-up a settled object needs, once, and ends
// when the object no longer needs it.
func TestCreateRunsTheFollowUp(t *testing.T) {
	f := newFakeObject()
	f.followUpPending = true
	m := newMR(apis.Parameters{"name": "a"})
	h := newHarness(t, f.resource(nil, nil, true), fastTiming, nil, m.DeepCopy())
	if _, err := h.ext.Create(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	got := h.waitReported()
	checkCondition(t, got, LastAsyncOperation, corev1.ConditionTrue, reasonSuccess, "")
	if n := f.followUps.Load(); n != 1 {
		t.Fatalf("%d follow-ups, want 1", n)
	}
	if meta.GetExternalName(got) != "id-1" {
		t.Fatalf("external name %q", meta.GetExternalName(got))
	}
}

func TestCreateMergesInitProvider(t *testing.T) {
	var got apis.Parameters
	f := newFakeObject()
	res := f.resource(nil, nil, false)
	create := res.Create
	res.Create = func(ctx context.Context, c *otc.Client, p apis.Parameters) (string, error) {
		got = p
		return create(ctx, c, p)
	}
	m := newMR(apis.Parameters{"name": "a"})
	m.Spec.InitProvider = apis.Parameters{"name": "ignored", "description": "from init"}
	h := newHarness(t, res, fastTiming, nil, m.DeepCopy())
	if _, err := h.ext.Create(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	h.waitReported()
	if want := (apis.Parameters{"name": "a", "description": "from init"}); !reflect.DeepEqual(got, want) {
		t.Fatalf("created with %v, want %v", got, want)
	}
}

func TestCreateFailures(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(f *fakeObject)
		wantID string
		want   string
	}{
		{
			name: "create refused",
			setup: func(f *fakeObject) {
				f.createErr = errors.New(`the argument "cidr" is required, but no definition was found`)
			},
			want: `apply failed: the argument "cidr" is required, but no definition was found`,
		},
		{
			name:  "wait before create fails",
			setup: func(f *fakeObject) { f.waitErr = errors.New("the cluster does not exist") },
			want:  "apply failed: the cluster does not exist",
		},
		{
			name:   "object fails while settling",
			setup:  func(f *fakeObject) { f.phase, f.failure = Failed, "unexpected state 'ERROR', wanted target 'OK'" },
			wantID: "id-1",
			want:   "apply failed: unexpected state 'ERROR', wanted target 'OK'",
		},
		{
			name:   "object is deleted while settling",
			setup:  func(f *fakeObject) { f.phase = Deleting },
			wantID: "id-1",
			want:   "apply failed: the object is being deleted",
		},
		{
			name:   "object never shows",
			setup:  func(f *fakeObject) { f.createsNothing = true },
			wantID: "id-1",
			want:   "apply failed: the object disappeared while waiting for it",
		},
		{
			name: "follow-up fails",
			setup: func(f *fakeObject) {
				f.followUpPending = true
				f.followUpErr = errors.New("error binding EIP 80.158.0.9 to the cluster: no EIP with this address")
			},
			wantID: "id-1",
			want:   "apply failed: error binding EIP 80.158.0.9 to the cluster: no EIP with this address",
		},
		{
			name:   "refresh fails while settling",
			setup:  func(f *fakeObject) { f.readErr = errors.New("HTTP 403") },
			wantID: "id-1",
			want:   "apply failed: HTTP 403",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeObject()
			tc.setup(f)
			m := newMR(apis.Parameters{"name": "a"})
			h := newHarness(t, f.resource(nil, nil, false), fastTiming, nil, m.DeepCopy())
			if _, err := h.ext.Create(context.Background(), m); err != nil {
				t.Fatalf("Create returned %v: failures are reported asynchronously", err)
			}
			got := h.waitReported()
			checkCondition(t, got, LastAsyncOperation, corev1.ConditionFalse, reasonApplyFailure, tc.want)
			if msg := got.GetCondition(LastAsyncOperation).Message; msg != tc.want {
				t.Errorf("LastAsyncOperation message %q, want %q", msg, tc.want)
			}
			checkCondition(t, got, xpv1.TypeSynced, corev1.ConditionFalse, xpv1.ReasonReconcileError, "create failed: "+tc.want)
			checkCondition(t, got, AsyncOperation, corev1.ConditionTrue, reasonFinished, "")
			if meta.GetExternalName(got) != tc.wantID {
				t.Errorf("external name %q, want %q", meta.GetExternalName(got), tc.wantID)
			}
			snap := h.ops.Get(testUID)
			if snap.Err == nil || snap.Err.Error() != tc.want || snap.ID != tc.wantID {
				t.Errorf("operation %+v", snap)
			}
		})
	}
}

// A cluster (IDWhenSettled) whose create wait fails has no ID, so the MR
// shows no external name; a node pool records its ID first, so the MR
// names the pool and reads Available with its last operation failed.
func TestCreateFailingAfterTheOrder(t *testing.T) {
	for _, tc := range []struct {
		name          string
		idWhenSettled bool
		wantID        string
		wantExists    bool
	}{
		{name: "cluster-like", idWhenSettled: true},
		{name: "node-pool-like", wantID: "np-1", wantExists: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeObject()
			f.createID = "np-1"
			f.phase, f.failure = Failed, "error waiting for Open Telekom Cloud CCE Node Pool to become available: unexpected state 'SoldOut', wanted target ''"
			m := newMR(apis.Parameters{"name": "a"})
			h := newHarness(t, f.resource(nil, nil, tc.idWhenSettled), fastTiming, nil, m.DeepCopy())
			if _, err := h.ext.Create(context.Background(), m); err != nil {
				t.Fatal(err)
			}
			got := h.waitReported()
			if meta.GetExternalName(got) != tc.wantID {
				t.Fatalf("external name %q, want %q", meta.GetExternalName(got), tc.wantID)
			}
			checkCondition(t, got, LastAsyncOperation, corev1.ConditionFalse, reasonApplyFailure, "unexpected state 'SoldOut'")
			if snap := h.ops.Get(testUID); snap.ID != tc.wantID {
				t.Fatalf("Terraform's state has ID %q, want %q", snap.ID, tc.wantID)
			}

			obs, err := h.ext.Observe(context.Background(), got)
			if err != nil {
				t.Fatal(err)
			}
			if obs.ResourceExists != tc.wantExists {
				t.Fatalf("Observe: %+v", obs)
			}
			if tc.wantExists {
				checkCondition(t, got, xpv1.TypeReady, corev1.ConditionTrue, xpv1.ReasonAvailable, "")
			}
		})
	}
}

func TestUpdateRefusals(t *testing.T) {
	cases := []struct {
		name        string
		forProvider apis.Parameters
		exists      bool
		readErr     error
		want        string
	}{
		{
			name:        "force new",
			forProvider: apis.Parameters{"name": "b", "size": int64(1)},
			exists:      true,
			want:        `refuse to update the external resource because the following update requires replacing it: cannot change the value of the argument "name" from "a" to "b"`,
		},
		{
			name:        "force new below a block",
			forProvider: apis.Parameters{"rootVolume": []any{map[string]any{"size": int64(50)}}},
			exists:      true,
			want:        `refuse to update the external resource because the following update requires replacing it: cannot change the value of the argument "root_volume.0.size" from "40" to "50"`,
		},
		{
			name:        "force new wins over an in-place change",
			forProvider: apis.Parameters{"name": "b", "size": int64(2)},
			exists:      true,
			want:        `requires replacing it: cannot change the value of the argument "name"`,
		},
		{
			name:        "not simulated",
			forProvider: apis.Parameters{"description": "new"},
			exists:      true,
			want:        `the simulator does not update the argument "description" in place`,
		},
		{
			name:        "gone",
			forProvider: apis.Parameters{"size": int64(2)},
			want:        "cannot run refresh: the object is gone",
		},
		{
			name:        "refresh fails",
			forProvider: apis.Parameters{"size": int64(2)},
			exists:      true,
			readErr:     errors.New("HTTP 502"),
			want:        "cannot run refresh: HTTP 502",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeObject()
			f.exists, f.readErr = tc.exists, tc.readErr
			f.reported = apis.Parameters{"name": "a", "size": int64(1), "description": "old", "rootVolume": []any{map[string]any{"size": int64(40)}}}
			h := newHarness(t, f.resource(Set("name", "root_volume"), Set("size"), false), fastTiming, nil)
			m := newMR(tc.forProvider)
			meta.SetExternalName(m, "id-1")
			_, err := h.ext.Update(context.Background(), m)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if f.updates.Load() != 0 {
				t.Fatal("the resource's Update was called")
			}
			if h.ops.Get(testUID).Known {
				t.Fatal("an operation was started")
			}
		})
	}
}

func TestUpdateWithoutChangesStartsNothing(t *testing.T) {
	f := newFakeObject()
	f.exists = true
	h := newHarness(t, f.resource(nil, Set("name"), false), fastTiming, nil)
	m := newMR(apis.Parameters{"name": "a"})
	meta.SetExternalName(m, "id-1")
	if _, err := h.ext.Update(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if h.ops.Get(testUID).Known || f.updates.Load() != 0 {
		t.Fatal("an update without changes ran")
	}
}

func TestUpdateInPlace(t *testing.T) {
	f := newFakeObject()
	f.exists = true
	f.reported = apis.Parameters{"name": "a", "initialNodeCount": int64(1)}
	f.afterUpdate = apis.Parameters{"name": "a", "initialNodeCount": int64(3)}
	f.updateGate = make(chan struct{})
	m := newMR(apis.Parameters{"name": "a", "initialNodeCount": int64(3)})
	meta.SetExternalName(m, "np-1")
	h := newHarness(t, f.resource(Set("name"), Set("initial_node_count"), false), fastTiming, nil, m.DeepCopy())
	ctx := context.Background()

	if _, err := h.ext.Update(ctx, m); err != nil {
		t.Fatal(err)
	}
	checkCondition(t, m, AsyncOperation, corev1.ConditionFalse, reasonOngoing, "")
	if snap := h.ops.Get(testUID); !snap.Running || snap.Kind != OperationUpdate {
		t.Fatalf("operation %+v", snap)
	}
	waitFor(t, "the update to reach OTC", func() bool { return f.updates.Load() == 1 })
	// A second Update while one runs starts nothing.
	if _, err := h.ext.Update(ctx, m); err != nil {
		t.Fatal(err)
	}
	close(f.updateGate)
	got := h.waitReported()
	if f.updates.Load() != 1 {
		t.Fatalf("%d updates, want 1", f.updates.Load())
	}
	f.mu.Lock()
	wantChanges := []Change{{Argument: "initial_node_count", Field: "initialNodeCount", From: int64(1), To: int64(3)}}
	if !reflect.DeepEqual(f.lastChanges, wantChanges) {
		t.Errorf("changes %#v, want %#v", f.lastChanges, wantChanges)
	}
	if !reflect.DeepEqual(f.lastDesired, m.Spec.ForProvider) {
		t.Errorf("desired %v, want %v", f.lastDesired, m.Spec.ForProvider)
	}
	f.mu.Unlock()
	checkCondition(t, got, LastAsyncOperation, corev1.ConditionTrue, reasonSuccess, "")
	checkCondition(t, got, xpv1.TypeSynced, corev1.ConditionTrue, xpv1.ReasonReconcileSuccess, "")
	checkCondition(t, got, AsyncOperation, corev1.ConditionTrue, reasonFinished, "")
	if meta.GetExternalName(got) != "np-1" {
		t.Fatalf("external name %q", meta.GetExternalName(got))
	}

	obs, err := h.ext.Observe(ctx, got)
	if err != nil || !reflect.DeepEqual(obs, managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}) {
		t.Fatalf("Observe after update: %+v, %v", obs, err)
	}
}

func TestUpdateFailure(t *testing.T) {
	f := newFakeObject()
	f.exists = true
	f.reported = apis.Parameters{"initialNodeCount": int64(1)}
	f.updateErr = errors.New("HTTP 400 CCE.01400001: invalid size")
	m := newMR(apis.Parameters{"initialNodeCount": int64(3)})
	meta.SetExternalName(m, "np-1")
	h := newHarness(t, f.resource(nil, Set("initial_node_count"), false), fastTiming, nil, m.DeepCopy())
	if _, err := h.ext.Update(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	got := h.waitReported()
	checkCondition(t, got, LastAsyncOperation, corev1.ConditionFalse, reasonApplyFailure, "apply failed: HTTP 400 CCE.01400001: invalid size")
	checkCondition(t, got, xpv1.TypeSynced, corev1.ConditionFalse, xpv1.ReasonReconcileError, "update failed: apply failed:")
	if snap := h.ops.Get(testUID); snap.Kind != OperationUpdate || snap.Err == nil {
		t.Fatalf("operation %+v", snap)
	}
}

func TestDelete(t *testing.T) {
	f := newFakeObject()
	f.exists = true
	m := newMR(apis.Parameters{"name": "a"})
	meta.SetExternalName(m, "id-1")
	h := newHarness(t, f.resource(nil, nil, false), fastTiming, nil, m.DeepCopy())
	ctx := context.Background()

	if _, err := h.ext.Delete(ctx, m); err != nil {
		t.Fatal(err)
	}
	checkCondition(t, m, AsyncOperation, corev1.ConditionFalse, reasonOngoing, "")
	waitFor(t, "the destroy to poll OTC", func() bool { return f.reads.Load() >= 3 })
	if snap := h.ops.Get(testUID); !snap.Running || snap.Kind != OperationDelete {
		t.Fatalf("operation %+v: a destroy waits until OTC no longer has the object", snap)
	}
	// A second Delete while the destroy runs does nothing.
	if _, err := h.ext.Delete(ctx, m); err != nil {
		t.Fatal(err)
	}
	if f.deletes.Load() != 1 {
		t.Fatalf("%d deletes, want 1", f.deletes.Load())
	}
	obs, err := h.ext.Observe(ctx, m)
	if err != nil || !reflect.DeepEqual(obs, managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}) {
		t.Fatalf("Observe while deleting: %+v, %v", obs, err)
	}

	f.set(func(f *fakeObject) { f.exists = false })
	got := h.waitReported()
	if f.deletes.Load() != 1 {
		t.Fatalf("%d deletes, want 1", f.deletes.Load())
	}
	checkCondition(t, got, LastAsyncOperation, corev1.ConditionTrue, reasonSuccess, "")
	checkCondition(t, got, AsyncOperation, corev1.ConditionTrue, reasonFinished, "")
	if snap := h.ops.Get(testUID); snap.Running || snap.Err != nil || snap.Kind != OperationDelete {
		t.Fatalf("operation %+v", snap)
	}
}

func TestDeleteOutcomes(t *testing.T) {
	cases := []struct {
		name       string
		setup      func(f *fakeObject)
		wantStatus corev1.ConditionStatus
		wantReason xpv1.ConditionReason
		wantMsg    string
	}{
		{
			name:       "gone at once",
			setup:      func(f *fakeObject) { f.vanishOnDelete = true },
			wantStatus: corev1.ConditionTrue,
			wantReason: reasonSuccess,
		},
		{
			name: "already gone on OTC's side",
			setup: func(f *fakeObject) {
				f.exists = false
				f.deleteErr = &otc.APIError{Op: "delete VPC", StatusCode: 404, Code: "VPC.0404"}
			},
			wantStatus: corev1.ConditionTrue,
			wantReason: reasonSuccess,
		},
		{
			name: "refused",
			setup: func(f *fakeObject) {
				f.deleteErr = &otc.APIError{Op: "delete VPC", Method: "DELETE", Path: "/v1/p/vpcs/id-1", StatusCode: 409, Message: "the VPC has subnets"}
			},
			wantStatus: corev1.ConditionFalse,
			wantReason: reasonDestroyFailure,
			wantMsg:    "destroy failed: delete VPC: DELETE /v1/p/vpcs/id-1: HTTP 409: the VPC has subnets",
		},
		{
			name: "an unpublished API is no proof the object is gone",
			setup: func(f *fakeObject) {
				f.deleteErr = &otc.APIError{Op: "delete VPC", Method: "DELETE", Path: "/x", StatusCode: 404, Code: "APIGW.0101"}
			},
			wantStatus: corev1.ConditionFalse,
			wantReason: reasonDestroyFailure,
			wantMsg:    "destroy failed: delete VPC",
		},
		{
			name:       "refresh fails while waiting",
			setup:      func(f *fakeObject) { f.readErr = errors.New("HTTP 500") },
			wantStatus: corev1.ConditionFalse,
			wantReason: reasonDestroyFailure,
			wantMsg:    "destroy failed: HTTP 500",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeObject()
			f.exists = true
			tc.setup(f)
			m := newMR(apis.Parameters{"name": "a"})
			meta.SetExternalName(m, "id-1")
			h := newHarness(t, f.resource(nil, nil, false), fastTiming, nil, m.DeepCopy())
			if _, err := h.ext.Delete(context.Background(), m); err != nil {
				t.Fatal(err)
			}
			got := h.waitReported()
			checkCondition(t, got, LastAsyncOperation, tc.wantStatus, tc.wantReason, tc.wantMsg)
			if tc.wantStatus == corev1.ConditionFalse {
				checkCondition(t, got, xpv1.TypeSynced, corev1.ConditionFalse, xpv1.ReasonReconcileError, "delete failed: "+tc.wantMsg)
			}
		})
	}
}

func TestDeleteWithoutExternalNameDoesNothing(t *testing.T) {
	f := newFakeObject()
	h := newHarness(t, f.resource(nil, nil, false), fastTiming, nil)
	m := newMR(apis.Parameters{"name": "a"})
	if _, err := h.ext.Delete(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if h.ops.Get(testUID).Known || f.deletes.Load() != 0 {
		t.Fatal("a destroy ran without an ID")
	}
}

func TestOperationTimeout(t *testing.T) {
	const timeout = 30 * time.Millisecond
	cases := []struct {
		name   string
		start  func(h *harness, m *mr) error
		want   string
		reason xpv1.ConditionReason
	}{
		{
			name: "create",
			start: func(h *harness, m *mr) error {
				_, err := h.ext.Create(context.Background(), m)
				return err
			},
			want:   "apply failed: the create did not finish within 30ms",
			reason: reasonApplyFailure,
		},
		{
			name: "delete",
			start: func(h *harness, m *mr) error {
				meta.SetExternalName(m, "id-1")
				_, err := h.ext.Delete(context.Background(), m)
				return err
			},
			want:   "destroy failed: the delete did not finish within 30ms",
			reason: reasonDestroyFailure,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeObject()
			// OTC never settles, and never lets go of the object.
			f.exists, f.phase = true, Settling
			m := newMR(apis.Parameters{"name": "a"})
			h := newHarness(t, f.resource(nil, nil, false), Timing{Poll: time.Millisecond, Timeout: timeout}, nil, m.DeepCopy())
			started := time.Now()
			if err := tc.start(h, m); err != nil {
				t.Fatal(err)
			}
			got := h.waitReported()
			if elapsed := time.Since(started); elapsed < timeout {
				t.Fatalf("the operation ended after %s, before its timeout", elapsed)
			}
			snap := h.ops.Get(testUID)
			if snap.Err == nil || snap.Err.Error() != tc.want {
				t.Fatalf("operation error %v, want %q", snap.Err, tc.want)
			}
			checkCondition(t, got, LastAsyncOperation, corev1.ConditionFalse, tc.reason, tc.want)
		})
	}
}

func TestObserveForgetsTheOperationsOfAnMRWhoseObjectIsGone(t *testing.T) {
	for _, deleted := range []bool{true, false} {
		f := newFakeObject() // OTC has no object
		h := newHarness(t, f.resource(nil, nil, false), fastTiming, nil)
		h.ops.Start(testUID, OperationDelete)
		h.ops.RecordID(testUID, "id-1")
		h.ops.End(testUID, nil)
		m := newMR(apis.Parameters{"name": "a"})
		meta.SetExternalName(m, "id-1")
		if deleted {
			now := metav1.Now()
			m.SetDeletionTimestamp(&now)
		}
		obs, err := h.ext.Observe(context.Background(), m)
		if err != nil || obs.ResourceExists {
			t.Fatalf("deleted=%v: %+v, %v", deleted, obs, err)
		}
		if known := h.ops.Get(testUID).Known; known == deleted {
			t.Fatalf("deleted=%v: operation known afterwards: %v", deleted, known)
		}
	}
}

// The end of an operation is reported onto the MR it ran for only: not
// onto an MR gone from the API server, nor a new one of the same name.
func TestReportLeavesOtherMRsAlone(t *testing.T) {
	t.Run("MR gone", func(t *testing.T) {
		f := newFakeObject()
		h := newHarness(t, f.resource(nil, nil, false), fastTiming, nil)
		if _, err := h.ext.Create(context.Background(), newMR(apis.Parameters{"name": "a"})); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the operation to end", func() bool { return !h.ops.Get(testUID).Running })
		if snap := h.ops.Get(testUID); snap.Err != nil || snap.ID != "id-1" {
			t.Fatalf("operation %+v", snap)
		}
	})
	t.Run("MR replaced", func(t *testing.T) {
		f := newFakeObject()
		var gets, patches atomic.Int32
		funcs := &interceptor.Funcs{
			Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				err := c.Get(ctx, key, obj, opts...)
				gets.Add(1)
				return err
			},
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				patches.Add(1)
				return c.Patch(ctx, obj, patch, opts...)
			},
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				patches.Add(1)
				return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
			},
		}
		successor := newMR(apis.Parameters{"name": "a"})
		successor.UID = "successor-uid"
		h := newHarness(t, f.resource(nil, nil, false), fastTiming, funcs, successor)
		if _, err := h.ext.Create(context.Background(), newMR(apis.Parameters{"name": "a"})); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the report to read the MR", func() bool { return gets.Load() >= 1 })
		time.Sleep(20 * time.Millisecond)
		if patches.Load() != 0 {
			t.Fatal("the report patched a successor MR")
		}
		got := h.stored()
		if meta.GetExternalName(got) != "" || len(got.Status.Conditions) != 0 {
			t.Fatalf("successor changed: %v %+v", got.Annotations, got.Status.Conditions)
		}
	})
}

// A report keeps what else is on the MR, and an external name it already has.
func TestReportKeepsTheMR(t *testing.T) {
	f := newFakeObject()
	f.createID = "id-new"
	m := newMR(apis.Parameters{"name": "a"})
	m.Labels = map[string]string{"team": "a"}
	m.Status.AtProvider = apis.Parameters{"id": "kept"}
	m.SetConditions(xpv1.Available())
	h := newHarness(t, f.resource(nil, nil, false), fastTiming, nil, m.DeepCopy())
	// Someone sets an external name while the operation runs.
	stored := h.stored()
	meta.SetExternalName(stored, "id-set-meanwhile")
	if err := h.kube.Update(context.Background(), stored); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ext.Create(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	got := h.waitReported()
	if meta.GetExternalName(got) != "id-set-meanwhile" {
		t.Fatalf("external name %q", meta.GetExternalName(got))
	}
	if !maps.Equal(got.Labels, map[string]string{"team": "a"}) {
		t.Fatalf("labels %v", got.Labels)
	}
	if got.GetCondition(xpv1.TypeReady).Reason != xpv1.ReasonAvailable {
		t.Fatalf("Ready lost: %+v", got.Status.Conditions)
	}
	if !reflect.DeepEqual(got.Status.AtProvider, apis.Parameters{"id": "kept"}) {
		t.Fatalf("atProvider %v", got.Status.AtProvider)
	}
}

func TestDisconnect(t *testing.T) {
	h := newHarness(t, newFakeObject().resource(nil, nil, false), fastTiming, nil)
	if err := h.ext.Disconnect(context.Background()); err != nil {
		t.Fatal(err)
	}
}
