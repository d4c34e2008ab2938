package resources

import (
	"context"
	"errors"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/otc"
	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

// keypair is opentelekomcloud_compute_keypair_v2, whose ID is its name.
// The simulator imports keys only: a generated private key would land in
// plain status, which our controller never asks for.
var keypair = &terraformed.Resource{
	ForceNew: terraformed.Set("name", "public_key", "region", "value_specs"),
	Create: func(ctx context.Context, c *otc.Client, p apis.Parameters) (string, error) {
		name, err := requiredString(p, "name")
		if err != nil {
			return "", err
		}
		publicKey := stringParam(p, "publicKey")
		if publicKey == "" {
			return "", errors.New("the simulator imports keys only: set publicKey")
		}
		created, err := c.CreateKeypair(ctx, otc.CreateKeypairOpts{Name: name, PublicKey: publicKey})
		if err != nil {
			return "", err
		}
		return created.Name, nil
	},
	Read: func(ctx context.Context, c *otc.Client, name string, p, _ apis.Parameters) (*terraformed.State, error) {
		k, err := c.GetKeypair(ctx, name)
		if otc.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		// The public key is not compared: OTC may normalise its whitespace and comment.
		reported := defined(map[string]any{"name": k.Name, "region": c.Region()})
		return &terraformed.State{
			Phase:      terraformed.Settled,
			AtProvider: observed(p, merge(reported, map[string]any{"id": k.Name, "publicKey": k.PublicKey})),
			Reported:   reported,
		}, nil
	},
	Delete: func(ctx context.Context, c *otc.Client, name string, _ apis.Parameters) error {
		return c.DeleteKeypair(ctx, name)
	},
}
