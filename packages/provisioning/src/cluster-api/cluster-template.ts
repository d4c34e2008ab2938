/**
 * The Cluster API objects of one cluster, from the template a platform team
 * configures: either a Cluster with a managed topology, for which a
 * ClusterClass provides everything else, or a Cluster that references
 * infrastructure and control-plane objects given verbatim in the template.
 *
 * Placeholders (`${CLUSTER_NAME}`, `${NAMESPACE}`, `${KUBERNETES_VERSION}` and
 * the caller's variables) are replaced in string values of the parsed
 * template only, never in its text or in object keys: a value cannot add
 * fields, list items or objects, and it is inserted as is, never expanded
 * again. So numbers cannot come from placeholders: replica counts are
 * numbers in the template, or the caller's `workerReplicas` for every
 * worker group. `$${` stands for a literal `${`.
 */
import type { GroupVersionKind } from "../crossplane/managed-resources.js";
import { ClusterTemplateError } from "./cluster-template-error.js";
import { normalizeClusterApiVersion } from "./kubernetes-version.js";

const GROUP = "cluster.x-k8s.io";
const API_VERSION = `${GROUP}/v1beta2` as const;

export const CLUSTER_API_CLUSTER: GroupVersionKind = {
  group: GROUP,
  version: "v1beta2",
  kind: "Cluster",
  plural: "clusters",
  apiVersion: API_VERSION,
  namespaced: true,
};

const CLUSTER_NAME = "CLUSTER_NAME";
const NAMESPACE = "NAMESPACE";
const KUBERNETES_VERSION = "KUBERNETES_VERSION";
/** Set from the cluster being rendered; `KUBERNETES_VERSION` with its leading `v`. */
export const BUILTIN_TEMPLATE_VARIABLES: readonly string[] = [CLUSTER_NAME, NAMESPACE, KUBERNETES_VERSION];

/** A v1beta2 ContractVersionedObjectReference: the version comes from the referenced CRD's contract label. */
export interface ContractVersionedObjectReference {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface TopologyVariable {
  name: string;
  /** As the ClusterClass's schema for the variable wants it; strings in it are substituted. */
  value: unknown;
}

export interface WorkerTopology {
  /** The worker class in the ClusterClass. */
  class: string;
  /** Unique among the machine deployments (machine pools) of the cluster. */
  name: string;
  replicas?: number;
}

export interface ClusterClassTemplate {
  /** The ClusterClass (`topology.classRef`); without namespace, the one in the Cluster's namespace. */
  name: string;
  namespace?: string;
  variables?: TopologyVariable[];
  controlPlane?: { replicas?: number };
  workers?: { machineDeployments?: WorkerTopology[]; machinePools?: WorkerTopology[] };
  /** `spec.clusterNetwork`, which topology clusters set too (pod and service CIDRs, service domain). */
  clusterNetwork?: Record<string, unknown>;
}

export interface ObjectsTemplate {
  /** Must name an object in `resources`. */
  infrastructureRef: ContractVersionedObjectReference;
  /** When given, must name an object in `resources`. */
  controlPlaneRef?: ContractVersionedObjectReference;
  clusterNetwork?: Record<string, unknown>;
  /** Complete objects, rendered into the Cluster's namespace with the Cluster's labels added. */
  resources: Record<string, unknown>[];
}

export type ClusterTemplate = { clusterClass: ClusterClassTemplate } | { objects: ObjectsTemplate };

export interface ClusterApiObjectsInput {
  /** The Cluster's name and namespace, also `${CLUSTER_NAME}` and `${NAMESPACE}`. */
  name: string;
  namespace: string;
  /** `1.34.1` or `v1.34.1`; required for a ClusterClass template. */
  kubernetesVersion?: string;
  /** On the Cluster and every resource, overriding the template's labels of the same key. */
  labels: Record<string, string>;
  template: ClusterTemplate;
  /** Further `${NAME}` placeholders; names of letters, digits and `_`, not the built-in ones. */
  variables?: Record<string, string>;
  /**
   * The replicas of every machine deployment and machine pool of a
   * ClusterClass template, in place of the template's own (which are then
   * not looked at); checked as the template's would be. Objects templates
   * keep theirs: their node groups are provider kinds whose replica fields
   * are not known here.
   */
  workerReplicas?: number;
}

/** Type aliases rather than interfaces, so that the objects are assignable to clients' index-signature types. */
export type ClusterTopology = {
  classRef: { name: string; namespace?: string };
  /** With the leading `v`. */
  version: string;
  variables?: TopologyVariable[];
  controlPlane?: { replicas: number };
  workers?: { machineDeployments?: WorkerTopology[]; machinePools?: WorkerTopology[] };
};

export type ClusterApiCluster = {
  apiVersion: typeof API_VERSION;
  kind: "Cluster";
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  spec: {
    topology?: ClusterTopology;
    infrastructureRef?: ContractVersionedObjectReference;
    controlPlaneRef?: ContractVersionedObjectReference;
    clusterNetwork?: Record<string, unknown>;
  };
};

export type RenderedResource = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; labels: Record<string, string>; [field: string]: unknown };
  [field: string]: unknown;
};

export interface ClusterApiObjects {
  cluster: ClusterApiCluster;
  /** In the template's order. */
  resources: RenderedResource[];
}

/**
 * The Cluster and the template's resources for one cluster. Throws a
 * ClusterTemplateError listing every problem of the template, the
 * variables or the Kubernetes version.
 */
export function renderClusterApiObjects(input: ClusterApiObjectsInput): ClusterApiObjects {
  const problems: string[] = [];
  const objects = render(input, problems);
  if (objects === undefined || problems.length > 0) throw new ClusterTemplateError(problems);
  return objects;
}

/**
 * The problems of a template before any cluster uses it (empty when there
 * are none), for the variables `variableNames` in addition to the built-in
 * ones. Names in the template are compared as written, placeholders
 * unreplaced: the rendering of a particular cluster may still find clashes.
 */
export function validateClusterTemplate(template: unknown, variableNames: Iterable<string> = []): string[] {
  const names = [...variableNames];
  const problems = variableNameProblems(names);
  const known = new Set([...names, ...BUILTIN_TEMPLATE_VARIABLES]);
  const substitution: Substitution = { variable: (name) => (known.has(name) ? `\${${name}}` : undefined), escape: "$${", names: [...known] };
  parseTemplate(substituteDeep(template, "", substitution, problems), problems);
  return problems;
}

function versionOrProblem(version: string, problems: string[]): string | undefined {
  try {
    return normalizeClusterApiVersion(version);
  } catch (error) {
    if (!(error instanceof ClusterTemplateError)) throw error;
    problems.push(...error.problems);
    return undefined;
  }
}

/** The objects, or undefined after adding to `problems`. */
function render(input: ClusterApiObjectsInput, problems: string[]): ClusterApiObjects | undefined {
  const version = input.kubernetesVersion === undefined ? undefined : versionOrProblem(input.kubernetesVersion, problems);
  const variables = input.variables ?? {};
  problems.push(...variableNameProblems(Object.keys(variables)));
  const values = new Map<string, string>([...Object.entries(variables), [CLUSTER_NAME, input.name], [NAMESPACE, input.namespace]]);
  // A bad version is reported once, not again at every place that uses it.
  if (input.kubernetesVersion !== undefined) values.set(KUBERNETES_VERSION, version ?? input.kubernetesVersion);
  const substitution: Substitution = { variable: (name) => values.get(name), escape: "${", names: [...values.keys()] };
  const template = parseTemplate(substituteDeep(input.template, "", substitution, problems), problems, input.workerReplicas);
  if (template === undefined) return undefined;

  const metadata = { name: input.name, namespace: input.namespace, labels: { ...input.labels } };
  if ("clusterClass" in template) {
    if (version === undefined) {
      if (input.kubernetesVersion === undefined) problems.push("a ClusterClass template needs a Kubernetes version for topology.version, and the cluster has none");
      return undefined;
    }
    return { cluster: { apiVersion: API_VERSION, kind: "Cluster", metadata, spec: classSpec(template.clusterClass, version) }, resources: [] };
  }
  const { objects } = template;
  return {
    cluster: {
      apiVersion: API_VERSION,
      kind: "Cluster",
      metadata,
      spec: {
        infrastructureRef: objects.infrastructureRef,
        ...(objects.controlPlaneRef === undefined ? {} : { controlPlaneRef: objects.controlPlaneRef }),
        ...(objects.clusterNetwork === undefined ? {} : { clusterNetwork: objects.clusterNetwork }),
      },
    },
    resources: objects.resources.map((resource) => ({
      ...resource.object,
      apiVersion: resource.apiVersion,
      kind: resource.kind,
      metadata: { ...resource.metadata, name: resource.name, namespace: input.namespace, labels: { ...resource.labels, ...input.labels } },
    })),
  };
}

function classSpec(template: ClusterClassTemplate, version: string): ClusterApiCluster["spec"] {
  const machineDeployments = template.workers?.machineDeployments ?? [];
  const machinePools = template.workers?.machinePools ?? [];
  const replicas = template.controlPlane?.replicas;
  // The CRD wants lists with at least one item and objects with at least one field, or none at all.
  const topology: ClusterTopology = {
    classRef: { name: template.name, ...(template.namespace === undefined ? {} : { namespace: template.namespace }) },
    version,
    ...(template.variables === undefined || template.variables.length === 0 ? {} : { variables: template.variables }),
    ...(replicas === undefined ? {} : { controlPlane: { replicas } }),
    ...(machineDeployments.length === 0 && machinePools.length === 0
      ? {}
      : {
          workers: {
            ...(machineDeployments.length === 0 ? {} : { machineDeployments }),
            ...(machinePools.length === 0 ? {} : { machinePools }),
          },
        }),
  };
  return { topology, ...(template.clusterNetwork === undefined ? {} : { clusterNetwork: template.clusterNetwork }) };
}

// --- substitution ---

interface Substitution {
  /** The text for `${name}`; undefined when there is no such variable. */
  variable(name: string): string | undefined;
  /** The text for `$${`. */
  escape: string;
  /** For messages. */
  names: readonly string[];
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** `$${`, or `${` with what follows up to the next `}` (or the end, when there is none). */
const PLACEHOLDER = /\$\$\{|\$\{([^}]*)(\}?)/g;

function variableNameProblems(names: readonly string[]): string[] {
  return names.flatMap((name) => {
    if (BUILTIN_TEMPLATE_VARIABLES.includes(name)) return [`variable ${name} is set from the cluster and cannot be redefined: rename it`];
    if (!VARIABLE_NAME.test(name)) return [`variable name ${JSON.stringify(name)} cannot be used in \${...}: use letters, digits and _, not starting with a digit`];
    return [];
  });
}

function substituteDeep(value: unknown, path: string, substitution: Substitution, problems: string[]): unknown {
  if (typeof value === "string") return substituteText(value, path, substitution, problems);
  const list = asList(value);
  if (list !== undefined) return list.map((item, i) => substituteDeep(item, `${path}[${i}]`, substitution, problems));
  if (isRecord(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteDeep(item, member(path, key), substitution, problems)]));
  }
  return value;
}

function substituteText(text: string, path: string, substitution: Substitution, problems: string[]): string {
  return text.replace(PLACEHOLDER, (match: string, name: string | undefined, close: string | undefined) => {
    if (name === undefined) return substitution.escape;
    if (close !== "}" || !VARIABLE_NAME.test(name)) {
      problems.push(`${path} has the malformed placeholder ${JSON.stringify(match)}: write \${NAME} with a NAME of letters, digits and _, or $\${ for a literal \${`);
      return match;
    }
    const value = substitution.variable(name);
    if (value !== undefined) return value;
    problems.push(
      name === KUBERNETES_VERSION
        ? `${path} uses \${${KUBERNETES_VERSION}}, and the cluster has no Kubernetes version`
        : `${path} uses the unknown variable \${${name}}: define ${name} (known: ${substitution.names.join(", ")}), or write $\${${name}} for a literal \${${name}}`,
    );
    return match;
  });
}

// --- parsing the substituted template ---

interface ParsedResource {
  path: string;
  apiVersion: string;
  kind: string;
  name: string;
  object: Record<string, unknown>;
  metadata: Record<string, unknown>;
  labels: Record<string, string>;
}

type ParsedObjects = Omit<ObjectsTemplate, "resources"> & { resources: ParsedResource[] };
type ParsedTemplate = { clusterClass: ClusterClassTemplate } | { objects: ParsedObjects };

const MAX_REPLICAS = 2 ** 31 - 1;

/** The template, or undefined when it adds to `problems`; `workerReplicas` as in ClusterApiObjectsInput. */
function parseTemplate(value: unknown, problems: string[], workerReplicas?: number): ParsedTemplate | undefined {
  const before = problems.length;
  if (!isRecord(value)) {
    problems.push("the template must be an object with either clusterClass or objects");
    return undefined;
  }
  unknownFields(value, "", ["clusterClass", "objects"], "the template", problems);
  const { clusterClass, objects } = value;
  let parsed: ParsedTemplate | undefined;
  if (clusterClass !== undefined && objects !== undefined) problems.push("the template has both clusterClass and objects: keep one");
  else if (clusterClass !== undefined) parsed = optional(parseClassTemplate(clusterClass, "clusterClass", problems, workerReplicas), (template) => ({ clusterClass: template }));
  else if (objects !== undefined) parsed = optional(parseObjectsTemplate(objects, "objects", problems), (template) => ({ objects: template }));
  else problems.push("the template needs either clusterClass or objects");
  return problems.length === before ? parsed : undefined;
}

function parseClassTemplate(value: unknown, path: string, problems: string[], workerReplicas: number | undefined): ClusterClassTemplate | undefined {
  if (!isRecord(value)) {
    problems.push(`${path} must be an object with the ClusterClass's name`);
    return undefined;
  }
  unknownFields(value, path, ["name", "namespace", "variables", "controlPlane", "workers", "clusterNetwork"], "a ClusterClass template", problems);
  const name = requiredString(value, "name", path, problems);
  const namespace = optionalString(value, "namespace", path, problems);
  const variables = parseTopologyVariables(value["variables"], member(path, "variables"), problems);
  const controlPlane = parseControlPlane(value["controlPlane"], member(path, "controlPlane"), problems);
  const workers = parseWorkers(value["workers"], member(path, "workers"), problems, workerReplicas);
  const clusterNetwork = optionalRecord(value, "clusterNetwork", path, problems);
  if (name === undefined) return undefined;
  return {
    name,
    ...(namespace === undefined ? {} : { namespace }),
    variables,
    ...(controlPlane === undefined ? {} : { controlPlane }),
    workers,
    ...(clusterNetwork === undefined ? {} : { clusterNetwork }),
  };
}

function parseTopologyVariables(value: unknown, path: string, problems: string[]): TopologyVariable[] {
  return uniqueItems(value, path, "a list of {name, value}", "topology variables", problems, (item, itemPath) => {
    if (!isRecord(item)) {
      problems.push(`${itemPath} must be an object with name and value`);
      return undefined;
    }
    unknownFields(item, itemPath, ["name", "value"], "a topology variable", problems);
    const name = requiredString(item, "name", itemPath, problems);
    if (item["value"] === undefined) problems.push(`${member(itemPath, "value")} is missing`);
    return name === undefined ? undefined : { name, value: item["value"] };
  });
}

function parseControlPlane(value: unknown, path: string, problems: string[]): { replicas?: number } | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) {
    problems.push(`${path} must be an object`);
    return undefined;
  }
  unknownFields(value, path, ["replicas"], "controlPlane", problems);
  const replicas = parseReplicas(value, path, problems);
  return replicas === undefined ? {} : { replicas };
}

function parseWorkers(value: unknown, path: string, problems: string[], workerReplicas: number | undefined): { machineDeployments: WorkerTopology[]; machinePools: WorkerTopology[] } {
  if (value !== undefined && !isRecord(value)) problems.push(`${path} must be an object with machineDeployments and/or machinePools`);
  const workers = isRecord(value) ? value : {};
  unknownFields(workers, path, ["machineDeployments", "machinePools"], "workers", problems);
  const list = (key: string, what: string): WorkerTopology[] =>
    uniqueItems(workers[key], member(path, key), "a list of {class, name, replicas}", what, problems, (item, itemPath) => parseWorker(item, itemPath, problems, workerReplicas));
  return { machineDeployments: list("machineDeployments", "machine deployment names"), machinePools: list("machinePools", "machine pool names") };
}

function parseWorker(value: unknown, path: string, problems: string[], workerReplicas: number | undefined): WorkerTopology | undefined {
  if (!isRecord(value)) {
    problems.push(`${path} must be an object with class and name`);
    return undefined;
  }
  unknownFields(value, path, ["class", "name", "replicas"], "a worker topology", problems);
  const workerClass = requiredString(value, "class", path, problems);
  const name = requiredString(value, "name", path, problems);
  // Given replicas take the template's place before the check, so a bad count is reported at the worker it would land on,
  // and the template's value, never used, is not judged.
  const replicas = parseReplicas(workerReplicas === undefined ? value : { ...value, replicas: workerReplicas }, path, problems);
  if (workerClass === undefined || name === undefined) return undefined;
  return { class: workerClass, name, ...(replicas === undefined ? {} : { replicas }) };
}

function parseReplicas(record: Record<string, unknown>, path: string, problems: string[]): number | undefined {
  const value = record["replicas"];
  if (value === undefined) return undefined;
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_REPLICAS) return value;
  problems.push(`${member(path, "replicas")} must be a non-negative integer, not ${describe(value)}`);
  return undefined;
}

function parseObjectsTemplate(value: unknown, path: string, problems: string[]): ParsedObjects | undefined {
  if (!isRecord(value)) {
    problems.push(`${path} must be an object with infrastructureRef and resources`);
    return undefined;
  }
  unknownFields(value, path, ["infrastructureRef", "controlPlaneRef", "clusterNetwork", "resources"], "an objects template", problems);
  const infrastructureRef = parseReference(value["infrastructureRef"], member(path, "infrastructureRef"), problems);
  const controlPlaneRef = value["controlPlaneRef"] === undefined ? undefined : parseReference(value["controlPlaneRef"], member(path, "controlPlaneRef"), problems);
  const clusterNetwork = optionalRecord(value, "clusterNetwork", path, problems);
  const beforeResources = problems.length;
  const resources = parseResources(value["resources"], member(path, "resources"), problems);
  // A reference to a resource that is broken itself would only repeat its problem.
  if (problems.length === beforeResources) {
    if (infrastructureRef !== undefined) checkReference(infrastructureRef, member(path, "infrastructureRef"), resources, member(path, "resources"), problems);
    if (controlPlaneRef !== undefined) checkReference(controlPlaneRef, member(path, "controlPlaneRef"), resources, member(path, "resources"), problems);
  }
  if (infrastructureRef === undefined) return undefined;
  return {
    infrastructureRef,
    ...(controlPlaneRef === undefined ? {} : { controlPlaneRef }),
    ...(clusterNetwork === undefined ? {} : { clusterNetwork }),
    resources,
  };
}

function parseReference(value: unknown, path: string, problems: string[]): ContractVersionedObjectReference | undefined {
  if (!isRecord(value)) {
    problems.push(value === undefined ? `${path} is missing` : `${path} must be an object with apiGroup, kind and name`);
    return undefined;
  }
  unknownFields(value, path, ["apiGroup", "kind", "name"], "a Cluster API v1beta2 reference", problems);
  const apiGroup = requiredString(value, "apiGroup", path, problems);
  const kind = requiredString(value, "kind", path, problems);
  const name = requiredString(value, "name", path, problems);
  return apiGroup === undefined || kind === undefined || name === undefined ? undefined : { apiGroup, kind, name };
}

function checkReference(reference: ContractVersionedObjectReference, path: string, resources: readonly ParsedResource[], resourcesPath: string, problems: string[]): void {
  const target = resources.find((resource) => resource.kind === reference.kind && resource.name === reference.name);
  if (target === undefined) {
    problems.push(`${path} names ${reference.kind} ${JSON.stringify(reference.name)}, which is not in ${resourcesPath}: add it there or correct the reference`);
  } else if (groupOf(target.apiVersion) !== reference.apiGroup) {
    problems.push(`${member(path, "apiGroup")} is ${JSON.stringify(reference.apiGroup)}, but ${target.path} has apiVersion ${JSON.stringify(target.apiVersion)}: make them agree`);
  }
}

function parseResources(value: unknown, path: string, problems: string[]): ParsedResource[] {
  const items = asList(value);
  if (items === undefined) {
    problems.push(value === undefined ? `${path} is missing` : `${path} must be a list of Kubernetes objects`);
    return [];
  }
  const seen = new Map<string, string>();
  return items.flatMap((item, i) => {
    const itemPath = `${path}[${i}]`;
    const resource = parseResource(item, itemPath, problems);
    if (resource === undefined) return [];
    const key = `${resource.kind}/${resource.name}`;
    const first = seen.get(key);
    if (first !== undefined) {
      problems.push(`${itemPath} is ${resource.kind} ${JSON.stringify(resource.name)} again, as ${first} is: give each resource of a kind its own name`);
      return [];
    }
    seen.set(key, itemPath);
    return [resource];
  });
}

function parseResource(value: unknown, path: string, problems: string[]): ParsedResource | undefined {
  if (!isRecord(value)) {
    problems.push(`${path} must be a Kubernetes object with apiVersion, kind and metadata.name`);
    return undefined;
  }
  const apiVersion = requiredString(value, "apiVersion", path, problems);
  const kind = requiredString(value, "kind", path, problems);
  const metadataPath = member(path, "metadata");
  const metadata = value["metadata"];
  if (!isRecord(metadata)) {
    problems.push(metadata === undefined ? `${metadataPath} is missing: every resource needs metadata.name` : `${metadataPath} must be an object`);
    return undefined;
  }
  const name = requiredString(metadata, "name", metadataPath, problems);
  const labels = parseLabels(metadata["labels"], member(metadataPath, "labels"), problems);
  if (apiVersion === undefined || kind === undefined || name === undefined || labels === undefined) return undefined;
  if (kind === CLUSTER_API_CLUSTER.kind && groupOf(apiVersion) === CLUSTER_API_CLUSTER.group) {
    problems.push(`${path} is a Cluster API Cluster, which is rendered from the template itself: remove it and set infrastructureRef, controlPlaneRef and clusterNetwork instead`);
    return undefined;
  }
  return { path, apiVersion, kind, name, object: value, metadata, labels };
}

function parseLabels(value: unknown, path: string, problems: string[]): Record<string, string> | undefined {
  if (value === undefined) return {};
  if (!isRecord(value)) {
    problems.push(`${path} must be an object of label keys and string values`);
    return undefined;
  }
  const labels: Record<string, string> = {};
  for (const [key, label] of Object.entries(value)) {
    if (typeof label === "string") labels[key] = label;
    else problems.push(`${member(path, key)} must be a string, not ${describe(label)}: quote it`);
  }
  return Object.keys(labels).length === Object.keys(value).length ? labels : undefined;
}

// --- helpers ---

/** The items `parse` accepts, with a problem for each repeated name. */
function uniqueItems<T extends { name: string }>(
  value: unknown,
  path: string,
  shape: string,
  what: string,
  problems: string[],
  parse: (item: unknown, itemPath: string) => T | undefined,
): T[] {
  if (value === undefined) return [];
  const items = asList(value);
  if (items === undefined) {
    problems.push(`${path} must be ${shape}`);
    return [];
  }
  const seen = new Map<string, string>();
  return items.flatMap((item, i) => {
    const itemPath = `${path}[${i}]`;
    const parsed = parse(item, itemPath);
    if (parsed === undefined) return [];
    const first = seen.get(parsed.name);
    if (first !== undefined) {
      problems.push(`${member(itemPath, "name")} ${JSON.stringify(parsed.name)} is already used by ${first}: ${what} must be unique`);
      return [];
    }
    seen.set(parsed.name, itemPath);
    return [parsed];
  });
}

function unknownFields(record: Record<string, unknown>, path: string, fields: readonly string[], what: string, problems: string[]): void {
  for (const key of Object.keys(record)) {
    if (!fields.includes(key)) problems.push(`${member(path, key)} is not a field of ${what} (fields: ${fields.join(", ")})`);
  }
}

function requiredString(record: Record<string, unknown>, key: string, path: string, problems: string[]): string | undefined {
  const value = record[key];
  if (typeof value === "string" && value !== "") return value;
  problems.push(value === undefined ? `${member(path, key)} is missing` : `${member(path, key)} must be a non-empty string, not ${describe(value)}`);
  return undefined;
}

function optionalString(record: Record<string, unknown>, key: string, path: string, problems: string[]): string | undefined {
  return record[key] === undefined ? undefined : requiredString(record, key, path, problems);
}

function optionalRecord(record: Record<string, unknown>, key: string, path: string, problems: string[]): Record<string, unknown> | undefined {
  const value = record[key];
  if (value === undefined || isRecord(value)) return value;
  problems.push(`${member(path, key)} must be an object`);
  return undefined;
}

function optional<T, R>(value: T | undefined, map: (value: T) => R): R | undefined {
  return value === undefined ? undefined : map(value);
}

/** The group of an apiVersion: `""` for the core group's `v1`. */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** `path.key`, or `path["key"]` for keys such as label keys that are no identifiers. */
function member(path: string, key: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path === "" ? key : `${path}.${key}`;
}

function describe(value: unknown): string {
  return typeof value === "number" ? String(value) : (JSON.stringify(value) ?? typeof value);
}

function asList(value: unknown): readonly unknown[] | undefined {
  return Array.isArray(value) ? (value as unknown[]) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
