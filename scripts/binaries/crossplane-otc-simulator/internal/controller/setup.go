// Package controller sets up the provider's controllers on a manager the way
// provider-opentelekomcloud's generated setup does: one crossplane-runtime
// managed reconciler per kind, and crossplane-runtime's ProviderConfig
// reconciler for ProviderConfig and for ClusterProviderConfig, both counting
// the namespaced ProviderConfigUsages.
package controller

import (
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"

	xpcontroller "github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	xpevent "github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/providerconfig"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/connect"
	"edgeconnect.eu/crossplane-otc-simulator/internal/otc"
	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

// reconcileTimeout is what the provider's generated controllers give each
// reconcile (managed.WithTimeout(3*time.Minute)).
const reconcileTimeout = 3 * time.Minute

// Options are the provider's knobs.
type Options struct {
	xpcontroller.Options
	Clients *otc.Clients
	// Async bounds and paces the imitated Terraform operations.
	Async terraformed.Timing
	// CreationGracePeriod is crossplane-runtime's (managed.WithCreationGracePeriod).
	CreationGracePeriod time.Duration
}

// Setup adds every controller of the provider to mgr.
func Setup(mgr ctrl.Manager, o Options, resources Resources) error {
	for _, setup := range []func(ctrl.Manager, Options, Resources) error{
		setupManaged[apis.VpcV1],
		setupManaged[apis.SubnetV1],
		setupManaged[apis.EIPV1],
		setupManaged[apis.KeypairV2],
		setupManaged[apis.ClusterV3],
		setupManaged[apis.NodePoolV3],
	} {
		if err := setup(mgr, o, resources); err != nil {
			return err
		}
	}
	if err := setupProviderConfig(mgr, o, apis.ProviderConfigKind, &apis.ProviderConfig{}); err != nil {
		return err
	}
	return setupProviderConfig(mgr, o, apis.ClusterProviderConfigKind, &apis.ClusterProviderConfig{})
}

// Resources are the Terraform resources, by kind.
type Resources map[string]*terraformed.Resource

func setupManaged[K apis.Kind](mgr ctrl.Manager, o Options, resources Resources) error {
	gvk := apis.GVK[K]()
	name := managed.ControllerName(gvk.GroupKind().String())
	log := o.Logger.WithValues("controller", name)
	ended := make(chan event.TypedGenericEvent[*apis.Managed[K]])
	engine := &terraformed.Engine[K]{
		Resource:   resources[gvk.Kind],
		Operations: terraformed.NewOperations(),
		Kube:       mgr.GetClient(),
		Reader:     mgr.GetAPIReader(),
		Timing:     o.Async,
		Log:        log,
		Ended: func(key client.ObjectKey) {
			mg := &apis.Managed[K]{}
			mg.SetNamespace(key.Namespace)
			mg.SetName(key.Name)
			ended <- event.TypedGenericEvent[*apis.Managed[K]]{Object: mg}
		},
	}
	connector := &connect.Connector[K]{
		Kube:    mgr.GetClient(),
		Usage:   resource.NewProviderConfigUsageTracker(mgr.GetClient(), &apis.ProviderConfigUsage{}),
		Clients: o.Clients,
		Engine:  engine,
	}
	r := managed.NewReconciler(mgr, resource.ManagedKind(gvk),
		managed.WithTypedExternalConnector[*apis.Managed[K]](connector),
		managed.WithLogger(log),
		managed.WithRecorder(xpevent.NewAPIRecorder(mgr.GetEventRecorderFor(name))),
		managed.WithPollInterval(o.PollInterval),
		managed.WithCreationGracePeriod(o.CreationGracePeriod),
		managed.WithTimeout(reconcileTimeout),
		// IdentifierFromProvider: the external name is OTC's ID, never the MR's name.
		managed.WithInitializers(),
		managed.WithManagementPolicies(),
	)
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(&apis.Managed[K]{}, builder.WithPredicates(resource.DesiredStateChanged())).
		WatchesRawSource(source.Channel(ended, &handler.TypedEnqueueRequestForObject[*apis.Managed[K]]{})).
		Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))
}

func setupProviderConfig(mgr ctrl.Manager, o Options, kind string, of client.Object) error {
	name := providerconfig.ControllerName(kind)
	r := providerconfig.NewReconciler(mgr,
		resource.ProviderConfigKinds{
			Config:    apis.ProviderGroupVersion.WithKind(kind),
			Usage:     apis.ProviderGroupVersion.WithKind(apis.ProviderConfigUsageKind),
			UsageList: apis.ProviderGroupVersion.WithKind(apis.ProviderConfigUsageKind + "List"),
		},
		providerconfig.WithLogger(o.Logger.WithValues("controller", name)),
		providerconfig.WithRecorder(xpevent.NewAPIRecorder(mgr.GetEventRecorderFor(name))),
	)
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(of).
		Watches(&apis.ProviderConfigUsage{}, &resource.EnqueueRequestForProviderConfig{}).
		Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))
}
