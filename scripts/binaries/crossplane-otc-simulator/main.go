// Command crossplane-otc-simulator is test support: a simulator of
// Crossplane's OTC provider (provider-opentelekomcloud) built on the
// crossplane-runtime version the real provider pins. It runs
// crossplane-runtime's own managed reconciler for VpcV1, SubnetV1, EIPV1,
// KeypairV2, ClusterV3 and NodePoolV3, its ProviderConfig and
// ClusterProviderConfig reconcilers and its ProviderConfigUsage tracking.
// What upjet and Terraform add on top, which cannot be had here, is
// imitated in internal/terraformed against the OTC API (internal/otc).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	xpcontroller "github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/feature"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/controller"
	"edgeconnect.eu/crossplane-otc-simulator/internal/crds"
	"edgeconnect.eu/crossplane-otc-simulator/internal/otc"
	"edgeconnect.eu/crossplane-otc-simulator/internal/resources"
	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

type flags struct {
	kubeconfig       string
	poll             time.Duration
	creationGrace    time.Duration
	sync             time.Duration
	maxReconcileRate int
	asyncPoll        time.Duration
	asyncTimeout     time.Duration
	endpointOverride string
	namespace        string
	metricsAddress   string
	probeAddress     string
	installCRDs      bool
	debug            bool
}

func parseFlags(args []string) (flags, error) {
	var f flags
	set := flag.NewFlagSet("crossplane-otc-simulator", flag.ContinueOnError)
	set.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster the managed resources live on; default: in-cluster")
	// The real provider's --poll and --max-reconcile-rate, with its defaults.
	set.DurationVar(&f.poll, "poll", 10*time.Minute, "how often an external resource is checked for drift")
	// crossplane-runtime's managed.WithCreationGracePeriod, at its default. The
	// real provider has no flag for it; tests shorten it (see testenv).
	set.DurationVar(&f.creationGrace, "creation-grace-period", 30*time.Second, "how long after a create an external resource that appears not to exist is taken for one the API does not list yet, not for a gone one")
	set.DurationVar(&f.sync, "sync", time.Hour, "how often the caches are resynced, which reconciles every watched object again")
	set.IntVar(&f.maxReconcileRate, "max-reconcile-rate", 10, "reconciles at once per controller, and per second overall")
	set.DurationVar(&f.asyncPoll, "async-poll-interval", 10*time.Second, "how often a running create, update or delete asks OTC where it stands (Terraform's waits)")
	set.DurationVar(&f.asyncTimeout, "async-timeout", time.Hour, "how long one create, update or delete may run (upjet's async timeout)")
	set.StringVar(&f.endpointOverride, "otc-endpoint-override", "", "one base URL for every OTC service; default: derived from each Secret's auth_url")
	set.StringVar(&f.namespace, "namespace", "", "watch managed resources in this namespace only; default all")
	set.StringVar(&f.metricsAddress, "metrics-bind-address", "0", "metrics address; 0 turns it off")
	set.StringVar(&f.probeAddress, "health-probe-bind-address", "0", "/healthz and /readyz address; 0 turns it off")
	set.BoolVar(&f.installCRDs, "install-crds", false, "apply the provider's CRDs before starting, as Crossplane's package manager would")
	set.BoolVar(&f.debug, "debug", false, "debug logging")
	if err := set.Parse(args); err != nil {
		return f, err
	}
	if f.maxReconcileRate < 1 || f.poll <= 0 || f.sync <= 0 || f.asyncPoll <= 0 || f.asyncTimeout <= 0 {
		return f, errors.New("--max-reconcile-rate, --poll, --sync, --async-poll-interval and --async-timeout must be positive")
	}
	if f.creationGrace < 0 {
		return f, errors.New("--creation-grace-period must not be negative")
	}
	return f, nil
}

func main() {
	f, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err == nil {
		err = run(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "crossplane-otc-simulator:", err)
		os.Exit(1)
	}
}

func run(f flags) error {
	files, err := fs.Sub(crdFiles, "crds")
	if err != nil {
		return err
	}
	definitions, err := crds.Read(files)
	if err != nil {
		return err
	}
	zl := zap.New(zap.UseDevMode(f.debug))
	ctrl.SetLogger(zl)
	log := logging.NewLogrLogger(zl.WithName("provider-opentelekomcloud"))

	cfg, err := restConfig(f.kubeconfig)
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, apis.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	ctx := ctrl.SetupSignalHandler()
	if f.installCRDs {
		direct, err := client.New(cfg, client.Options{Scheme: scheme})
		if err != nil {
			return err
		}
		if err := crds.Install(ctx, direct, definitions); err != nil {
			return err
		}
	}

	// The provider's --sync: crossplane-runtime's ProviderConfig reconciler
	// relies on it to recount a config whose usages went in another namespace.
	cacheOptions := cache.Options{SyncPeriod: &f.sync}
	if f.namespace != "" {
		cacheOptions.DefaultNamespaces = map[string]cache.Config{f.namespace: {}}
	}
	mgr, err := ctrl.NewManager(ratelimiter.LimitRESTConfig(cfg, f.maxReconcileRate), ctrl.Options{
		Scheme:                 scheme,
		Cache:                  cacheOptions,
		Metrics:                metricsserver.Options{BindAddress: f.metricsAddress},
		HealthProbeBindAddress: f.probeAddress,
	})
	if err != nil {
		return fmt.Errorf("cannot create the manager: %w", err)
	}
	settings := otc.Settings{}
	if f.endpointOverride != "" {
		if settings.Endpoints, err = otc.SingleEndpoint(f.endpointOverride); err != nil {
			return fmt.Errorf("--otc-endpoint-override: %w", err)
		}
	}
	o := controller.Options{
		Options: xpcontroller.Options{
			Logger:                  log,
			GlobalRateLimiter:       ratelimiter.NewGlobal(f.maxReconcileRate),
			PollInterval:            f.poll,
			MaxConcurrentReconciles: f.maxReconcileRate,
			Features:                &feature.Flags{},
		},
		Clients:             otc.NewClients(settings),
		Async:               terraformed.Timing{Poll: f.asyncPoll, Timeout: f.asyncTimeout},
		CreationGracePeriod: f.creationGrace,
	}
	if err := controller.Setup(mgr, o, resources.All()); err != nil {
		return err
	}
	if f.probeAddress != "0" {
		if err := mgr.AddHealthzCheck("ping", func(_ *http.Request) error { return nil }); err != nil {
			return err
		}
		if err := mgr.AddReadyzCheck("caches", func(r *http.Request) error {
			if !mgr.GetCache().WaitForCacheSync(r.Context()) {
				return errors.New("caches are not synced")
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return mgr.Start(ctx)
}

func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		return rest.InClusterConfig()
	}
	return clientcmd.BuildConfigFromFlags("", kubeconfig)
}
