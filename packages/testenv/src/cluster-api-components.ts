/**
 * The components of a Cluster API provider (and of the Cluster API Operator)
 * as clusterctl and the operator consume them: what `kustomize build
 * config/default` makes of the pinned module's files, done here by hand, and
 * the module's clusterctl metadata.yaml. `fetchConfigMap` wraps both into the
 * ConfigMap an air-gapped operator install reads (`fetchConfig.selector`).
 *
 * Reproduced from kustomize: each kustomization's `resources`, its `labels`
 * (with `includeSelectors`, also on a Deployment's selector and pod
 * template), the strategic-merge `patches` of config/default, `namespace` on
 * namespaced objects and as the name of the one Namespace, `namePrefix` on
 * every name but a CRD's, and the references that follow a renamed object
 * (roleRef, ServiceAccount subjects with their namespace,
 * serviceAccountName); objects in kustomize's legacy order.
 *
 * Left out on purpose, because `ClusterApiStack` registers loopback webhooks
 * of its own and there is no cert-manager here: the webhook configurations,
 * the webhook Service, cert-manager's Certificates and Issuers, the CRDs'
 * conversion-webhook and CA-injection patches and the cert-manager
 * annotations the `replacements` add. The Deployment keeps the webhook patch's
 * volume of the serving-certificate Secret, which nothing creates; nothing
 * runs that Deployment either (see `DeploymentStandIn`).
 */
import { readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { parse as parseYaml, stringify } from "yaml";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { parseManifests } from "./apply.js";
import { moduleSource, REPO_ROOT, type BinaryName } from "./binaries.js";
import type { ClusterApiManager, ClusterApiProvider } from "./cluster-api.js";
import { cachedPromise } from "./promise-cache.js";

interface ComponentSource {
  readonly binary: BinaryName;
  /** The config/ directory inside the module. */
  readonly configDir: string;
  /** clusterctl's metadata.yaml inside the module; the operator is no clusterctl provider and has none. */
  readonly metadata?: string;
}

export const COMPONENT_SOURCES: Readonly<Record<ClusterApiManager, ComponentSource>> = {
  core: { binary: "capi-core", configDir: "core/config", metadata: "metadata.yaml" },
  // One Cluster API release publishes one metadata.yaml for all its providers.
  "kubeadm-bootstrap": { binary: "capi-kubeadm-bootstrap", configDir: "bootstrap/kubeadm/config", metadata: "metadata.yaml" },
  "kubeadm-control-plane": { binary: "capi-kubeadm-control-plane", configDir: "controlplane/kubeadm/config", metadata: "metadata.yaml" },
  // The test module has no metadata.yaml of its own; this is the one upstream's
  // e2e hands clusterctl for the docker provider built from source.
  dev: { binary: "capi-dev", configDir: "infrastructure/docker/config", metadata: "e2e/data/shared/main/metadata.yaml" },
  operator: { binary: "capi-operator", configDir: "config" },
};

/** Where a manager's config/ directory is, in the Go module cache. */
export async function configDirectory(manager: ClusterApiManager, repoRoot?: string): Promise<{ readonly dir: string; readonly version: string }> {
  const source = await moduleSource(COMPONENT_SOURCES[manager].binary, repoRoot);
  return { dir: join(source.dir, COMPONENT_SOURCES[manager].configDir), version: source.version };
}

export interface ComponentsOptions {
  readonly repoRoot?: string;
}

export interface Components {
  /** The pinned version of the module, e.g. v1.14.2. */
  readonly version: string;
  /** The namespace config/default puts everything in. */
  readonly namespace: string;
  /** The manager's Deployment. */
  readonly deployment: { readonly namespace: string; readonly name: string };
  /** Multi-document YAML. */
  readonly components: string;
  /** Absent for the operator: see `ProviderComponents`. */
  readonly metadata?: string;
}

export interface ProviderComponents extends Components {
  /** clusterctl's metadata.yaml: release series and their contracts. */
  readonly metadata: string;
}

/** Built components, by provider and repository root. */
const componentsCache = new Map<string, Promise<Components>>();

/** The components of a provider at its pinned version, with its metadata.yaml; for "operator", the operator's own. */
export async function providerComponents(provider: ClusterApiProvider, options?: ComponentsOptions): Promise<ProviderComponents>;
export async function providerComponents(provider: ClusterApiManager, options?: ComponentsOptions): Promise<Components>;
export async function providerComponents(provider: ClusterApiManager, options: ComponentsOptions = {}): Promise<Components> {
  // Built once per provider and repository: the pinned module's files do not change, and callers
  // ask often (the stack's stand-in Deployments, every ConfigMap). Components are read only.
  return cachedPromise(componentsCache, `${provider}\0${resolve(options.repoRoot ?? REPO_ROOT)}`, () => buildComponents(provider, options.repoRoot));
}

async function buildComponents(provider: ClusterApiManager, repoRoot: string | undefined): Promise<Components> {
  const source = await moduleSource(COMPONENT_SOURCES[provider].binary, repoRoot);
  const configDir = join(source.dir, COMPONENT_SOURCES[provider].configDir);
  const defaults = readKustomization(join(configDir, "default"));
  const namespace = defaults.namespace;
  if (namespace === undefined) throw new Error(`${configDir}/default/kustomization.yaml sets no namespace`);
  const objects = build(join(configDir, "default")).sort(legacyOrder);
  const deployments = objects.filter((obj) => obj.kind === "Deployment");
  const [deployment] = deployments;
  if (deployment === undefined || deployments.length > 1) throw new Error(`${configDir}: expected one Deployment, found ${deployments.length}`);
  const metadataFile = COMPONENT_SOURCES[provider].metadata;
  return {
    version: source.version,
    namespace,
    deployment: { namespace, name: deployment.metadata?.name ?? "" },
    components: objects.map((obj) => stringify(obj, { lineWidth: 0 })).join("---\n"),
    ...(metadataFile === undefined ? {} : { metadata: readFileSync(join(source.dir, metadataFile), "utf8") }),
  };
}

/** The operator's label naming a ConfigMap's version when its name does not. */
const VERSION_LABEL = "provider.cluster.x-k8s.io/version";
/** The operator's marker of gzipped components in `binaryData`. */
const COMPRESSED_ANNOTATION = "provider.cluster.x-k8s.io/compressed";
/** Above this many bytes of metadata plus components the operator compresses, and so must we: it is also the API server's limit on a ConfigMap. */
const MAX_CONFIGMAP_BYTES = 1024 * 1024;

export interface FetchConfigMapOptions extends ComponentsOptions {
  /** The provider object's namespace: the operator looks for the ConfigMap there. */
  readonly namespace: string;
  /** What the provider's `fetchConfig.selector.matchLabels` selects. */
  readonly labels: Readonly<Record<string, string>>;
  /** Default: the version. */
  readonly name?: string;
}

/** A ConfigMap holding one provider version for an operator install through `fetchConfig.selector`. */
export async function fetchConfigMap(provider: ClusterApiProvider, options: FetchConfigMapOptions): Promise<KubeObject> {
  const { version, metadata, components } = await providerComponents(provider, options);
  const compress = Buffer.byteLength(metadata) + Buffer.byteLength(components) > MAX_CONFIGMAP_BYTES;
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: options.name ?? version,
      namespace: options.namespace,
      labels: { ...options.labels, [VERSION_LABEL]: version },
      ...(compress ? { annotations: { [COMPRESSED_ANNOTATION]: "true" } } : {}),
    },
    data: compress ? { metadata } : { metadata, components },
    ...(compress ? { binaryData: { components: gzipSync(components).toString("base64") } } : {}),
  };
}

interface Kustomization {
  readonly namespace?: string;
  readonly namePrefix?: string;
  readonly labels?: readonly { readonly pairs?: Record<string, string>; readonly includeSelectors?: boolean }[];
  readonly resources?: readonly string[];
  readonly patches?: readonly { readonly path?: string }[];
}

/**
 * Fields of a kustomization that change nothing here: `replacements` only
 * wire cert-manager's names, `configurations` teach kustomize the webhook
 * and conversion references. Any other field fails the build, so that a
 * new version's kustomization cannot differ silently.
 */
const KNOWN_FIELDS = new Set(["apiVersion", "kind", "namespace", "namePrefix", "labels", "resources", "patches", "replacements", "configurations"]);

/** Resource directories left out (see the file's comment). */
const LEFT_OUT_DIRECTORIES = new Set(["webhook", "certmanager"]);

/** Patches of these kinds only add conversion webhooks and cert-manager's CA injection. */
const LEFT_OUT_PATCH_KINDS = new Set(["CustomResourceDefinition", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]);

const CLUSTER_SCOPED = new Set(["Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding"]);

function readKustomization(dir: string): Kustomization {
  const doc = parseYaml(readFileSync(join(dir, "kustomization.yaml"), "utf8")) as Record<string, unknown> | null;
  const unknown = Object.keys(doc ?? {}).filter((field) => !KNOWN_FIELDS.has(field));
  if (unknown.length > 0) throw new Error(`${dir}/kustomization.yaml: unsupported fields ${unknown.join(", ")}`);
  return doc ?? {};
}

function build(dir: string): KubeObject[] {
  const kustomization = readKustomization(dir);
  let objects: KubeObject[] = [];
  for (const resource of kustomization.resources ?? []) {
    const path = join(dir, resource);
    if (statSync(path).isDirectory()) {
      if (!LEFT_OUT_DIRECTORIES.has(basename(path))) objects.push(...build(path));
    } else {
      objects.push(...parseManifests(readFileSync(path, "utf8")));
    }
  }
  for (const entry of kustomization.patches ?? []) {
    if (entry.path === undefined || Object.keys(entry).length > 1) throw new Error(`${dir}: only \`- path:\` patches are supported`);
    for (const patch of parseManifests(readFileSync(join(dir, entry.path), "utf8"))) {
      if (LEFT_OUT_PATCH_KINDS.has(patch.kind ?? "")) continue;
      const index = objects.findIndex((obj) => obj.kind === patch.kind && obj.metadata?.name === patch.metadata?.name);
      if (index < 0) throw new Error(`${dir}/${entry.path}: no ${patch.kind ?? ""} ${patch.metadata?.name ?? ""} to patch`);
      objects[index] = strategicMerge(objects[index], patch) as KubeObject;
    }
  }
  objects = rename(objects, kustomization.namespace, kustomization.namePrefix ?? "");
  for (const { pairs = {}, includeSelectors = false } of kustomization.labels ?? []) {
    objects = objects.map((obj) => addLabels(obj, pairs, includeSelectors));
  }
  return objects;
}

/** List fields merged by a key, as the Kubernetes types declare them; other lists are replaced. */
const MERGE_KEYS: Readonly<Record<string, string>> = {
  containers: "name",
  initContainers: "name",
  env: "name",
  ports: "containerPort",
  volumeMounts: "mountPath",
  volumes: "name",
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !isList(value);
}

function isList(value: unknown): value is unknown[] {
  return Array.isArray(value);
}

function strategicMerge(target: unknown, patch: unknown, field?: string): unknown {
  if (isRecord(target) && isRecord(patch)) {
    const merged: Record<string, unknown> = { ...target };
    for (const [key, value] of Object.entries(patch)) {
      if (key.startsWith("$")) throw new Error(`patch directive ${key} is not supported`);
      if (value === null) delete merged[key];
      else merged[key] = strategicMerge(merged[key], value, key);
    }
    return merged;
  }
  const key = field === undefined ? undefined : MERGE_KEYS[field];
  if (key !== undefined && isList(target) && isList(patch)) {
    const merged = [...target];
    for (const item of patch) {
      const index = merged.findIndex((existing) => isRecord(existing) && isRecord(item) && existing[key] === item[key]);
      if (index < 0) merged.push(item);
      else merged[index] = strategicMerge(merged[index], item);
    }
    return merged;
  }
  return patch;
}

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

/** kustomize's namespace and namePrefix, and the references to what they renamed. */
function rename(objects: KubeObject[], namespace: string | undefined, prefix: string): KubeObject[] {
  if (namespace === undefined && prefix === "") return objects;
  const renamed = (kind: string, name: string | undefined): string | undefined =>
    objects.some((obj) => obj.kind === kind && obj.metadata?.name === name) ? `${prefix}${name ?? ""}` : undefined;
  return objects.map((obj) => {
    const kind = obj.kind ?? "";
    const name = obj.metadata?.name ?? "";
    const metadata = { ...obj.metadata };
    if (kind === "Namespace") metadata.name = namespace ?? `${prefix}${name}`;
    else if (kind !== "CustomResourceDefinition") metadata.name = `${prefix}${name}`;
    if (namespace !== undefined && !CLUSTER_SCOPED.has(kind)) metadata.namespace = namespace;
    const result: KubeObject = { ...obj, metadata };
    if (kind === "RoleBinding" || kind === "ClusterRoleBinding") {
      const roleRef = obj.roleRef as { kind?: string; name?: string } | undefined;
      const role = roleRef === undefined ? undefined : renamed(roleRef.kind ?? "", roleRef.name);
      if (role !== undefined) result.roleRef = { ...roleRef, name: role };
      result.subjects = ((obj.subjects as Subject[] | undefined) ?? []).map((subject) => {
        const account = subject.kind === "ServiceAccount" ? renamed("ServiceAccount", subject.name) : undefined;
        return account === undefined ? subject : { ...subject, name: account, ...(namespace === undefined ? {} : { namespace }) };
      });
    }
    if (kind === "Deployment") {
      const podSpec = (obj as { spec?: { template?: { spec?: { serviceAccountName?: string } } } }).spec?.template?.spec;
      const account = renamed("ServiceAccount", podSpec?.serviceAccountName);
      if (account !== undefined) return strategicMerge(result, { spec: { template: { spec: { serviceAccountName: account } } } }) as KubeObject;
    }
    return result;
  });
}

function addLabels(obj: KubeObject, labels: Record<string, string>, includeSelectors: boolean): KubeObject {
  const labelled: KubeObject = { ...obj, metadata: { ...obj.metadata, labels: { ...obj.metadata?.labels, ...labels } } };
  if (!includeSelectors || obj.kind !== "Deployment") return labelled;
  return strategicMerge(labelled, { spec: { selector: { matchLabels: labels }, template: { metadata: { labels } } } }) as KubeObject;
}

/** The start of kustomize's legacy order; other kinds follow, by kind. */
const KIND_ORDER = ["Namespace", "CustomResourceDefinition", "ServiceAccount", "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding", "ConfigMap", "Secret", "Service", "Deployment"];

function legacyOrder(a: KubeObject, b: KubeObject): number {
  const rank = (obj: KubeObject): number => {
    const index = KIND_ORDER.indexOf(obj.kind ?? "");
    return index < 0 ? KIND_ORDER.length : index;
  };
  return rank(a) - rank(b) || (a.kind ?? "").localeCompare(b.kind ?? "") || (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? "");
}
