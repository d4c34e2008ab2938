/**
 * The provider's Connect step (reference §1.9, §2.5): find the MR's
 * ProviderConfig or ClusterProviderConfig, record a ProviderConfigUsage for
 * the MR, read the credentials Secret and turn it into OTC client options.
 * It runs on every reconcile, deletion included, in this order, so the
 * provider's known hangs happen here too: a Terminating namespace refuses
 * the usage (403), a deleted Secret fails every reconcile.
 *
 * Error messages are the provider's chain (`connect failed: cannot get
 * terraform setup: ...`) around the API server's own words.
 */
import { collectionPath, objectPath } from "@edgeconnect/api";
import { deleteIfPresent, HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { clientOptions, parseCredentials, type ClientSettings, type ConnectOptions } from "./credentials.js";
import {
  apiVersionOf,
  CLUSTER_PROVIDER_CONFIG,
  PROVIDER_CONFIG,
  PROVIDER_CONFIG_LABEL,
  PROVIDER_CONFIG_USAGE,
  PROVIDER_GROUP,
  PROVIDER_VERSION,
  type ManagedKind,
  type ManagedResource,
  type ProviderConfigReference,
} from "./resource.js";

export interface ProviderConfig extends KubeObject {
  spec?: {
    credentials?: {
      source?: string;
      secretRef?: { name?: string; namespace?: string; key?: string };
    };
  };
}

interface Secret extends KubeObject {
  data?: Record<string, string>;
}

/** Connect failed; the message is what the MR's Synced condition says. */
export class ConnectError extends Error {
  override readonly name = "ConnectError";

  constructor(reason: string, options?: { cause?: unknown }) {
    super(`connect failed: cannot get terraform setup: ${reason}`, options);
  }
}

export interface ConnectContext {
  readonly client: Pick<RestClient, "get" | "apply" | "delete">;
  readonly fieldManager: string;
  readonly settings: ClientSettings;
  readonly signal: AbortSignal;
}

export const DEFAULT_PROVIDER_CONFIG_REF: ProviderConfigReference = { kind: "ClusterProviderConfig", name: "default" };

/** Connects `mr` (of `kind`) as the provider does; throws ConnectError. */
export async function connectOptions(mr: ManagedResource, kind: ManagedKind, context: ConnectContext): Promise<ConnectOptions> {
  const namespace = mr.metadata?.namespace ?? "";
  const ref = mr.spec?.providerConfigRef ?? DEFAULT_PROVIDER_CONFIG_REF;
  const config = await providerConfig(ref, namespace, context);
  await trackUsage(mr, kind, ref, context);
  const values = await credentials(config, ref, namespace, context);
  try {
    return clientOptions(values, context.settings);
  } catch (err) {
    throw new ConnectError(`cannot extract credentials: ${messageOf(err)}`, { cause: err });
  }
}

async function providerConfig(ref: ProviderConfigReference, namespace: string, context: ConnectContext): Promise<ProviderConfig> {
  const configKind = ref.kind === "ProviderConfig" ? PROVIDER_CONFIG : ref.kind === "ClusterProviderConfig" ? CLUSTER_PROVIDER_CONFIG : undefined;
  if (configKind === undefined) throw new ConnectError(`unsupported provider config kind "${ref.kind}": ProviderConfig or ClusterProviderConfig`);
  // Not objectPath, which throws on an empty name: the CRDs allow an empty providerConfigRef.name, and its request goes to the API server like any other.
  const path = `${collectionPath(configKind, configKind === PROVIDER_CONFIG ? namespace : undefined)}/${encodeURIComponent(ref.name)}`;
  try {
    return await context.client.get<ProviderConfig>(path, { signal: context.signal });
  } catch (err) {
    throw new ConnectError(`cannot get referenced ${ref.kind}: ${messageOf(err)}`, { cause: err });
  }
}

/**
 * crossplane-runtime's usage tracker: a ProviderConfigUsage named after the
 * MR's uid, in the MR's namespace, owned by the MR (garbage-collected with
 * it). Applied every time, so a deleted one is created again, which a
 * Terminating namespace refuses.
 */
async function trackUsage(mr: ManagedResource, kind: ManagedKind, ref: ProviderConfigReference, context: ConnectContext): Promise<void> {
  const uid = mr.metadata?.uid ?? "";
  const namespace = mr.metadata?.namespace ?? "";
  const name = mr.metadata?.name ?? "";
  const usage = {
    apiVersion: `${PROVIDER_GROUP}/${PROVIDER_VERSION}`,
    kind: "ProviderConfigUsage",
    metadata: {
      name: uid,
      namespace,
      labels: { [PROVIDER_CONFIG_LABEL]: ref.name },
      ownerReferences: [{ apiVersion: apiVersionOf(kind), kind: kind.kind, name, uid, controller: true, blockOwnerDeletion: true }],
    },
    providerConfigRef: { kind: ref.kind, name: ref.name },
    resourceRef: { apiVersion: apiVersionOf(kind), kind: kind.kind, name, uid },
  };
  try {
    await context.client.apply(objectPath(PROVIDER_CONFIG_USAGE, namespace, uid), usage, context.fieldManager, { signal: context.signal });
  } catch (err) {
    throw new ConnectError(`cannot track ProviderConfig usage: cannot apply ProviderConfigUsage: ${messageOf(err)}`, { cause: err });
  }
}

/**
 * Deletes the MR's ProviderConfigUsage once the MR is released: what the
 * garbage collector does through the owner reference, done here because a
 * bare kube-apiserver (the test clusters) has no garbage collector.
 */
export async function releaseUsage(mr: ManagedResource, context: Pick<ConnectContext, "client" | "signal">): Promise<void> {
  await deleteIfPresent(context.client, objectPath(PROVIDER_CONFIG_USAGE, mr.metadata?.namespace, mr.metadata?.uid ?? ""), { signal: context.signal });
}

async function credentials(config: ProviderConfig, ref: ProviderConfigReference, namespace: string, context: ConnectContext): Promise<Record<string, string>> {
  const fail = (reason: string, cause?: unknown): ConnectError => new ConnectError(`cannot extract credentials: ${reason}`, { cause });
  const source = config.spec?.credentials?.source;
  if (source !== "Secret") throw fail(`credentials source ${source ?? "(none)"} is not currently supported`);
  const secretRef = config.spec?.credentials?.secretRef;
  // A namespaced ProviderConfig serves only its own namespace: its Secret is read there, whatever secretRef says.
  const secretNamespace = ref.kind === "ProviderConfig" ? namespace : secretRef?.namespace;
  if (secretRef?.name === undefined || secretRef.key === undefined || secretNamespace === undefined) {
    throw fail("cannot get credentials secret: secretRef needs name, namespace and key");
  }
  let secret: Secret;
  try {
    secret = await context.client.get<Secret>(`/api/v1/namespaces/${encodeURIComponent(secretNamespace)}/secrets/${encodeURIComponent(secretRef.name)}`, {
      signal: context.signal,
    });
  } catch (err) {
    throw fail(`cannot get credentials secret: ${messageOf(err)}`, err);
  }
  const encoded = secret.data?.[secretRef.key];
  if (encoded === undefined) throw fail(`cannot get credentials secret: secret ${secretNamespace}/${secretRef.name} has no key ${secretRef.key}`);
  try {
    return { ...parseCredentials(Buffer.from(encoded, "base64").toString("utf8")) };
  } catch (err) {
    throw fail(messageOf(err), err);
  }
}

/** The API server's own words for a failed request (`secrets "otc" not found`), else the error's message. */
export function messageOf(err: unknown): string {
  if (err instanceof HttpStatusError) return err.statusObject?.message ?? err.message;
  return err instanceof Error ? err.message : String(err);
}
