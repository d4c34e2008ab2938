/**
 * `init`: makes the platform cluster ready for `run`, idempotently (every
 * write is a server-side apply; a second init changes nothing):
 * 1. before writing anything: when the operator's manifest needs
 *    cert-manager and neither the init configuration brings it nor the
 *    cluster serves its kinds, stop and say so (PrerequisiteMissingError);
 * 2. our CRDs, Established;
 * 3. cert-manager's manifest when configured, its Deployments Available;
 * 4. the Cluster API Operator's manifest, its CRDs Established and its
 *    Deployments Available; or, for an operator someone else installed
 *    (`operator.existing`), only the check that its CRDs are Established
 *    and its Deployment Available;
 * 5. the CoreProvider `cluster-api` (the only name the operator accepts for
 *    the core) in its namespace, until the operator reports it Ready; a
 *    CoreProvider someone else made is waited for, not changed.
 * Writes are retried while the API server or a just-installed webhook
 * refuses them for a while (transient-retry.ts). Each wait ends at the
 * deadline with what is still missing, so a failed init Job says what to
 * look at.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { collectionPath, CORE_PROVIDER, CRD_FILES, objectPath } from "@edgeconnect/capi-provider-api";
import { ApiDiscovery, getIfPresent, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { findCondition, scrubText, type Condition, type ControllerLogger } from "@edgeconnect/runtime";
import { parseAllDocuments } from "yaml";
import { carriesLabels, FIELD_MANAGER, MANAGED_BY } from "../provider/provider-identity.js";
import { InstallTimeoutError, PrerequisiteMissingError } from "./errors.js";
import type { ExistingOperator, InitConfiguration, ManifestSource } from "./init-configuration.js";
import { certManagerKinds, certManagerMissing, OPERATOR_CRDS, OPERATOR_DEPLOYMENT_SELECTOR } from "./prerequisites.js";
import { untilAccepted } from "./transient-retry.js";

export { InstallTimeoutError, PrerequisiteMissingError } from "./errors.js";

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

export async function install(options: InstallOptions): Promise<void> {
  const { configuration, logger } = options;
  const discovery = new ApiDiscovery(options.client);
  const source = configuration.operator;
  const operator = "existing" in source ? undefined : await loadManifest(options, source);
  const certManager = configuration.certManager === undefined ? undefined : await loadManifest(options, configuration.certManager);
  if (operator !== undefined && certManager === undefined) await requireCertManager(options, discovery, operator);

  const own = await Promise.all(CRD_FILES.map(async (file) => parseManifest(await readFile(file, "utf8"), file)));
  await applyManifest(options, discovery, own.flat(), "our CRDs");
  if (certManager !== undefined) await applyManifest(options, discovery, certManager, "cert-manager");
  if ("existing" in source) await checkExistingOperator(options, source);
  else await applyManifest(options, discovery, operator ?? [], "the Cluster API Operator");
  await installCoreProvider(options);
  logger.info({}, "init done: the Cluster API Operator and the core provider are ready");
}

/** Stops init before it writes anything when the operator needs cert-manager kinds that nothing will bring. */
async function requireCertManager(options: InstallOptions, discovery: ApiDiscovery, operator: readonly KubeObject[]): Promise<void> {
  const needed = certManagerKinds(operator);
  const missing = [];
  for (const kind of needed) {
    if ((await discovery.served(kind.apiVersion, kind.kind, options.signal)) === undefined) missing.push(kind);
  }
  if (missing.length > 0) throw new PrerequisiteMissingError(certManagerMissing(needed, missing));
}

/** An operator installed by someone else (its Helm chart): its CRDs Established and its Deployment Available; nothing is written. */
async function checkExistingOperator(options: InstallOptions, { existing }: ExistingOperator): Promise<void> {
  const what = "the existing Cluster API Operator";
  options.logger.info({ namespace: existing.namespace ?? "(any)" }, `checking ${what}; installing nothing of it`);
  await waitFor(options, `${what}: CRDs Established`, () => notEstablished(options, OPERATOR_CRDS));
  const where = existing.namespace === undefined ? "any namespace" : `namespace ${existing.namespace}`;
  await waitFor(options, `${what}: its Deployment Available`, async () => {
    const path = `/apis/apps/v1${existing.namespace === undefined ? "" : `/namespaces/${encodeURIComponent(existing.namespace)}`}/deployments`;
    const { items } = await options.client.list<StoredDeployment>(path, { query: { labelSelector: OPERATOR_DEPLOYMENT_SELECTOR }, signal: options.signal });
    if (items.length === 0) return [`a Deployment labelled ${OPERATOR_DEPLOYMENT_SELECTOR} in ${where}`];
    return items.filter((deployment) => !isAvailable(deployment)).map((deployment) => `Deployment ${deployment.metadata.namespace ?? ""}/${deployment.metadata.name ?? ""}`);
  });
}

type StoredDeployment = KubeObject & { metadata: { generation?: number }; status?: { observedGeneration?: number; conditions?: Condition[] } };

function isAvailable(deployment: StoredDeployment | undefined): boolean {
  return findCondition(deployment?.status?.conditions, "Available")?.status === "True" && deployment?.status?.observedGeneration === deployment?.metadata.generation;
}

/** Of the CRDs named, those not Established (or not there). */
async function notEstablished(options: InstallOptions, names: readonly string[]): Promise<string[]> {
  const pending: string[] = [];
  for (const name of names) {
    const stored = await getIfPresent<KubeObject & { status?: { conditions?: Condition[] } }>(options.client, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    if (findCondition(stored?.status?.conditions, "Established")?.status !== "True") pending.push(name);
  }
  return pending;
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
  await waitFor(options, `${what}: CRDs Established`, () => notEstablished(options, crds.map((crd) => crd.metadata?.name ?? "")));
  for (const object of objects.filter((o) => o.kind !== "Namespace" && o.kind !== "CustomResourceDefinition")) await apply(options, discovery, object);
  const deployments = objects.filter((o) => o.kind === "Deployment" && o.apiVersion === "apps/v1");
  await waitFor(options, `${what}: Deployments Available`, async () => {
    const pending: string[] = [];
    for (const deployment of deployments) {
      const path = `/apis/apps/v1/namespaces/${deployment.metadata?.namespace ?? "default"}/deployments/${deployment.metadata?.name ?? ""}`;
      if (!isAvailable(await getIfPresent<StoredDeployment>(options.client, path))) pending.push(`${deployment.metadata?.namespace ?? "default"}/${deployment.metadata?.name ?? ""}`);
    }
    return pending;
  });
}

async function apply(options: InstallOptions, discovery: ApiDiscovery, object: KubeObject): Promise<void> {
  const path = await discovery.objectPath(object.apiVersion ?? "", object.kind ?? "", object.metadata?.namespace ?? "default", object.metadata?.name ?? "", options.signal);
  await applyRetrying(options, `${object.kind ?? ""} ${object.metadata?.namespace === undefined ? "" : `${object.metadata.namespace}/`}${object.metadata?.name ?? ""}`, path, object);
}

/** A server-side apply, retried while the API server or a webhook just installed refuses it for a while. */
async function applyRetrying(options: InstallOptions, what: string, path: string, body: unknown): Promise<void> {
  await untilAccepted(`applying ${what}`, () => options.client.apply(path, body, FIELD_MANAGER, { signal: options.signal }), {
    signal: options.signal,
    onRetry: (err, delayMs) => options.logger.info({ delayMs, error: err instanceof Error ? scrubText(err.message) : String(err) }, `applying ${what} was refused for now; retrying`),
  });
}

async function installCoreProvider(options: InstallOptions): Promise<void> {
  const core = options.configuration.coreProvider;
  const foreign = await foreignCoreProvider(options);
  if (foreign !== undefined) {
    // The operator allows one CoreProvider per cluster: a second one of ours would never get Ready.
    options.logger.info({ coreProvider: foreign }, "a CoreProvider made by someone else is there; waiting for it, ignoring coreProvider of the init configuration");
  } else {
    await applyRetrying(options, `Namespace ${core.namespace}`, `/api/v1/namespaces/${encodeURIComponent(core.namespace)}`, { apiVersion: "v1", kind: "Namespace", metadata: { name: core.namespace, labels: { ...MANAGED_BY } } });
    await applyRetrying(options, `CoreProvider ${core.namespace}/cluster-api`, objectPath(CORE_PROVIDER, core.namespace, "cluster-api"), coreProviderObject(options.configuration));
  }
  const namespace = foreign?.namespace ?? core.namespace;
  const name = foreign?.name ?? "cluster-api";
  const path = objectPath(CORE_PROVIDER, namespace, name);
  await waitFor(options, "the core provider Ready", async () => {
    const provider = await options.client.get<KubeObject & { status?: { conditions?: Condition[] } }>(path, { signal: options.signal });
    const ready = findCondition(provider.status?.conditions, "Ready");
    if (ready?.status === "True") return [];
    const problem = (provider.status?.conditions ?? []).find((c) => c.status !== "True");
    return [`CoreProvider ${namespace}/${name}${problem === undefined ? "" : ` (${problem.type}: ${problem.reason}: ${scrubText(problem.message)})`}`];
  });
}

function coreProviderObject({ coreProvider: core }: InitConfiguration): KubeObject {
  return {
    apiVersion: CORE_PROVIDER.apiVersion,
    kind: CORE_PROVIDER.kind,
    metadata: { name: "cluster-api", namespace: core.namespace, labels: { ...MANAGED_BY } },
    spec: {
      version: core.version,
      ...(core.fetchConfig === undefined ? {} : { fetchConfig: core.fetchConfig }),
      ...(core.configSecret === undefined ? {} : { configSecret: core.configSecret }),
      ...(core.manager === undefined ? {} : { manager: core.manager }),
    },
  };
}

/** A CoreProvider in any namespace that init did not make (a Helm release's, say). */
async function foreignCoreProvider(options: InstallOptions): Promise<{ namespace: string; name: string } | undefined> {
  const { items } = await untilAccepted("listing CoreProviders", () => options.client.list<KubeObject>(collectionPath(CORE_PROVIDER), { signal: options.signal }), { signal: options.signal });
  const other = items.find((provider) => !carriesLabels(provider, MANAGED_BY));
  return other === undefined ? undefined : { namespace: other.metadata?.namespace ?? "", name: other.metadata?.name ?? "" };
}

/** Polls `pending` (what is not there yet) until it is empty; at the deadline throws with the last answer. */
async function waitFor(options: InstallOptions, what: string, pending: () => Promise<string[]>): Promise<void> {
  let previous: string[] | undefined;
  for (;;) {
    let last: string[];
    try {
      last = await pending();
      if (last.length === 0) return;
    } catch (err) {
      // The deadline cut a check short: what the last finished check found is still the answer.
      if (options.signal.aborted) throw new InstallTimeoutError(`timed out waiting for ${what}; still missing: ${(previous ?? ["(not checked before the deadline)"]).join(", ")}`);
      last = [err instanceof Error ? scrubText(err.message) : String(err)];
    }
    previous = last;
    options.logger.debug({ pending: last }, `waiting for ${what}`);
    try {
      await sleep(options.pollIntervalMs ?? 2_000, undefined, { signal: options.signal });
    } catch {
      throw new InstallTimeoutError(`timed out waiting for ${what}; still missing: ${last.join(", ")}`);
    }
  }
}
