// Package connect turns a managed resource's providerConfigRef into an OTC
// client, as provider-opentelekomcloud's Terraform setup does: it records
// the usage with crossplane-runtime's ProviderConfigUsage tracker, resolves
// a namespaced ProviderConfig (whose Secret is always read in the MR's own
// namespace) or a ClusterProviderConfig (whose Secret namespace stands as
// written), and extracts the credentials with crossplane-runtime's
// extractor.
package connect

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/otc"
	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

// Connector connects MRs of kind K.
type Connector[K apis.Kind] struct {
	Kube    client.Client
	Usage   *resource.ProviderConfigUsageTracker
	Clients *otc.Clients
	Engine  *terraformed.Engine[K]
}

// Connect implements managed.TypedExternalConnector.
func (c *Connector[K]) Connect(ctx context.Context, mg *apis.Managed[K]) (managed.TypedExternalClient[*apis.Managed[K]], error) {
	client, err := c.setup(ctx, mg)
	if err != nil {
		return nil, fmt.Errorf("cannot get terraform setup: %w", err)
	}
	return c.Engine.Connected(client), nil
}

func (c *Connector[K]) setup(ctx context.Context, mg *apis.Managed[K]) (*otc.Client, error) {
	// Tracked before the config is used, so that the usage exists even when
	// the config is broken: crossplane-runtime's own rule.
	if err := c.Usage.Track(ctx, mg); err != nil {
		return nil, fmt.Errorf("cannot track ProviderConfig usage: %w", err)
	}
	spec, err := c.configSpec(ctx, mg)
	if err != nil {
		return nil, err
	}
	data, err := resource.CommonCredentialExtractor(ctx, spec.Credentials.Source, c.Kube, spec.Credentials.CommonCredentialSelectors)
	if err != nil {
		return nil, fmt.Errorf("cannot extract credentials: %w", err)
	}
	credentials, err := otc.ParseCredentials(data)
	if err != nil {
		return nil, fmt.Errorf("cannot extract credentials: %w", err)
	}
	return c.Clients.Get(ctx, credentials)
}

func (c *Connector[K]) configSpec(ctx context.Context, mg *apis.Managed[K]) (*apis.ProviderConfigSpec, error) {
	ref := mg.GetProviderConfigReference()
	if ref == nil {
		return nil, errors.New("no providerConfigRef is given")
	}
	switch ref.Kind {
	case apis.ProviderConfigKind:
		pc := &apis.ProviderConfig{}
		if err := c.Kube.Get(ctx, types.NamespacedName{Namespace: mg.GetNamespace(), Name: ref.Name}, pc); err != nil {
			return nil, fmt.Errorf("cannot get referenced ProviderConfig: %w", err)
		}
		spec := pc.Spec
		// A namespaced ProviderConfig serves its own namespace only: the
		// provider reads its Secret there, whatever secretRef says.
		if spec.Credentials.SecretRef != nil {
			secretRef := *spec.Credentials.SecretRef
			secretRef.Namespace = mg.GetNamespace()
			spec.Credentials.SecretRef = &secretRef
		}
		return &spec, nil
	case apis.ClusterProviderConfigKind:
		cpc := &apis.ClusterProviderConfig{}
		if err := c.Kube.Get(ctx, types.NamespacedName{Name: ref.Name}, cpc); err != nil {
			return nil, fmt.Errorf("cannot get referenced ClusterProviderConfig: %w", err)
		}
		return &cpc.Spec, nil
	default:
		return nil, fmt.Errorf("unsupported provider config kind %q: ProviderConfig or ClusterProviderConfig", ref.Kind)
	}
}
