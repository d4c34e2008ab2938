/**
 * `init`: makes the platform cluster ready for `run`, idempotently (every
 * write is a server-side apply; a second init changes nothing):
 * 1. our CRDs, Established;
 * 2. cert-manager's manifest when configured, its Deployments Available;
 * 3. the Cluster API Operator's manifest, its CRDs Established and its
 *    Deployments Available;
 * 4. the CoreProvider `cluster-api` (the only name the operator accepts for
 *    the core) in its namespace, until the operator reports it Ready.
 * Each wait ends at the deadline with what is still missing, so a failed
 * init Job says what to look at.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { CORE_PROVIDER, CRD_FILES, objectPath } from "@edgeconnect/capi-provider-api";
import { ApiDiscovery, getIfPresent, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { findCondition, scrubText, type Condition, type ControllerLogger } from "@edgeconnect/runtime";
import { parseAllDocuments } from "yaml";
import { FIELD_MANAGER, MANAGED_BY } from "../provider/provider-identity.js";
import type { InitConfiguration, ManifestSource } from "./init-configuration.js";

export interface InstallOptions {
  readonly client: RestClient;
  readonly configuration: InitConfiguration;
  readonly logger: ControllerLogger;
  /** Ends every wait; the caller's --timeout. */
  readonly signal: AbortSignal;
  /** Between checks of a wait; default 2 s. */
  readonly pollIntervalMs?: number;
  /** Reads a URL source; default: fetch with a 60 s deadline. */
  readonly download?: (url: string, signal: AbortSignal) => Promise<string>;
}

/** A wait that ended at the deadline, saying what it waited for. */
export class InstallTimeoutError extends Error {
  override readonly name = "InstallTimeoutError";
}

export async function install(options: InstallOptions): Promise<void> {
  const { configuration, logger } = options;
  const discovery = new ApiDiscovery(options.client);
  const own = await Promise.all(CRD_FILES.map(async (file) => parseManifest(await readFile(file, "utf8"), file)));
  await applyManifest(options, discovery, own.flat(), "our CRDs");
  if (configuration.certManager !== undefined) {
    await applyManifest(options, discovery, await loadManifest(options, configuration.certManager), "cert-manager");
  }
  await applyManifest(options, discovery, await loadManifest(options, configuration.operator), "the Cluster API Operator");
  await installCoreProvider(options);
  logger.info({}, "init done: the Cluster API Operator and the core provider are ready");
}

async function loadManifest(options: InstallOptions, source: ManifestSource): Promise<KubeObject[]> {
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(60_000)]);
  let text: string;
  let where: string;
  if ("url" in source) {
    where = source.url;
    text = await (options.download ?? download)(source.url, signal);
  } else if ("file" in source) {
    where = source.file;
    text = await readFile(source.file, "utf8");
  } else {
    const { namespace, name, key = "components" } = source.configMap;
    where = `ConfigMap ${namespace}/${name} key ${key}`;
    const configMap = await options.client.get<{ data?: Record<string, string> }>(`/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps/${encodeURIComponent(name)}`, { signal });
    const value = configMap.data?.[key];
    if (value === undefined) throw new Error(`${where} does not exist`);
    text = value;
  }
  if (source.sha256 !== undefined) {
    const actual = createHash("sha256").update(text).digest("hex");
    if (actual !== source.sha256) throw new Error(`${where}: SHA-256 ${actual} is not the pinned ${source.sha256}`);
  }
  return parseManifest(text, where);
}

async function download(url: string, signal: AbortSignal): Promise<string> {
  const response = await fetch(url, { signal, redirect: "follow" });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.text();
}

export function parseManifest(text: string, where: string): KubeObject[] {
  return parseAllDocuments(text).flatMap((doc, index) => {
    if (doc.errors.length > 0) throw new Error(`${where}: document ${index + 1}: ${doc.errors[0]?.message ?? "invalid YAML"}`);
    const value = doc.toJS() as KubeObject | null;
    if (value === null || value === undefined) return [];
    if (typeof value.apiVersion !== "string" || typeof value.kind !== "string" || typeof value.metadata?.name !== "string") {
      throw new Error(`${where}: document ${index + 1} is not a Kubernetes object (apiVersion, kind, metadata.name)`);
    }
    return [value];
  });
}

async function applyManifest(options: InstallOptions, discovery: ApiDiscovery, objects: readonly KubeObject[], what: string): Promise<void> {
  const ofKind = (kind: string): KubeObject[] => objects.filter((o) => o.kind === kind);
  const crds = ofKind("CustomResourceDefinition");
  options.logger.info({ objects: objects.length }, `installing ${what}`);
  // Namespaces and CRDs first: the rest of a manifest lives in the one and is made of the other.
  for (const object of [...ofKind("Namespace"), ...crds]) await apply(options, discovery, object);
  await waitFor(options, `${what}: CRDs Established`, async () => {
    const pending: string[] = [];
    for (const crd of crds) {
      const stored = await options.client.get<KubeObject & { status?: { conditions?: Condition[] } }>(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata?.name ?? ""}`);
      if (findCondition(stored.status?.conditions, "Established")?.status !== "True") pending.push(crd.metadata?.name ?? "");
    }
    return pending;
  });
  for (const object of objects.filter((o) => o.kind !== "Namespace" && o.kind !== "CustomResourceDefinition")) await apply(options, discovery, object);
  const deployments = objects.filter((o) => o.kind === "Deployment" && o.apiVersion === "apps/v1");
  await waitFor(options, `${what}: Deployments Available`, async () => {
    const pending: string[] = [];
    for (const deployment of deployments) {
      const path = `/apis/apps/v1/namespaces/${deployment.metadata?.namespace ?? "default"}/deployments/${deployment.metadata?.name ?? ""}`;
      const stored = await getIfPresent<KubeObject & { metadata: { generation?: number }; status?: { observedGeneration?: number; conditions?: Condition[] } }>(options.client, path);
      const available = findCondition(stored?.status?.conditions, "Available")?.status === "True" && stored?.status?.observedGeneration === stored?.metadata.generation;
      if (!available) pending.push(`${deployment.metadata?.namespace ?? "default"}/${deployment.metadata?.name ?? ""}`);
    }
    return pending;
  });
}

async function apply(options: InstallOptions, discovery: ApiDiscovery, object: KubeObject): Promise<void> {
  const path = await discovery.objectPath(object.apiVersion ?? "", object.kind ?? "", object.metadata?.namespace ?? "default", object.metadata?.name ?? "", options.signal);
  await options.client.apply(path, object, FIELD_MANAGER, { signal: options.signal });
}

async function installCoreProvider(options: InstallOptions): Promise<void> {
  const core = options.configuration.coreProvider;
  await options.client.apply(`/api/v1/namespaces/${encodeURIComponent(core.namespace)}`, { apiVersion: "v1", kind: "Namespace", metadata: { name: core.namespace, labels: { ...MANAGED_BY } } }, FIELD_MANAGER, { signal: options.signal });
  const path = objectPath(CORE_PROVIDER, core.namespace, "cluster-api");
  await options.client.apply(
    path,
    {
      apiVersion: CORE_PROVIDER.apiVersion,
      kind: CORE_PROVIDER.kind,
      metadata: { name: "cluster-api", namespace: core.namespace, labels: { ...MANAGED_BY } },
      spec: {
        version: core.version,
        ...(core.fetchConfig === undefined ? {} : { fetchConfig: core.fetchConfig }),
        ...(core.configSecret === undefined ? {} : { configSecret: core.configSecret }),
        ...(core.manager === undefined ? {} : { manager: core.manager }),
      },
    },
    FIELD_MANAGER,
    { signal: options.signal },
  );
  await waitFor(options, "the core provider Ready", async () => {
    const provider = await options.client.get<KubeObject & { status?: { conditions?: Condition[] } }>(path, { signal: options.signal });
    const ready = findCondition(provider.status?.conditions, "Ready");
    if (ready?.status === "True") return [];
    const problem = (provider.status?.conditions ?? []).find((c) => c.status !== "True");
    return [`CoreProvider ${core.namespace}/cluster-api${problem === undefined ? "" : ` (${problem.type}: ${problem.reason}: ${scrubText(problem.message)})`}`];
  });
}

/** Polls `pending` (what is not there yet) until it is empty; at the deadline throws with the last answer. */
async function waitFor(options: InstallOptions, what: string, pending: () => Promise<string[]>): Promise<void> {
  for (;;) {
    let last: string[];
    try {
      last = await pending();
      if (last.length === 0) return;
    } catch (err) {
      if (options.signal.aborted) throw err;
      last = [err instanceof Error ? scrubText(err.message) : String(err)];
    }
    options.logger.debug({ pending: last }, `waiting for ${what}`);
    try {
      await sleep(options.pollIntervalMs ?? 2_000, undefined, { signal: options.signal });
    } catch {
      throw new InstallTimeoutError(`timed out waiting for ${what}; still missing: ${last.join(", ")}`);
    }
  }
}
