/**
 * From a tenant's ProviderConfig to credentials IAM accepted, step by step,
 * each failure with a reason and a message that tells the tenant what to
 * change. Values read from the Secret are held as credentials (by the
 * ProviderConfig, see secret-holders.ts) before anything else sees them, so
 * no log line, Event or status can carry them.
 */
import { SECRET_LABEL, type ProviderConfig } from "@edgeconnect/api";
import { credentialsText, parseOtcCredentials, REASON, type OtcCredentials } from "@edgeconnect/provisioning";
import { holdSecrets, releaseSecrets, type ClusterScope, type DeepReadonly } from "@edgeconnect/runtime";
import { authUrlAllowed } from "../cli/flags.js";
import type { OtcGateway } from "../otc/otc-gateway.js";
import { providerConfigSecrets } from "./secret-holders.js";
import type { TenantResources } from "./tenant-resources.js";

export const DEFAULT_SECRET_KEY = "credentials";

export type CredentialsOutcome =
  | {
      readonly ok: true;
      readonly credentials: OtcCredentials;
      readonly projectId: string;
      readonly providerConfig: DeepReadonly<ProviderConfig>;
    }
  | {
      readonly ok: false;
      readonly reason: string;
      readonly message: string;
      /** IAM could not be asked: not the tenant's fault, retry with backoff. */
      readonly transient?: boolean;
      /** When a rejected set will be asked again. */
      readonly retryAfterMs?: number;
      readonly providerConfig?: DeepReadonly<ProviderConfig>;
    };

export interface CredentialsContext {
  readonly resources: TenantResources;
  readonly gateway: OtcGateway;
  readonly allowedAuthUrls: readonly string[];
}

/** Reads and checks the credentials `configName` in `namespace` names; asks IAM only when everything else is in order. */
export async function resolveCredentials(
  context: CredentialsContext,
  scope: ClusterScope,
  namespace: string,
  configName: string,
  signal: AbortSignal,
): Promise<CredentialsOutcome> {
  const providerConfig = scope.lister(context.resources.providerConfigs).get(namespace, configName);
  if (providerConfig === undefined) {
    return {
      ok: false,
      reason: "ProviderConfigNotFound",
      message: `ProviderConfig "${configName}" does not exist in namespace "${namespace}"; create it or change spec.providerRef.configRef.name`,
    };
  }
  const outcome = await checkProviderConfig(context, scope, providerConfig, signal);
  return outcome.ok ? outcome : { ...outcome, providerConfig };
}

export async function checkProviderConfig(
  context: CredentialsContext,
  scope: ClusterScope,
  providerConfig: DeepReadonly<ProviderConfig>,
  signal: AbortSignal,
): Promise<CredentialsOutcome> {
  const ref = providerConfig.spec?.credentials.secretRef;
  const configName = providerConfig.metadata?.name ?? "";
  if (ref === undefined) {
    return { ok: false, reason: "InvalidProviderConfig", message: `ProviderConfig "${configName}" has no spec.credentials.secretRef` };
  }
  const namespace = providerConfig.metadata?.namespace ?? "";
  // Another namespace would let whoever may write ProviderConfigs here have the platform read Secrets they cannot: a confused deputy.
  if (ref.namespace !== undefined && ref.namespace !== namespace) {
    return {
      ok: false,
      reason: "InvalidProviderConfig",
      message: `ProviderConfig "${configName}" names a Secret in namespace "${ref.namespace}"; a ProviderConfig may only use Secrets of its own namespace "${namespace}": remove spec.credentials.secretRef.namespace`,
    };
  }
  const key = ref.key ?? DEFAULT_SECRET_KEY;
  const holder = providerConfigSecrets(scope.cluster, namespace, configName);
  const secret = scope.lister(context.resources.secrets).get(namespace, ref.name);
  if (secret === undefined) {
    releaseSecrets(holder);
    return {
      ok: false,
      reason: "SecretNotFound",
      message:
        `Secret "${namespace}/${ref.name}" named by ProviderConfig "${configName}" is not visible to the platform: create it with key "${key}" ` +
        `and label ${SECRET_LABEL.key}=${SECRET_LABEL.value} (the platform sees only Secrets with that label, and only once the workspace has accepted the binding's claim on Secrets)`,
    };
  }
  const encoded = secret.data?.[key];
  if (encoded === undefined || encoded === "") {
    releaseSecrets(holder);
    return { ok: false, reason: "SecretKeyMissing", message: `Secret "${namespace}/${ref.name}" has no key "${key}"; put the OTC credentials there` };
  }
  // Bounded before anything is decoded, held or parsed: a tenant's Secret may hold a megabyte.
  const readable = credentialsText(encoded);
  if (!readable.ok) {
    releaseSecrets(holder);
    return { ok: false, reason: "InvalidCredentials", message: `the credentials in Secret "${namespace}/${ref.name}" key "${key}" cannot be used: ${readable.problem}` };
  }
  const text = readable.text;
  const parsed = parseOtcCredentials(text);
  // In one holding, before any message is made from the parse: holding the text alone first would churn the registry every reconcile.
  holdSecrets(holder, [text, ...(parsed.ok ? credentialValues(parsed.credentials) : [])]);
  if (!parsed.ok) {
    return {
      ok: false,
      reason: "InvalidCredentials",
      message: `the credentials in Secret "${namespace}/${ref.name}" key "${key}" cannot be used: ${parsed.problems.join("; ")}`,
    };
  }
  const credentials = parsed.credentials;
  if (!authUrlAllowed(credentials.authUrl, context.allowedAuthUrls)) {
    return { ok: false, reason: "AuthUrlNotAllowed", message: "auth_url is not one of the OTC IAM endpoints this platform accepts; use your region's IAM URL" };
  }
  let verdict;
  try {
    verdict = await context.gateway.verify(credentials, signal);
  } catch (err) {
    if (signal.aborted) throw err;
    return { ok: false, reason: "IamUnreachable", message: "OTC IAM could not be reached to check the credentials; retrying", transient: true };
  }
  if (!verdict.accepted) {
    const retryAfterMs = context.gateway.retryAfterMs(credentials);
    return {
      ok: false,
      reason: REASON.CredentialsRejected,
      message: `OTC IAM rejected the credentials: ${verdict.message}; fix them in Secret "${namespace}/${ref.name}"`,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  return { ok: true, credentials, projectId: verdict.projectId, providerConfig };
}

function credentialValues(credentials: OtcCredentials): string[] {
  return credentials.mode === "password" ? [credentials.password] : [credentials.accessKey, credentials.secretKey];
}
