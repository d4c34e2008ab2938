/**
 * Hostile and valid tenant input for the chaos suite's generated-input run:
 * thousands of KubernetesCluster / ProviderConfig / MachineCapabilities
 * bundles and their credentials Secrets, sent through kcp to show that the
 * platform neither crashes nor gets stuck on them, that each invalid one is
 * refused by the schema or answered with a condition that says what to
 * change, and that nothing is created in the cloud for any invalid one.
 *
 * Pure: no I/O, no clock, no `Math.random`. The same seed gives the same
 * cases, so a failure of the run can be replayed from its seed and case id.
 *
 * Every invalid case is the valid bundle of its id with exactly ONE thing
 * broken, so that its expectation is unambiguous. Only mutations whose
 * outcome is certain from the CRD schemas (packages/api/crds) and the
 * controller's checks (credential parsing, the auth URL allow-list, IAM,
 * flavor matching against the demo catalogue, DEMO_FLAVORS) are generated;
 * `MUTATION_CLASSES` names each with the outcome it must have.
 *
 * @module
 */
import { PLATFORM_API_VERSION, SECRET_LABEL } from "@edgeconnect/api";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { MAX_CREDENTIALS_BYTES, MAX_CREDENTIALS_LINES, parseOtcCredentials } from "@edgeconnect/provisioning";
import { seededRandom, type Random } from "./random.js";

/** Whether the platform must make the cluster ("valid") or refuse it with nothing created in the cloud ("invalid"). */
export type Expectation = "valid" | "invalid";

/** One tenant's order: what it applies, what was broken in it, and which way it must go. */
export interface GeneratedCase {
  /** 0..count-1: with the seed, all it takes to regenerate the case (`validBundle` gives its unbroken form). */
  readonly id: number;
  /** `fuzz-<id>`: one namespace per case, so that cases cannot see each other's objects. */
  readonly namespace: string;
  readonly expectation: Expectation;
  /** The name of the case's class in `MUTATION_CLASSES` ("valid" for a valid case): what was broken, and so what must happen. */
  readonly mutation: string;
  /**
   * What the tenant applies, in this order: Secret (credentials, labelled
   * SECRET_LABEL), ProviderConfig, MachineCapabilities, KubernetesCluster,
   * all in `namespace`, each named deterministically. A mutation may leave
   * the Secret out; the KubernetesCluster is always last.
   */
  readonly objects: readonly KubeObject[];
}

export interface GeneratorOptions {
  /** Any safe integer; the same seed gives the same cases. */
  readonly seed: number;
  /** How many cases, ids 0..count-1. */
  readonly count: number;
  /**
   * The valid credentials file text a valid case uses (the caller passes
   * platform.passwordCredentials(i)); invalid credential mutations derive
   * from it. The seed's password format (`key=value` lines with auth_url,
   * user_name, password, domain_name, tenant_name): anything else throws.
   */
  readonly credentials: string;
  /** Fraction of cases left valid; default 0.02. */
  readonly validFraction?: number;
}

/** The kinds of a bundle, in the order they are applied. */
export type BundleKind = "Secret" | "ProviderConfig" | "MachineCapabilities" | "KubernetesCluster";

/** A condition the KubernetesCluster must get, with False status: its message says what to change. */
export interface ExpectedCondition {
  readonly type: "CredentialsValid" | "FlavorMatched";
  readonly reason: string;
}

/**
 * What must happen to an invalid case, so the run can check more than
 * "something failed": either kcp refuses one object (422; when that object
 * is not the KubernetesCluster, the cluster is still admitted and, its
 * input missing, gets `then`), or every object is admitted and the cluster
 * gets `condition`. Either way nothing is created in the cloud.
 */
export type ExpectedOutcome =
  | { readonly kind: "valid" }
  | { readonly kind: "refused"; readonly object: BundleKind; readonly then?: ExpectedCondition }
  | { readonly kind: "condition"; readonly condition: ExpectedCondition };

/** One class of mutation: its name (`GeneratedCase.mutation`), the object it breaks, and the outcome it must have. */
export interface MutationClass {
  readonly name: string;
  readonly target: BundleKind;
  readonly outcome: ExpectedOutcome;
}

/** The `mutation` of a valid case. */
export const VALID = "valid";

/** The names the valid bundle uses, as `orderCluster` (packages/demo) does. */
export const BUNDLE_NAMES = {
  secret: "otc-credentials",
  secretKey: "credentials",
  providerConfig: "otc",
  capabilities: "workers",
  cluster: "my-cluster",
} as const;

/** No generated object is larger (JSON) except by design of "credentials: over 8 KiB", which stays under it too: hostile, not a memory bomb. */
export const MAX_OBJECT_BYTES = 64 * 1024;

const DEFAULT_VALID_FRACTION = 0.02;

/** Generates `count` cases for `seed`; see the module comment. */
export function generateCases(options: GeneratorOptions): GeneratedCase[] {
  const context = generatorContext(options);
  const cases: GeneratedCase[] = [];
  for (let id = 0; id < options.count; id++) cases.push(generateCase(id, options, context));
  return cases;
}

/**
 * The unbroken bundle of case `id`: what an invalid case would have been,
 * for comparing it with, and exactly what a valid case of that id applies.
 */
export function validBundle(id: number, options: GeneratorOptions): KubeObject[] {
  const context = generatorContext(options);
  const rng = caseRng(options.seed, id);
  return bundleObjects(template(id, rng, context));
}

// ---------------------------------------------------------------------------
// Seeded randomness

/** Helpers over random.ts's seeded source (mulberry32). */
class Rng {
  private readonly random: Random;
  constructor(seed: number) {
    this.random = seededRandom(seed);
  }
  /** In [0, 1). */
  next(): number {
    return this.random();
  }
  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[Math.floor(this.next() * items.length)] as T;
  }
  /** `length` characters of `alphabet`. */
  text(length: number, alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"): string {
    let out = "";
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)] ?? "";
    return out;
  }
}

/** murmur3's finalizer: spreads a seed's bits so that neighbouring seeds and ids give unrelated streams. */
function fmix32(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Each case has its own stream, so that a case is the same however many come before it (and `validBundle` can redo it alone). */
function caseRng(seed: number, id: number): Rng {
  const low = seed >>> 0;
  const high = Math.floor(seed / 4294967296) >>> 0;
  return new Rng(fmix32(fmix32(fmix32(low) ^ high) ^ Math.imul(id + 1, 0x9e3779b9)));
}

// ---------------------------------------------------------------------------
// The valid bundle

type JsonObject = Record<string, unknown>;

interface Bundle {
  secret: JsonObject | undefined;
  providerConfig: JsonObject;
  capabilities: JsonObject;
  cluster: JsonObject;
}

/** What the mutations derive from: the valid credentials file, read once. */
interface GeneratorContext {
  readonly credentials: string;
  /** `auth_url`'s origin: the only one the run's controller allows (`--allowed-otc-auth-url`). */
  readonly authUrl: URL;
  /** The region tenant_name names, e.g. `eu-de` of `eu-de_tenant0`. */
  readonly region: string;
  /** The keys of the file, in order. */
  readonly keys: readonly string[];
  readonly validFraction: number;
}

const PASSWORD_FILE_KEYS = ["auth_url", "user_name", "password", "domain_name", "tenant_name"] as const;

function generatorContext(options: GeneratorOptions): GeneratorContext {
  if (!Number.isSafeInteger(options.seed)) throw new TypeError(`seed must be a safe integer, not ${options.seed}`);
  if (!Number.isSafeInteger(options.count) || options.count < 0) throw new TypeError(`count must be a non-negative integer, not ${options.count}`);
  const validFraction = options.validFraction ?? DEFAULT_VALID_FRACTION;
  if (!(validFraction >= 0 && validFraction <= 1)) throw new TypeError(`validFraction must be within [0, 1], not ${validFraction}`);
  const text = options.credentials;
  // The mutations edit lines of the password format; a valid base that is not valid would make every expectation wrong.
  const parsed = parseOtcCredentials(text);
  if (!parsed.ok || parsed.credentials.mode !== "password" || text.trimStart().startsWith("{")) {
    throw new TypeError("credentials must be a valid credentials file of the password format (key=value lines), as Platform.passwordCredentials gives");
  }
  const keys = credentialLines(text).flatMap((line) => (line.key === undefined ? [] : [line.key]));
  for (const key of PASSWORD_FILE_KEYS) if (!keys.includes(key)) throw new TypeError(`credentials must have ${key}`);
  if (keys.includes("region") || keys.includes("project_name")) throw new TypeError("credentials must name the project by tenant_name alone, without region or project_name");
  // The classes that pad the file (over 100 lines, over 8 KiB) and the size bound assume a file of a few hundred bytes.
  if (Buffer.byteLength(text) > 2048) throw new TypeError("credentials must be a credentials file of a few hundred bytes");
  const region = /^([a-z]+(?:-[a-z0-9]+)+)_/.exec(parsed.credentials.projectName)?.[1];
  if (region === undefined) throw new TypeError("credentials' tenant_name must be <region>_<project>, e.g. eu-de_tenant0");
  return { credentials: text, authUrl: new URL(parsed.credentials.authUrl), region, keys, validFraction };
}

function template(id: number, rng: Rng, context: GeneratorContext): Bundle {
  const namespace = namespaceOf(id);
  const meta = (name: string): JsonObject => ({ name, namespace });
  return {
    secret: {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { ...meta(BUNDLE_NAMES.secret), labels: { [SECRET_LABEL.key]: SECRET_LABEL.value } },
      // `data`, not `stringData`: the binary class needs bytes that are no text, and every case stores its credentials the same way.
      data: { [BUNDLE_NAMES.secretKey]: base64(context.credentials) },
    },
    providerConfig: {
      apiVersion: PLATFORM_API_VERSION,
      kind: "ProviderConfig",
      metadata: meta(BUNDLE_NAMES.providerConfig),
      spec: { credentials: { source: "Secret", secretRef: { name: BUNDLE_NAMES.secret, key: BUNDLE_NAMES.secretKey } } },
    },
    capabilities: {
      apiVersion: PLATFORM_API_VERSION,
      kind: "MachineCapabilities",
      metadata: meta(BUNDLE_NAMES.capabilities),
      spec: { vCPUCount: 4, memorySize: "8Gi" },
    },
    cluster: {
      apiVersion: PLATFORM_API_VERSION,
      kind: "KubernetesCluster",
      metadata: meta(BUNDLE_NAMES.cluster),
      spec: {
        machineCapabilitiesRef: { name: BUNDLE_NAMES.capabilities },
        nodeCount: rng.int(1, 3),
        nodeDiskSize: "100Gi",
        providerRef: { type: "OTC", configRef: { name: BUNDLE_NAMES.providerConfig } },
        kubernetes: { version: "v1.31" },
        nodeAvailableZone: "random",
      },
    },
  };
}

function namespaceOf(id: number): string {
  return `fuzz-${id}`;
}

function bundleObjects(bundle: Bundle): KubeObject[] {
  return [bundle.secret, bundle.providerConfig, bundle.capabilities, bundle.cluster].filter((obj): obj is JsonObject => obj !== undefined);
}

function generateCase(id: number, options: GeneratorOptions, context: GeneratorContext): GeneratedCase {
  const rng = caseRng(options.seed, id);
  const bundle = template(id, rng, context);
  const base = { id, namespace: namespaceOf(id) };
  if (rng.next() < context.validFraction) return { ...base, expectation: "valid", mutation: VALID, objects: bundleObjects(bundle) };
  const mutation = rng.pick(MUTATIONS);
  mutation.apply(bundle, rng, context);
  return { ...base, expectation: "invalid", mutation: mutation.name, objects: bundleObjects(bundle) };
}

// ---------------------------------------------------------------------------
// Editing helpers

function base64(text: string | Uint8Array): string {
  return Buffer.from(text).toString("base64");
}

function at(obj: JsonObject, path: readonly string[]): JsonObject {
  let current = obj;
  for (const key of path) {
    const next = current[key];
    if (typeof next !== "object" || next === null || Array.isArray(next)) throw new Error(`no object at ${path.join(".")}`);
    current = next as JsonObject;
  }
  return current;
}

function set(obj: JsonObject, path: readonly string[], value: unknown): void {
  const parent = at(obj, path.slice(0, -1));
  parent[path[path.length - 1] ?? ""] = value;
}

function get(obj: JsonObject, path: readonly string[]): unknown {
  return at(obj, path.slice(0, -1))[path[path.length - 1] ?? ""];
}

function remove(obj: JsonObject, path: readonly string[]): void {
  const parent = at(obj, path.slice(0, -1));
  const key = path[path.length - 1] ?? "";
  if (!(key in parent)) throw new Error(`nothing at ${path.join(".")} to remove`);
  delete parent[key];
}

function secretOf(bundle: Bundle): JsonObject {
  if (bundle.secret === undefined) throw new Error("the bundle has no Secret");
  return bundle.secret;
}

function setCredentials(bundle: Bundle, content: string | Uint8Array): void {
  set(secretOf(bundle), ["data", BUNDLE_NAMES.secretKey], base64(content));
}

interface CredentialLine {
  readonly raw: string;
  readonly key?: string;
  readonly value?: string;
}

function credentialLines(text: string): CredentialLine[] {
  return text.split("\n").map((raw) => {
    const trimmed = raw.trim();
    const equals = trimmed.indexOf("=");
    if (trimmed === "" || trimmed.startsWith("#") || equals === -1) return { raw };
    return { raw, key: trimmed.slice(0, equals).trim(), value: trimmed.slice(equals + 1).trim() };
  });
}

function credentialValue(text: string, key: string): string {
  const value = credentialLines(text).find((line) => line.key === key)?.value;
  if (value === undefined) throw new Error(`the credentials have no ${key}`);
  return value;
}

/** The file with `key`'s line set to `key=value` (in place) or removed (`value` undefined). */
function withKey(text: string, key: string, value: string | undefined): string {
  return credentialLines(text)
    .flatMap((line) => (line.key !== key ? [line.raw] : value === undefined ? [] : [`${key}=${value}`]))
    .join("\n");
}

/** The file with `line` added after its last line. */
function withLine(text: string, line: string): string {
  return `${text}${text.endsWith("\n") || text === "" ? "" : "\n"}${line}\n`;
}

/** The file's keys and values as a JSON object of strings, which the parser accepts as well. */
function credentialsObject(text: string): Record<string, string> {
  return Object.fromEntries(credentialLines(text).flatMap((line) => (line.key === undefined ? [] : [[line.key, line.value ?? ""]])));
}

const CONTROL_CHARACTERS = ["\u0000", "\u0001", "\u0007", "\u0008", "\u000B", "\u000C", "\u000E", "\u001B", "\u001F", "\u007F"];

/** ASCII characters and a look-alike of each that no pattern of ours admits (Cyrillic letters, fullwidth digits). */
const LOOKALIKES: Readonly<Record<string, string>> = {
  a: "\u0430",
  c: "\u0441",
  e: "\u0435",
  i: "\u0456",
  o: "\u043E",
  p: "\u0440",
  x: "\u0445",
  T: "\u0422",
  O: "\u041E",
  C: "\u0421",
  "0": "\uFF10",
  "1": "\uFF11",
  "3": "\uFF13",
};

function insertAt(value: string, position: number, insert: string): string {
  return `${value.slice(0, position)}${insert}${value.slice(position)}`;
}

function uuid(rng: Rng): string {
  const hex = "0123456789abcdef";
  return `${rng.text(8, hex)}-${rng.text(4, hex)}-${rng.text(4, hex)}-${rng.text(4, hex)}-${rng.text(12, hex)}`;
}

// ---------------------------------------------------------------------------
// The mutations

interface Mutation extends MutationClass {
  apply(bundle: Bundle, rng: Rng, context: GeneratorContext): void;
}

const refused = (object: BundleKind, then?: ExpectedCondition): ExpectedOutcome => (then === undefined ? { kind: "refused", object } : { kind: "refused", object, then });
const condition = (type: ExpectedCondition["type"], reason: string): ExpectedOutcome => ({ kind: "condition", condition: { type, reason } });

const PROVIDER_CONFIG_NOT_FOUND: ExpectedCondition = { type: "CredentialsValid", reason: "ProviderConfigNotFound" };
const SECRET_NOT_FOUND: ExpectedCondition = { type: "CredentialsValid", reason: "SecretNotFound" };
const CAPABILITIES_NOT_FOUND: ExpectedCondition = { type: "FlavorMatched", reason: "MachineCapabilitiesNotFound" };

const CLUSTER_SPEC = ["spec"];
/** A value at `path` of the KubernetesCluster, picked from `values`: the schema refuses each. */
function clusterField(name: string, path: readonly string[], values: (rng: Rng) => readonly unknown[]): Mutation {
  return { name, target: "KubernetesCluster", outcome: refused("KubernetesCluster"), apply: (b, rng) => set(b.cluster, path, rng.pick(values(rng))) };
}
function capabilitiesField(name: string, path: readonly string[], values: (rng: Rng) => readonly unknown[]): Mutation {
  return { name, target: "MachineCapabilities", outcome: refused("MachineCapabilities", CAPABILITIES_NOT_FOUND), apply: (b, rng) => set(b.capabilities, path, rng.pick(values(rng))) };
}
function providerConfigField(name: string, path: readonly string[], values: (rng: Rng) => readonly unknown[]): Mutation {
  return { name, target: "ProviderConfig", outcome: refused("ProviderConfig", PROVIDER_CONFIG_NOT_FOUND), apply: (b, rng) => set(b.providerConfig, path, rng.pick(values(rng))) };
}
/** Credentials text the controller reads and refuses with `reason`. */
function credentials(name: string, reason: string, make: (rng: Rng, context: GeneratorContext) => string | Uint8Array): Mutation {
  return { name, target: "Secret", outcome: condition("CredentialsValid", reason), apply: (b, rng, context) => setCredentials(b, make(rng, context)) };
}

const SUBDOMAIN_BREAKERS = (valid: string) => [valid.toUpperCase(), `${valid}_x`, `-${valid}`, `${valid}-`, `${valid}..x`, `${valid}!`];
const LABEL_BREAKERS = (valid: string) => [valid.toUpperCase(), valid.replaceAll("-", "_"), `-${valid}`, `${valid}-`, `${valid}.x`, "", "x".repeat(64)];

/** Spec strings whose pattern or enum refuses any control character or non-ASCII look-alike. */
const PATTERNED_CLUSTER_STRINGS: readonly (readonly string[])[] = [
  ["spec", "nodeAvailableZone"],
  ["spec", "kubernetes", "version"],
  ["spec", "machineCapabilitiesRef", "name"],
  ["spec", "providerRef", "configRef", "name"],
  ["spec", "providerRef", "type"],
  ["spec", "nodeDiskSize"],
];

const MUTATIONS: readonly Mutation[] = [
  // KubernetesCluster: refused by the schema (kcp answers 422, nothing is stored).
  clusterField("nodeCount=0", ["spec", "nodeCount"], () => [0]),
  clusterField("nodeCount negative", ["spec", "nodeCount"], (rng) => [-1, -rng.int(2, 1000), -2147483648]),
  clusterField("nodeCount over 50", ["spec", "nodeCount"], (rng) => [51, rng.int(52, 100000), 2147483647, 2147483648]),
  clusterField("nodeCount not an integer", ["spec", "nodeCount"], (rng) => [1.5, 0.5, rng.int(1, 49) + 0.25]),
  clusterField("nodeCount wrong type", ["spec", "nodeCount"], () => ["3", "three", "", true]),
  { name: "nodeCount missing", target: "KubernetesCluster", outcome: refused("KubernetesCluster"), apply: (b) => remove(b.cluster, ["spec", "nodeCount"]) },
  clusterField("nodeDiskSize malformed", ["spec", "nodeDiskSize"], () => ["100Gx", "100 Gi", "100GB", "Gi", "1.0.0Gi", "100gi", "0x64Gi", "\uFF11\uFF10\uFF10Gi", "100Gi;"]),
  clusterField("nodeDiskSize empty", ["spec", "nodeDiskSize"], () => [""]),
  clusterField("nodeDiskSize negative", ["spec", "nodeDiskSize"], (rng) => ["-5Gi", "-100Gi", `-${rng.int(1, 32768)}Gi`, -107374182400]),
  // 10G is 10^10 bytes, less than 10Gi; 0 and 512Mi plainly less.
  clusterField("nodeDiskSize below 10Gi", ["spec", "nodeDiskSize"], (rng) => ["9Gi", "1", "0", "512Mi", "10G", "9.99Gi", `${rng.int(1, 9)}Gi`, 5]),
  // 35184372088833 bytes is 32768Gi and one byte; 33Ti is 33792Gi.
  clusterField("nodeDiskSize above 32768Gi", ["spec", "nodeDiskSize"], (rng) => ["32769Gi", "33Ti", "1Ei", "99999Ti", "1e15", "35184372088833", `${rng.int(32769, 1000000)}Gi`]),
  clusterField("nodeDiskSize over 64 characters", ["spec", "nodeDiskSize"], (rng) => [`1${"0".repeat(64)}`, `${"0".repeat(rng.int(60, 200))}100Gi`]),
  clusterField("kubernetes.version malformed", ["spec", "kubernetes", "version"], () => ["1", "v1", "latest", "stable", "v1.31.x", "1.31.0.0", "v1.31-rc.1", "", "v1.31.0-r", "V1.31", "v 1.31", "v2", "1.", ".31"]),
  // The first matches the pattern and is one character too long; the others are hundreds of characters.
  clusterField("kubernetes.version over 32 characters", ["spec", "kubernetes", "version"], (rng) => ["v1.31.123456789012345678901234567", `v1.31${"0".repeat(295)}`, rng.text(300)]),
  { name: "kubernetes missing", target: "KubernetesCluster", outcome: refused("KubernetesCluster"), apply: (b) => remove(b.cluster, ["spec", "kubernetes"]) },
  clusterField("providerRef.type unknown", ["spec", "providerRef", "type"], () => ["AWS", "otc", "Otc", "", "OTC ", "GCP", "ClusterApi", "openstack"]),
  // templateSet is required exactly for ClusterAPI (CEL).
  clusterField("providerRef.type ClusterAPI without templateSet", ["spec", "providerRef", "type"], () => ["ClusterAPI"]),
  clusterField("providerRef.templateSet with OTC", ["spec", "providerRef", "templateSet"], () => ["default", "otc", "in-memory"]),
  // configRef is required for OTC (CEL).
  { name: "providerRef.configRef missing", target: "KubernetesCluster", outcome: refused("KubernetesCluster"), apply: (b) => remove(b.cluster, ["spec", "providerRef", "configRef"]) },
  clusterField("providerRef.configRef.name malformed", ["spec", "providerRef", "configRef", "name"], () => [...SUBDOMAIN_BREAKERS(BUNDLE_NAMES.providerConfig), "", "o".repeat(254)]),
  clusterField("machineCapabilitiesRef.name malformed", ["spec", "machineCapabilitiesRef", "name"], () => [...SUBDOMAIN_BREAKERS(BUNDLE_NAMES.capabilities), "", "w".repeat(254)]),
  { name: "machineCapabilitiesRef missing", target: "KubernetesCluster", outcome: refused("KubernetesCluster"), apply: (b) => remove(b.cluster, ["spec", "machineCapabilitiesRef"]) },
  // vpcID and subnetID must be set together (CEL).
  clusterField("vpcID without subnetID", ["spec", "vpcID"], (rng) => [uuid(rng)]),
  clusterField("subnetID without vpcID", ["spec", "subnetID"], (rng) => [uuid(rng)]),
  clusterField("vpcID malformed", ["spec", "vpcID"], (rng) => ["vpc-123", "", uuid(rng).toUpperCase().replace(/-/g, ""), `${uuid(rng)}x`, "g".repeat(36)]),
  clusterField("availableZone malformed", ["spec", "availableZone"], () => LABEL_BREAKERS("eu-de-01")),
  clusterField("nodeAvailableZone malformed", ["spec", "nodeAvailableZone"], () => ["Random", "RANDOM", "*", ...LABEL_BREAKERS("eu-de-01")]),
  clusterField("nodeFlavor malformed", ["spec", "nodeFlavor"], () => ["S3.LARGE.2", "s3_large_2", ".s3.large.2", "s3.large.2.", "", "f".repeat(65), "s3 large 2"]),
  {
    name: "control character in a spec string",
    target: "KubernetesCluster",
    outcome: refused("KubernetesCluster"),
    apply: (b, rng) => {
      const path = rng.pick(PATTERNED_CLUSTER_STRINGS);
      const value = String(get(b.cluster, path));
      set(b.cluster, path, insertAt(value, rng.int(0, value.length), rng.pick([...CONTROL_CHARACTERS, "\n", "\r", "\t", "\u0085", "\u2028"])));
    },
  },
  {
    name: "non-ASCII look-alike in a spec string",
    target: "KubernetesCluster",
    outcome: refused("KubernetesCluster"),
    apply: (b, rng) => {
      const path = rng.pick(PATTERNED_CLUSTER_STRINGS);
      const value = String(get(b.cluster, path));
      const positions = [...value].flatMap((char, index) => (LOOKALIKES[char] === undefined ? [] : [index]));
      // Every patterned value has a letter with a look-alike; a zero-width space would do as well.
      const position = positions.length === 0 ? undefined : rng.pick(positions);
      set(b.cluster, path, position === undefined ? `${value}\u200B` : `${value.slice(0, position)}${LOOKALIKES[value[position] ?? ""] ?? ""}${value.slice(position + 1)}`);
    },
  },
  clusterField("name over 253 characters", ["metadata", "name"], (rng) => ["c".repeat(254), `my-cluster-${"x".repeat(rng.int(243, 400))}`]),
  clusterField("name not a DNS subdomain", ["metadata", "name"], () => SUBDOMAIN_BREAKERS(BUNDLE_NAMES.cluster)),
  { name: "spec missing", target: "KubernetesCluster", outcome: refused("KubernetesCluster"), apply: (b) => remove(b.cluster, CLUSTER_SPEC) },

  // KubernetesCluster: admitted, and refused by the controller with a condition.
  {
    name: "configRef to a missing ProviderConfig",
    target: "KubernetesCluster",
    outcome: condition("CredentialsValid", "ProviderConfigNotFound"),
    apply: (b, rng) => set(b.cluster, ["spec", "providerRef", "configRef", "name"], rng.pick(["missing-otc", "otc2", "otc-config", `pc-${rng.text(8)}`])),
  },
  {
    name: "machineCapabilitiesRef to a missing MachineCapabilities",
    target: "KubernetesCluster",
    outcome: condition("FlavorMatched", "MachineCapabilitiesNotFound"),
    apply: (b, rng) => set(b.cluster, ["spec", "machineCapabilitiesRef", "name"], rng.pick(["missing-workers", "worker", "workers2", `mc-${rng.text(8)}`])),
  },
  // The catalogue (DEMO_FLAVORS) offers eu-de-01..03; a zone of another region does not count either.
  {
    name: "nodeAvailableZone not a zone",
    target: "KubernetesCluster",
    outcome: condition("FlavorMatched", "NoMatchingFlavor"),
    apply: (b, rng) => set(b.cluster, ["spec", "nodeAvailableZone"], rng.pick(["eu-de-04", "eu-de-99", "eu-nl-01", "us-east-1a", "mars-01", "zone", "eu-de"])),
  },
  {
    name: "nodeFlavor unknown",
    target: "KubernetesCluster",
    outcome: condition("FlavorMatched", "NoMatchingFlavor"),
    apply: (b, rng) => set(b.cluster, ["spec", "nodeFlavor"], rng.pick(["x1.tiny.1", "s3.large.99", "s3.xlarge.8", "m9.huge", "p2s.2xlarge.4", "c4.xlarge", `z${rng.text(6)}.large.2`])),
  },

  // MachineCapabilities: refused by the schema, after which the cluster finds none.
  capabilitiesField("vCPUCount=0", ["spec", "vCPUCount"], () => [0]),
  capabilitiesField("vCPUCount negative", ["spec", "vCPUCount"], (rng) => [-1, -4, -rng.int(2, 100000), -2147483648]),
  capabilitiesField("vCPUCount over 1024", ["spec", "vCPUCount"], (rng) => [1025, 10000, 2147483647, rng.int(1025, 1000000)]),
  capabilitiesField("vCPUCount wrong type", ["spec", "vCPUCount"], () => ["4", 4.5, true, "four"]),
  capabilitiesField("memorySize malformed", ["spec", "memorySize"], () => ["8Gx", "8 GiB", "8GB", "Gi", "eight", "8gi", "", "0x8Gi"]),
  capabilitiesField("memorySize zero or negative", ["spec", "memorySize"], () => ["0", "0Gi", "-8Gi", "-1", 0, -1]),
  capabilitiesField("memorySize over 64 characters", ["spec", "memorySize"], (rng) => [`1${"0".repeat(64)}`, `${"0".repeat(rng.int(62, 200))}8Gi`]),
  capabilitiesField("gpuModelName empty", ["spec", "gpuModelName"], () => [""]),
  capabilitiesField("gpuModelName over 128 characters", ["spec", "gpuModelName"], (rng) => ["V".repeat(129), `V100-${rng.text(rng.int(124, 1000))}`]),
  capabilitiesField("MachineCapabilities name not a DNS subdomain", ["metadata", "name"], () => SUBDOMAIN_BREAKERS(BUNDLE_NAMES.capabilities)),
  {
    name: "MachineCapabilities required field missing",
    target: "MachineCapabilities",
    outcome: refused("MachineCapabilities", CAPABILITIES_NOT_FOUND),
    apply: (b, rng) => remove(b.capabilities, rng.pick([["spec"], ["spec", "vCPUCount"], ["spec", "memorySize"]])),
  },

  // MachineCapabilities: admitted, and no flavor of the catalogue meets them (the largest is 8 vCPUs, 32Gi without GPU; V100 the only GPU).
  {
    name: "vCPUCount no flavor has",
    target: "MachineCapabilities",
    outcome: condition("FlavorMatched", "NoMatchingFlavor"),
    apply: (b, rng) => set(b.capabilities, ["spec", "vCPUCount"], rng.pick([9, 16, 1024, rng.int(9, 1024)])),
  },
  {
    name: "memorySize no flavor has",
    target: "MachineCapabilities",
    outcome: condition("FlavorMatched", "NoMatchingFlavor"),
    apply: (b, rng) => set(b.capabilities, ["spec", "memorySize"], rng.pick(["33Gi", "48Gi", "64Gi", "128Gi", "1Ti", "1Ei", "34359738369", `${rng.int(33, 100000)}Gi`])),
  },
  {
    name: "gpuModelName nobody offers",
    target: "MachineCapabilities",
    outcome: condition("FlavorMatched", "NoMatchingFlavor"),
    apply: (b, rng) => set(b.capabilities, ["spec", "gpuModelName"], rng.pick(["A100", "RTX3080", "T4", "H100", "V100S", "V200", `GPU-${rng.text(6)}`])),
  },
  // Matching compares lower-cased and trimmed; none of these is V100 then (JS trim leaves U+200B).
  {
    name: "gpuModelName non-ASCII look-alike",
    target: "MachineCapabilities",
    outcome: condition("FlavorMatched", "NoMatchingFlavor"),
    apply: (b, rng) => set(b.capabilities, ["spec", "gpuModelName"], rng.pick(["\uFF36100", "V\uFF11\uFF10\uFF10", "\u0412100", "V100\u200B", "\u200BV100"])),
  },

  // ProviderConfig: refused by the schema, after which the cluster finds none.
  providerConfigField("ProviderConfig source not Secret", ["spec", "credentials", "source"], () => ["Vault", "secret", "", "SECRET", "Env", "Secret "]),
  providerConfigField("ProviderConfig secretRef.name malformed", ["spec", "credentials", "secretRef", "name"], () => [...SUBDOMAIN_BREAKERS(BUNDLE_NAMES.secret), "", "s".repeat(254)]),
  providerConfigField("ProviderConfig secretRef.key malformed", ["spec", "credentials", "secretRef", "key"], () => ["credentials/x", "", "cred entials", "../credentials", "k".repeat(254), "cr\u00E9dentials"]),
  providerConfigField("ProviderConfig secretRef.namespace malformed", ["spec", "credentials", "secretRef", "namespace"], () => ["Default", "kube_system", "", "-fuzz", "n".repeat(64)]),
  providerConfigField("ProviderConfig name not a DNS subdomain", ["metadata", "name"], () => SUBDOMAIN_BREAKERS(BUNDLE_NAMES.providerConfig)),
  {
    name: "ProviderConfig required field missing",
    target: "ProviderConfig",
    outcome: refused("ProviderConfig", PROVIDER_CONFIG_NOT_FOUND),
    apply: (b, rng) =>
      remove(
        b.providerConfig,
        rng.pick([["spec"], ["spec", "credentials"], ["spec", "credentials", "source"], ["spec", "credentials", "secretRef"], ["spec", "credentials", "secretRef", "name"]]),
      ),
  },

  // ProviderConfig: admitted, and refused by the controller.
  {
    name: "ProviderConfig secretRef to a missing Secret",
    target: "ProviderConfig",
    outcome: condition("CredentialsValid", "SecretNotFound"),
    apply: (b, rng) => set(b.providerConfig, ["spec", "credentials", "secretRef", "name"], rng.pick(["missing-credentials", "otc-credential", "otc-credentials-2", `s-${rng.text(8)}`])),
  },
  {
    name: "ProviderConfig secretRef.key not in the Secret",
    target: "ProviderConfig",
    outcome: condition("CredentialsValid", "SecretKeyMissing"),
    apply: (b, rng) => set(b.providerConfig, ["spec", "credentials", "secretRef", "key"], rng.pick(["other", "credential", "Credentials", "password", "config.json"])),
  },
  // A ProviderConfig may only read Secrets of its own namespace (no confused deputy).
  {
    name: "ProviderConfig secretRef.namespace another namespace",
    target: "ProviderConfig",
    outcome: condition("CredentialsValid", "InvalidProviderConfig"),
    apply: (b, rng) => set(b.providerConfig, ["spec", "credentials", "secretRef", "namespace"], rng.pick(["default", "kube-system", "kcp-system", "fuzz"])),
  },

  // The Secret: not there for the platform.
  {
    name: "Secret absent",
    target: "Secret",
    outcome: condition("CredentialsValid", "SecretNotFound"),
    apply: (b) => {
      b.secret = undefined;
    },
  },
  // The Secrets claim selects visible-to-platform=true exactly; the controller never sees any other.
  {
    name: "Secret without the visible-to-platform label",
    target: "Secret",
    outcome: condition("CredentialsValid", "SecretNotFound"),
    apply: (b, rng) => {
      const labels = ["metadata", "labels", SECRET_LABEL.key];
      const value = rng.pick([undefined, "false", "TRUE", "yes", ""]);
      if (value === undefined) remove(secretOf(b), labels);
      else set(secretOf(b), labels, value);
    },
  },
  // Core validation refuses these Secrets (422), after which the platform finds none.
  {
    name: "Secret refused by validation",
    target: "Secret",
    outcome: refused("Secret", SECRET_NOT_FOUND),
    apply: (b, rng) => {
      const secret = secretOf(b);
      switch (rng.int(0, 3)) {
        case 0:
          return set(secret, ["metadata", "name"], rng.pick(SUBDOMAIN_BREAKERS(BUNDLE_NAMES.secret)));
        case 1:
          return set(secret, ["metadata", "name"], "s".repeat(rng.int(254, 300)));
        case 2:
          return set(secret, ["data", rng.pick(["bad key!", "a/b", "cred entials", ""])], base64("x"));
        default:
          // A TLS Secret must hold tls.crt and tls.key.
          return set(secret, ["type"], "kubernetes.io/tls");
      }
    },
  },

  // The credentials: read and refused by the controller before IAM is asked.
  credentials("credentials: empty", "SecretKeyMissing", () => ""),
  credentials("credentials: blank", "InvalidCredentials", (rng) => rng.pick([" ", "\n", "\n\n\n", " \t \n", "\r\n", "  "])),
  credentials("credentials: binary", "InvalidCredentials", (rng) => {
    const bytes = new Uint8Array(rng.int(16, 1024));
    for (let i = 0; i < bytes.length; i++) bytes[i] = rng.int(0, 255);
    // 0xFF is in no UTF-8 text.
    bytes[rng.int(0, bytes.length - 1)] = 0xff;
    return bytes;
  }),
  credentials("credentials: control characters", "InvalidCredentials", (rng, c) => insertAt(c.credentials, rng.int(0, c.credentials.length), rng.pick(CONTROL_CHARACTERS))),
  credentials("credentials: over 8 KiB", "InvalidCredentials", (rng, c) => {
    const target = rng.int(MAX_CREDENTIALS_BYTES + 1, 2 * MAX_CREDENTIALS_BYTES);
    let text = c.credentials;
    while (Buffer.byteLength(text) < target) text = withLine(text, `# ${rng.text(Math.min(1000, target - Buffer.byteLength(text)))}`);
    return text;
  }),
  credentials("credentials: over 100 lines", "InvalidCredentials", (rng, c) => {
    let text = c.credentials;
    const lines = rng.int(MAX_CREDENTIALS_LINES, 4 * MAX_CREDENTIALS_LINES);
    for (let i = 0; i < lines; i++) text = withLine(text, rng.pick(["#", "", "# padding"]));
    return text;
  }),
  credentials("credentials: JSON malformed", "InvalidCredentials", (rng, c) => {
    const json = JSON.stringify(credentialsObject(c.credentials));
    switch (rng.int(0, 3)) {
      case 0:
        // Any proper prefix of a JSON object is no JSON.
        return json.slice(0, rng.int(1, json.length - 1));
      case 1:
        return `${json.slice(0, -1)},}`;
      case 2:
        return json.replaceAll('"', "'");
      default:
        return `{${c.credentials}}`;
    }
  }),
  credentials("credentials: JSON value not a string", "InvalidCredentials", (rng, c) => {
    const object: Record<string, unknown> = credentialsObject(c.credentials);
    object[rng.pick(PASSWORD_FILE_KEYS)] = rng.pick([12345, null, true, ["x"], { value: "x" }]);
    return JSON.stringify(object, null, rng.pick([0, 2]));
  }),
  // Without tenant_name (and no region) the region cannot be told.
  credentials("credentials: missing required key", "InvalidCredentials", (rng, c) => withKey(c.credentials, rng.pick(PASSWORD_FILE_KEYS), undefined)),
  credentials("credentials: empty value", "InvalidCredentials", (rng, c) => withKey(c.credentials, rng.pick(c.keys), "")),
  credentials("credentials: duplicate key", "InvalidCredentials", (rng, c) => withLine(c.credentials, `${rng.pick(c.keys)}=${rng.text(12)}`)),
  credentials("credentials: unknown key", "InvalidCredentials", (rng, c) =>
    withLine(c.credentials, rng.pick(["username=admin", `passwd=${rng.text(12)}`, "AUTH_URL=https://iam.example/v3", "auth-url=https://iam.example/v3", "tenant=eu-de", "hunter2="])),
  ),
  credentials("credentials: line without =", "InvalidCredentials", (rng, c) =>
    withLine(c.credentials, rng.pick(["password hunter2", "auth_url: https://iam.example/v3", "export", "[default]", "user_name"])),
  ),
  credentials("credentials: password and access key", "InvalidCredentials", (rng, c) => {
    const text = withLine(c.credentials, `access_key=${rng.text(20, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")}`);
    return rng.next() < 0.5 ? text : withLine(text, `secret_key=${rng.text(40)}`);
  }),
  credentials("credentials: region wrong", "InvalidCredentials", (rng, c) => {
    const other = ["eu-nl", "eu-ch2", "ap-southeast-1"].filter((region) => region !== c.region);
    return withLine(c.credentials, `region=${rng.pick([...other, "EU-DE", "eu_de", "eude", "eu-", "-eu-de"])}`);
  }),
  credentials("credentials: auth_url not an http(s) URL", "InvalidCredentials", (rng, c) =>
    withKey(c.credentials, "auth_url", rng.pick(["ftp://iam.example/v3", "file:///etc/passwd", "iam.eu-de.otc.t-systems.com/v3", "javascript:alert(1)", "http//missing-colon", "ldap://iam/v3", "//iam.example/v3"])),
  ),
  credentials("credentials: auth_url with user info", "InvalidCredentials", (rng, c) => {
    const { protocol, host, pathname } = c.authUrl;
    return withKey(c.credentials, "auth_url", rng.pick([`${protocol}//user:secret@${host}${pathname}`, `${protocol}//admin@${host}${pathname}`, `${protocol}//${host}@evil.example/v3`]));
  }),
  // The run's controller allows only the valid file's auth_url origin.
  credentials("credentials: auth_url not allowed", "AuthUrlNotAllowed", (rng, c) => {
    const { protocol, hostname, port, pathname, origin } = c.authUrl;
    const otherPort = ((Number(port) || (protocol === "https:" ? 443 : 80)) % 65535) + 1;
    const candidates = [
      "https://iam.eu-de.otc.t-systems.com/v3",
      "https://iam.evil.example/v3",
      "http://169.254.169.254/v3",
      `${protocol === "https:" ? "http:" : "https:"}//${c.authUrl.host}${pathname}`,
      `${protocol}//${hostname}:${otherPort}${pathname}`,
    ].filter((url) => new URL(url).origin !== origin);
    return withKey(c.credentials, "auth_url", rng.pick(candidates));
  }),

  // The credentials: well-formed and allowed, and IAM refuses them (401): the controller creates nothing.
  credentials("credentials: rejected by IAM", "CredentialsRejected", (rng, c) => {
    switch (rng.int(0, 3)) {
      case 0:
        return withKey(c.credentials, "password", rng.pick([`wrong-${rng.text(16)}`, `p\u00E4ssw\u00F6rd-${rng.text(8)}`, credentialValue(c.credentials, "password").toUpperCase() + "x"]));
      case 1:
        return withKey(c.credentials, "user_name", `nobody-${rng.text(8)}`);
      case 2:
        return withKey(c.credentials, "domain_name", `nodomain-${rng.text(8)}`);
      default:
        return withKey(c.credentials, "tenant_name", `${c.region}_nobody${rng.text(6)}`);
    }
  }),
];

/** The keys whose values are secrets, in the key=value and the JSON form of a credentials file. */
const SECRET_KEYS = new Set(["password", "passwd", "secret_key", "access_key"]);

/**
 * The secret values the cases' credentials Secrets carry (passwords, access
 * and secret keys, generated ones included), once each: what the run's
 * credential guard must search for besides the platform's own.
 */
export function caseSecrets(cases: readonly GeneratedCase[]): string[] {
  const found = new Set<string>();
  for (const generated of cases) {
    const encoded = (generated.objects.find((object) => object.kind === "Secret") as { data?: Record<string, unknown> } | undefined)?.data?.[BUNDLE_NAMES.secretKey];
    if (typeof encoded !== "string") continue;
    const text = Buffer.from(encoded, "base64").toString("utf8");
    for (const line of credentialLines(text)) if (line.key !== undefined && SECRET_KEYS.has(line.key) && line.value) found.add(line.value);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      continue;
    }
    if (typeof parsed !== "object" || parsed === null) continue;
    for (const [key, value] of Object.entries(parsed)) if (SECRET_KEYS.has(key) && typeof value === "string" && value !== "") found.add(value);
  }
  return [...found];
}

/** Every mutation class with the outcome it must have; `GeneratedCase.mutation` is one of these names, or VALID. */
export const MUTATION_CLASSES: readonly MutationClass[] = Object.freeze(MUTATIONS.map(({ name, target, outcome }) => Object.freeze({ name, target, outcome })));

const OUTCOMES: ReadonlyMap<string, ExpectedOutcome> = new Map([[VALID, { kind: "valid" } as const], ...MUTATION_CLASSES.map((mutation) => [mutation.name, mutation.outcome] as const)]);

/** What must happen to a case of `mutation` (a `GeneratedCase.mutation`): what the run checks each case against. */
export function expectedOutcome(mutation: string): ExpectedOutcome {
  const outcome = OUTCOMES.get(mutation);
  if (outcome === undefined) throw new Error(`no mutation class ${JSON.stringify(mutation)}`);
  return outcome;
}
