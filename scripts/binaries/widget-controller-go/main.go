// The Go peer of the runtime benchmark (`pnpm bench:runtime -- --peer go`):
// the widget controller of e2e/src/widget-controller.ts written the way a Go
// developer would, on kcp-dev/multicluster-provider's APIExport provider,
// multicluster-runtime and controller-runtime with their defaults. It mirrors
// spec.color into status.observed with a Ready condition from the shared
// informer cache, by the same server-side apply of /status (field manager,
// force, fields) as ours, and fails widgets labelled noisy after a delay as
// the benchmark's side-child.ts does.
//
// It speaks the benchmark's child protocol (e2e/bench/child-protocol.ts) as
// JSON lines: parent messages on stdin ({"type":"start"|"stats"|"stop"}),
// child messages on stdout ("ready", "synced", "reconciled" per status
// write, "stats"). Times are epoch milliseconds. Logs go to stderr, and only
// with LOG_LEVEL set, as for ours.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	apisv1alpha1 "github.com/kcp-dev/sdk/apis/apis/v1alpha1"

	"github.com/kcp-dev/multicluster-provider/apiexport"
	"github.com/kcp-dev/multicluster-provider/pkg/handlers"
)

const (
	controllerName = "widgets"
	fieldManager   = "widget-controller"
	noisyLabel     = "bench.edgeconnect.eu/noisy"
)

var groupVersion = schema.GroupVersion{Group: "smoke.edgeconnect.eu", Version: "v1alpha1"}

// Widget is widgets.smoke.edgeconnect.eu (e2e/fixtures/widgets-export.yaml).
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Color string `json:"color,omitempty"`
}

type WidgetStatus struct {
	Observed   string             `json:"observed,omitempty"`
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// The deep copies controller-gen would generate for these few fields.

func (w *Widget) DeepCopyObject() kruntime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status.Conditions = make([]metav1.Condition, len(w.Status.Conditions))
	for i := range w.Status.Conditions {
		w.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
	}
	return &out
}

func (l *WidgetList) DeepCopyObject() kruntime.Object {
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = make([]Widget, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopyObject().(*Widget)
	}
	return &out
}

// output writes the child messages, one JSON line each, whole lines only.
type output struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (o *output) send(message any) {
	line, err := json.Marshal(message)
	if err != nil {
		panic(err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	_, _ = o.w.Write(append(line, '\n'))
	_ = o.w.Flush()
}

func epochNow() float64 {
	return float64(time.Now().UnixNano()) / 1e6
}

type widgetReconciler struct {
	mgr           mcmanager.Manager
	out           *output
	noisyDelay    time.Duration
	noisyAttempts atomic.Int64
}

// Reconcile mirrors spec.color into status as reconcileWidget of
// e2e/src/widget-controller.ts does: nothing when gone, deleting or in step,
// else one server-side apply of the status it owns.
func (r *widgetReconciler) Reconcile(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
	cl, err := r.mgr.GetCluster(ctx, req.ClusterName)
	if err != nil {
		return ctrl.Result{}, err
	}
	widget := &Widget{}
	if err := cl.GetClient().Get(ctx, req.NamespacedName, widget); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if _, noisy := widget.Labels[noisyLabel]; noisy {
		r.noisyAttempts.Add(1)
		select {
		case <-time.After(r.noisyDelay):
		case <-ctx.Done():
		}
		return ctrl.Result{}, fmt.Errorf("noisy widget %s fails on purpose", req.Name)
	}
	if widget.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	color := widget.Spec.Color
	generation := widget.Generation
	ready := apimeta.FindStatusCondition(widget.Status.Conditions, "Ready")
	if widget.Status.Observed == color && ready != nil && ready.Status == metav1.ConditionTrue && ready.ObservedGeneration == generation {
		return ctrl.Result{}, nil
	}
	transition := metav1.Now().Rfc3339Copy()
	if ready != nil && ready.Status == metav1.ConditionTrue {
		transition = ready.LastTransitionTime
	}
	message, _ := json.Marshal(color)
	apply := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": groupVersion.String(),
		"kind":       "Widget",
		"metadata":   map[string]any{"name": widget.Name, "namespace": widget.Namespace},
		"status": map[string]any{
			"observed": color,
			"conditions": []any{map[string]any{
				"type":               "Ready",
				"status":             "True",
				"reason":             "Observed",
				"message":            "observed color " + string(message),
				"observedGeneration": generation,
				"lastTransitionTime": transition.UTC().Format(time.RFC3339),
			}},
		},
	}}
	err = cl.GetClient().Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(apply), client.FieldOwner(fieldManager), client.ForceOwnership)
	if err != nil {
		return ctrl.Result{}, err
	}
	key := fmt.Sprintf("%s|%s/%s", req.ClusterName, req.Namespace, req.Name)
	r.out.send(map[string]any{"type": "reconciled", "batch": [][]any{{key, color, epochNow()}}})
	return ctrl.Result{}, nil
}

// reconcileResults sums controller_runtime_reconcile_total of this controller by result.
func reconcileResults() (map[string]float64, error) {
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		return nil, err
	}
	results := map[string]float64{}
	for _, family := range families {
		if family.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, metric := range family.GetMetric() {
			labels := map[string]string{}
			for _, label := range metric.GetLabel() {
				labels[label.GetName()] = label.GetValue()
			}
			if labels["controller"] == controllerName {
				results[labels["result"]] += metric.GetCounter().GetValue()
			}
		}
	}
	return results, nil
}

// syncSignal reports "synced" once the first engaged cluster's widget
// informer (the wildcard informer all clusters of a shard share) has listed.
type syncSignal struct {
	provider *apiexport.Provider
	ctx      context.Context
	out      *output
	once     sync.Once
	fail     func(error)
}

func (s *syncSignal) OnAdd(obj client.Object) {
	name := multicluster.ClusterName(obj.GetAnnotations()["kcp.io/cluster"])
	s.once.Do(func() {
		go func() {
			cl, err := s.provider.Get(s.ctx, name)
			if err != nil {
				s.fail(fmt.Errorf("engaged cluster %q: %w", name, err))
				return
			}
			informer, err := cl.GetCache().GetInformer(s.ctx, &Widget{})
			if err != nil {
				s.fail(fmt.Errorf("widget informer: %w", err))
				return
			}
			for !informer.HasSynced() {
				if s.ctx.Err() != nil {
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
			s.out.send(map[string]any{"type": "synced", "at": epochNow()})
		}()
	})
}

func (s *syncSignal) OnUpdate(_, _ client.Object) {}
func (s *syncSignal) OnDelete(_ client.Object)    {}

func main() {
	// A flag set of its own: controller-runtime registers --kubeconfig on the global one.
	flags := flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	kubeconfig := flags.String("kubeconfig", "", "admin kubeconfig of the kcp under test")
	providerPath := flags.String("provider", "", "workspace path of the provider that exports widgets")
	endpointSlice := flags.String("endpointslice", "smoke.edgeconnect.eu", "the APIExportEndpointSlice to watch")
	workers := flags.Int("workers", 8, "MaxConcurrentReconciles")
	noisyMs := flags.Int("noisy-ms", 200, "how long a noisy widget's reconcile takes before it fails")
	_ = flags.Parse(os.Args[1:])

	out := &output{w: bufio.NewWriter(os.Stdout)}
	fail := func(err error) {
		fmt.Fprintf(os.Stderr, "widget-controller-go failed: %v\n", err)
		os.Exit(1)
	}
	if *kubeconfig == "" || *providerPath == "" {
		fail(errors.New("--kubeconfig and --provider are required"))
	}

	// Reconcile errors are counted in the metrics; a line per noisy retry
	// would bury everything else. LOG_LEVEL shows the library's logs.
	logger := logr.Discard()
	if os.Getenv("LOG_LEVEL") != "" {
		logger = zap.New(zap.WriteTo(os.Stderr))
	}
	log.SetLogger(logger)
	klog.SetLogger(logger)

	utilruntime.Must(apisv1alpha1.AddToScheme(scheme.Scheme))
	scheme.Scheme.AddKnownTypes(groupVersion, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(scheme.Scheme, groupVersion)

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	// What ctrl.GetConfig does for a config without QPS: no client-side
	// throttling (client-go's default would be 5 requests/s per cluster).
	cfg.QPS = -1
	// The provider reads the endpoint slice in the provider workspace.
	server, err := url.Parse(cfg.Host)
	if err != nil {
		fail(err)
	}
	if i := strings.Index(server.Path, "/clusters/"); i != -1 {
		server.Path = server.Path[:i]
	}
	cfg.Host = strings.TrimSuffix(server.String(), "/") + "/clusters/" + *providerPath

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signal := &syncSignal{ctx: ctx, out: out, fail: fail}
	provider, err := apiexport.New(cfg, *endpointSlice, apiexport.Options{Handlers: handlers.Handlers{signal}})
	if err != nil {
		fail(err)
	}
	signal.provider = provider
	mgr, err := mcmanager.New(cfg, provider, ctrl.Options{Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		fail(err)
	}
	reconciler := &widgetReconciler{mgr: mgr, out: out, noisyDelay: time.Duration(*noisyMs) * time.Millisecond}
	err = mcbuilder.ControllerManagedBy(mgr).
		Named(controllerName).
		For(&Widget{}).
		WithOptions(controller.TypedOptions[mcreconcile.Request]{MaxConcurrentReconciles: *workers}).
		Complete(reconciler)
	if err != nil {
		fail(err)
	}

	out.send(map[string]any{"type": "ready"})
	stopped := make(chan error, 1)
	started := false
	commands := bufio.NewScanner(os.Stdin)
	for commands.Scan() {
		var message struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(commands.Bytes(), &message); err != nil {
			fail(fmt.Errorf("unreadable command %q: %w", commands.Text(), err))
		}
		switch message.Type {
		case "start":
			if !started {
				started = true
				go func() { stopped <- mgr.Start(ctx) }()
			}
		case "stats":
			results, err := reconcileResults()
			if err != nil {
				fail(err)
			}
			var mem runtime.MemStats
			runtime.ReadMemStats(&mem)
			out.send(map[string]any{
				"type":             "stats",
				"heapUsedBytes":    mem.HeapAlloc,
				"reconcileResults": results,
				"noisyAttempts":    reconciler.noisyAttempts.Load(),
				"watchErrors":      0,
			})
		case "stop":
			cancel()
		default:
			fail(fmt.Errorf("unknown command %q", message.Type))
		}
		if ctx.Err() != nil {
			break
		}
	}
	// "stop", or stdin closed: the benchmark is gone and nobody reads the figures.
	cancel()
	if started {
		if err := <-stopped; err != nil && !errors.Is(err, context.Canceled) {
			fail(err)
		}
	}
}
