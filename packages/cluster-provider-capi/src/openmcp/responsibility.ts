/**
 * Which openMCP objects are this provider's to act on. AccessRequests pass
 * through openmcp-operator's generic controller first (it labels them with
 * provider and profile, resolves the cluster reference and sets `Pending`);
 * a provider that acts before that races it.
 */
import { PROFILE_LABEL, PROVIDER_LABEL, REQUEST_PHASE } from "./constants.js";

export interface AccessRequestState {
  readonly metadata?: { readonly labels?: Readonly<Record<string, string>> | undefined; readonly generation?: number | undefined } | undefined;
  readonly status?: { readonly phase?: string | undefined; readonly observedGeneration?: number | undefined } | undefined;
}

/**
 * The rule of openmcp-operator's `IsClusterProviderResponsibleForAccessRequest`:
 * both labels present, the provider label ours, the phase `Pending` or
 * `Granted`, and a `Granted` request up to date with its generation (a
 * changed spec goes back through the generic controller, which resets it to
 * `Pending`). A brand-new request has no phase yet and is therefore not
 * ours: the generic controller sets `Pending` before we may start. Missing
 * generations count as 0, as in Go.
 *
 * Unlike the library, an empty provider name is refused instead of
 * matching every provider: the wildcard serves openMCP's own controllers,
 * and a provider that lost its name must not grab other providers' requests.
 */
export function isResponsibleForAccessRequest(ar: AccessRequestState | undefined, providerName: string): boolean {
  requireProviderName(providerName);
  if (ar === undefined) return false;
  const labels = ar.metadata?.labels ?? {};
  if (labels[PROVIDER_LABEL] !== providerName || labels[PROFILE_LABEL] === undefined) return false;
  const phase = ar.status?.phase;
  if (phase === REQUEST_PHASE.Pending) return true;
  return phase === REQUEST_PHASE.Granted && (ar.status?.observedGeneration ?? 0) === (ar.metadata?.generation ?? 0);
}

export interface ClusterProfileRef {
  readonly spec?: { readonly providerRef?: { readonly name?: string | undefined } | undefined } | undefined;
}

/** Whether a ClusterProfile names this provider, i.e. whether Clusters of that profile are ours. */
export function profileBelongsTo(profile: ClusterProfileRef, providerName: string): boolean {
  requireProviderName(providerName);
  return profile.spec?.providerRef?.name === providerName;
}

function requireProviderName(providerName: string): void {
  if (providerName === "") throw new TypeError("the provider name must not be empty");
}
