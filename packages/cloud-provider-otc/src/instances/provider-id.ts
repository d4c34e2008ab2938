/**
 * The node's `spec.providerID` for an ECS server: `otc://<ecs-uuid>`, the
 * provider name, `://`, and the server ID, as k8s.io/cloud-provider builds
 * it (`ProviderName() + "://" + instanceID`). No region in it: ECS IDs are
 * unique across regions, and the ID is all the lookup needs.
 *
 * Parsing also accepts `otc:///<uuid>` (the empty-region form OpenStack-style
 * tooling writes) and a bare UUID (kubelets have been seen to strip the
 * scheme). Anything else, another provider's scheme in particular, is
 * rejected: such a node is not ours to look up, let alone delete.
 */

export const PROVIDER_NAME = "otc";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PREFIXES = [`${PROVIDER_NAME}:///`, `${PROVIDER_NAME}://`];

/** A providerID that names no ECS server; never treated as "instance gone". */
export class InvalidProviderIdError extends Error {
  override readonly name = "InvalidProviderIdError";

  constructor(readonly providerId: string) {
    super(`providerID ${JSON.stringify(providerId)} is not of the form ${PROVIDER_NAME}://<ecs-server-uuid>`);
  }
}

export function formatProviderId(serverId: string): string {
  return `${PROVIDER_NAME}://${serverId}`;
}

/** The ECS server ID in `value`, or undefined when `value` is not one of the accepted forms. */
export function parseProviderId(value: string): string | undefined {
  const prefix = PREFIXES.find((candidate) => value.startsWith(candidate));
  const id = prefix === undefined ? value : value.slice(prefix.length);
  return UUID.test(id) ? id : undefined;
}
