/**
 * The generated-input run's generator (e2e/chaos/generated-input.ts), with
 * no servers: deterministic, the counts asked for, every mutation class,
 * one change per invalid case, bounded sizes. And each class's outcome is
 * checked against a model of what decides it: the CRD schemas read from
 * packages/api/crds (structural checks, with the CRDs' CEL rules written
 * out), core validation of names and Secrets, and the controller's own
 * credential parsing and flavor matching in the order it applies them.
 */
import { beforeAll, describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { SECRET_LABEL, type ProviderMachineFlavor } from "@edgeconnect/api";
import { DEMO_FLAVORS, flavorManifest } from "@edgeconnect/demo";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { credentialFingerprint, credentialsText, MAX_CREDENTIALS_BYTES, matchFlavor, parseOtcCredentials, parseQuantity } from "@edgeconnect/provisioning";
import { REPO_ROOT } from "@edgeconnect/testenv";
import { parse } from "yaml";
import {
  caseSecrets,
  expectedOutcome,
  generateCases,
  MAX_OBJECT_BYTES,
  MUTATION_CLASSES,
  VALID,
  validBundle,
  type BundleKind,
  type ExpectedCondition,
  type GeneratedCase,
  type GeneratorOptions,
} from "../chaos/generated-input.js";

/** Of the seed's password format, as Platform.passwordCredentials makes it. */
const CREDENTIALS = ["auth_url=http://127.0.0.1:43210/v3", "user_name=tenant-0-admin", "password=generated-input-test-0-Qp4", "domain_name=tenant-0-domain", "tenant_name=eu-de_tenant0", ""].join("\n");
const OPTIONS: GeneratorOptions = { seed: 20240601, count: 2000, credentials: CREDENTIALS };
const KINDS: readonly BundleKind[] = ["Secret", "ProviderConfig", "MachineCapabilities", "KubernetesCluster"];
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const isDnsLabel = (name: string | undefined): boolean => name !== undefined && name.length <= 63 && DNS_LABEL.test(name);
/** The classes that break an object's name on purpose. */
const NAME_MUTATIONS = new Set(["name over 253 characters", "name not a DNS subdomain", "MachineCapabilities name not a DNS subdomain", "ProviderConfig name not a DNS subdomain", "Secret refused by validation"]);

let cases: GeneratedCase[];
beforeAll(() => {
  cases = generateCases(OPTIONS);
});

const byMutation = (name: string): GeneratedCase[] => cases.filter((c) => c.mutation === name);
const kindOf = (obj: KubeObject): BundleKind => obj.kind as BundleKind;
const byKind = (objects: readonly KubeObject[]): Record<string, KubeObject> => Object.fromEntries(objects.map((obj) => [kindOf(obj), obj]));
const json = (value: unknown): string => JSON.stringify(value);

describe("generateCases", () => {
  it("gives the same cases for the same seed and other cases for another", () => {
    expect(json(generateCases(OPTIONS))).toBe(json(cases));
    const other = generateCases({ ...OPTIONS, seed: OPTIONS.seed + 1 });
    expect(json(other)).not.toBe(json(cases));
    // Not merely shifted: most cases differ.
    expect(other.filter((c, i) => json(c) !== json(cases[i])).length).toBeGreaterThan(OPTIONS.count * 0.9);
  });

  it("makes a case the same however many are generated", () => {
    expect(json(generateCases({ ...OPTIONS, count: 50 }))).toBe(json(cases.slice(0, 50)));
  });

  it("honours count, with ids 0..count-1 each in its own namespace", () => {
    expect(generateCases({ ...OPTIONS, count: 0 })).toEqual([]);
    expect(generateCases({ ...OPTIONS, count: 1 })).toHaveLength(1);
    expect(generateCases({ ...OPTIONS, count: 37 })).toHaveLength(37);
    expect(cases).toHaveLength(OPTIONS.count);
    expect(cases.map((c) => c.id)).toEqual([...Array(OPTIONS.count).keys()]);
    expect(new Set(cases.map((c) => c.namespace)).size).toBe(OPTIONS.count);
    for (const c of cases) expect(c.namespace).toBe(`fuzz-${c.id}`);
  });

  it("leaves roughly validFraction of the cases valid (default 0.02)", () => {
    const validOf = (list: readonly GeneratedCase[]): number => list.filter((c) => c.expectation === "valid").length;
    const many = generateCases({ ...OPTIONS, count: 10_000 });
    expect(validOf(many)).toBeGreaterThanOrEqual(150);
    expect(validOf(many)).toBeLessThanOrEqual(250);
    expect(validOf(generateCases({ ...OPTIONS, validFraction: 0.5 }))).toBeGreaterThanOrEqual(900);
    expect(validOf(generateCases({ ...OPTIONS, validFraction: 0.5 }))).toBeLessThanOrEqual(1100);
    expect(validOf(generateCases({ ...OPTIONS, validFraction: 0 }))).toBe(0);
    expect(validOf(generateCases({ ...OPTIONS, count: 100, validFraction: 1 }))).toBe(100);
  });

  it("covers every mutation class in 2,000 cases, roughly evenly", () => {
    const counts = new Map<string, number>();
    for (const c of cases) counts.set(c.mutation, (counts.get(c.mutation) ?? 0) + 1);
    const names = MUTATION_CLASSES.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...counts.keys()].sort()).toEqual([VALID, ...names].sort());
    const invalid = cases.filter((c) => c.expectation === "invalid").length;
    const even = invalid / names.length;
    for (const name of names) {
      expect({ name, count: counts.get(name) ?? 0, enough: (counts.get(name) ?? 0) >= even / 3 }).toEqual({ name, count: counts.get(name), enough: true });
      expect(counts.get(name) ?? 0).toBeLessThanOrEqual(even * 3);
    }
    for (const c of cases) expect(c.expectation === "valid").toBe(c.mutation === VALID);
  });

  it("applies Secret, ProviderConfig, MachineCapabilities and then the KubernetesCluster, all in the case's namespace", () => {
    for (const c of cases) {
      const kinds = c.objects.map(kindOf);
      expect(kinds).toEqual(KINDS.filter((kind) => kinds.includes(kind)));
      expect(kinds.at(-1)).toBe("KubernetesCluster");
      expect(kinds.length).toBe(c.mutation === "Secret absent" ? 3 : 4);
      for (const obj of c.objects) {
        expect(obj.metadata?.namespace).toBe(c.namespace);
        expect(obj.apiVersion).toBe(obj.kind === "Secret" ? "v1" : "platform.edgeconnect.eu/v1alpha1");
      }
    }
  });

  it("makes a valid case the valid bundle of its id: the order a tenant places with orderCluster", () => {
    const valid = cases.filter((c) => c.expectation === "valid");
    expect(valid.length).toBeGreaterThan(10);
    for (const c of valid) expect(c.objects).toEqual(validBundle(c.id, OPTIONS));
    const [secret, providerConfig, capabilities, cluster] = validBundle(0, OPTIONS);
    expect(secret).toEqual({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "otc-credentials", namespace: "fuzz-0", labels: { [SECRET_LABEL.key]: SECRET_LABEL.value } },
      data: { credentials: Buffer.from(CREDENTIALS).toString("base64") },
    });
    expect(providerConfig?.spec).toEqual({ credentials: { source: "Secret", secretRef: { name: "otc-credentials", key: "credentials" } } });
    expect(capabilities?.spec).toEqual({ vCPUCount: 4, memorySize: "8Gi" });
    const counts = new Set(cases.map((c) => (byKind(validBundle(c.id, OPTIONS)).KubernetesCluster?.spec as { nodeCount: number }).nodeCount));
    expect([...counts].sort()).toEqual([1, 2, 3]);
    expect({ ...(cluster?.spec as object), nodeCount: 2 }).toEqual({
      machineCapabilitiesRef: { name: "workers" },
      nodeCount: 2,
      nodeDiskSize: "100Gi",
      providerRef: { type: "OTC", configRef: { name: "otc" } },
      kubernetes: { version: "v1.31" },
      nodeAvailableZone: "random",
    });
  });

  it("breaks exactly one place of the valid bundle in an invalid case, in the object its class names", () => {
    for (const c of cases) {
      const valid = byKind(validBundle(c.id, OPTIONS));
      const actual = byKind(c.objects);
      const changed = KINDS.filter((kind) => places(actual[kind], valid[kind]) > 0);
      if (c.expectation === "valid") {
        expect(changed).toEqual([]);
        continue;
      }
      const target = MUTATION_CLASSES.find((m) => m.name === c.mutation)?.target;
      expect({ mutation: c.mutation, changed, places: KINDS.reduce((sum, kind) => sum + places(actual[kind], valid[kind]), 0) }).toEqual({ mutation: c.mutation, changed: [target], places: 1 });
    }
  });

  it("keeps every object under 64 KiB, and only the over-8-KiB class over 8 KiB of credentials", () => {
    for (const c of cases) {
      for (const obj of c.objects) expect(Buffer.byteLength(JSON.stringify(obj))).toBeLessThanOrEqual(MAX_OBJECT_BYTES);
      const encoded = (byKind(c.objects).Secret?.data as Record<string, string> | undefined)?.credentials ?? "";
      expect(Buffer.from(encoded, "base64").length > MAX_CREDENTIALS_BYTES).toBe(c.mutation === "credentials: over 8 KiB");
    }
    expect(byMutation("credentials: over 8 KiB").length).toBeGreaterThan(0);
  });

  it("names every object with a DNS label, except where the name is what is broken", () => {
    for (const c of cases) {
      expect({ namespace: c.namespace, label: isDnsLabel(c.namespace) }).toEqual({ namespace: c.namespace, label: true });
      if (NAME_MUTATIONS.has(c.mutation)) continue;
      for (const obj of c.objects) expect({ name: obj.metadata?.name, label: isDnsLabel(obj.metadata?.name) }).toEqual({ name: obj.metadata?.name, label: true });
    }
    for (const name of NAME_MUTATIONS) expect({ name, broken: byMutation(name).some((c) => c.objects.some((obj) => !isDnsLabel(obj.metadata?.name))) }).toEqual({ name, broken: true });
  });

  it("refuses options it cannot keep its promises with", () => {
    expect(() => generateCases({ ...OPTIONS, credentials: "" })).toThrow(/password format/);
    expect(() => generateCases({ ...OPTIONS, credentials: `${JSON.stringify({ auth_url: "https://iam.example/v3", user_name: "u", password: "p", domain_name: "d", tenant_name: "eu-de_x" })}\n` })).toThrow(/password format/);
    expect(() => generateCases({ ...OPTIONS, credentials: CREDENTIALS.replace("tenant_name=eu-de_tenant0", "tenant_name=eu-de") })).toThrow(/tenant_name/);
    expect(() => generateCases({ ...OPTIONS, count: -1 })).toThrow(/count/);
    expect(() => generateCases({ ...OPTIONS, seed: 0.5 })).toThrow(/seed/);
    expect(() => generateCases({ ...OPTIONS, validFraction: 2 })).toThrow(/validFraction/);
    expect(() => expectedOutcome("no such class")).toThrow();
  });
});

describe("caseSecrets", () => {
  it("gives the valid password and every generated password, access and secret key the cases carry, once each", () => {
    const secrets = caseSecrets(cases);
    expect(secrets).toContain("generated-input-test-0-Qp4");
    expect(new Set(secrets).size).toBe(secrets.length);
    // A wrong password IAM refuses, generated per case: the guard must look for it too.
    const wrong = byMutation("credentials: rejected by IAM").flatMap((c) => caseSecrets([c])).filter((secret) => secret !== "generated-input-test-0-Qp4");
    expect(wrong.length).toBeGreaterThan(0);
    for (const secret of wrong) expect(secrets).toContain(secret);
    const keys = byMutation("credentials: password and access key").flatMap((c) => caseSecrets([c]));
    expect(keys.some((secret) => /^[A-Z0-9]{20}$/.test(secret))).toBe(true);
  });

  it("reads the JSON form of a credentials file as well, and nothing from a case without a Secret", () => {
    const secret = (text: string): GeneratedCase => ({
      id: 0,
      namespace: "fuzz-0",
      expectation: "invalid",
      mutation: "x",
      objects: [{ apiVersion: "v1", kind: "Secret", metadata: { name: "otc-credentials" }, data: { credentials: Buffer.from(text).toString("base64") } }],
    });
    expect(caseSecrets([secret(JSON.stringify({ access_key: "JSONACCESSKEY0001", secret_key: "json-secret-key-0001", user_name: "u" })), secret("not a credentials file")])).toEqual([
      "JSONACCESSKEY0001",
      "json-secret-key-0001",
    ]);
    expect(caseSecrets([{ id: 1, namespace: "fuzz-1", expectation: "invalid", mutation: "x", objects: [] }])).toEqual([]);
  });
});

describe("each case's outcome, against the schemas and the controller's checks", () => {
  it("is the one its class promises, for every case of two seeds (7,000 cases)", () => {
    const model = new Model();
    for (const c of [...cases, ...generateCases({ ...OPTIONS, seed: 7, count: 5000 })]) {
      const outcome = expectedOutcome(c.mutation);
      const refusedKinds = c.objects.filter((obj) => model.refusal(obj).length > 0).map(kindOf);
      const admitted = c.objects.filter((obj) => !refusedKinds.includes(kindOf(obj)));
      const seen = { mutation: c.mutation, id: c.id, refused: refusedKinds, verdict: admitted.some((obj) => obj.kind === "KubernetesCluster") ? model.verdict(admitted, c.namespace) : undefined };
      switch (outcome.kind) {
        case "valid":
          expect(seen).toEqual({ ...seen, refused: [], verdict: "valid" });
          break;
        case "refused":
          expect(seen).toEqual({ ...seen, refused: [outcome.object], verdict: outcome.object === "KubernetesCluster" ? undefined : outcome.then });
          break;
        default:
          expect(seen).toEqual({ ...seen, refused: [], verdict: outcome.condition });
      }
    }
  });

  it("has a model that admits the valid bundle and refuses what the CRDs refuse", () => {
    const model = new Model();
    const [, , capabilities, cluster] = validBundle(0, OPTIONS) as [KubeObject, KubeObject, KubeObject, KubeObject];
    expect(model.refusal(cluster)).toEqual([]);
    const withSpec = (obj: KubeObject, spec: object): KubeObject => ({ ...obj, spec: { ...(obj.spec as object), ...spec } });
    expect(model.refusal(withSpec(cluster, { nodeCount: 0 }))).not.toEqual([]);
    expect(model.refusal(withSpec(cluster, { nodeDiskSize: "32Ti" }))).toEqual([]);
    expect(model.refusal(withSpec(cluster, { nodeDiskSize: "10G" }))).not.toEqual([]);
    expect(model.refusal(withSpec(cluster, { vpcID: "0b7e4d2c-1111-4222-8333-944455556666" }))).not.toEqual([]);
    expect(model.refusal(withSpec(capabilities, { memorySize: "1m" }))).toEqual([]);
    expect(model.refusal(withSpec(capabilities, { memorySize: 0 }))).not.toEqual([]);
  });
});

/** How many places two values differ in: a differing leaf, or a subtree present on one side only, is one place. */
function places(a: unknown, b: unknown): number {
  if (isDeepStrictEqual(a, b)) return 0;
  if (isObject(a) && isObject(b)) {
    let sum = 0;
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) sum += places(a[key], b[key]);
    return sum;
  }
  return 1;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  "x-kubernetes-int-or-string"?: boolean;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const GI = 1n << 30n;

/**
 * What decides a case: kcp's validation (the CRDs' OpenAPI schema as read
 * from packages/api/crds, their CEL rules written out below, core
 * validation of names and Secrets), then the controller's checks in the
 * order provision.ts makes them, with the run's allow-list (the valid
 * file's origin), IAM (which knows the valid credentials only) and the
 * demo catalogue.
 */
class Model {
  private readonly schemas = new Map<string, Schema>();
  private readonly valid = parseOtcCredentials(CREDENTIALS);
  private readonly flavors = DEMO_FLAVORS.map(flavorManifest) as unknown as ProviderMachineFlavor[];

  constructor() {
    for (const [kind, file] of [
      ["KubernetesCluster", "platform.edgeconnect.eu_kubernetesclusters.yaml"],
      ["ProviderConfig", "platform.edgeconnect.eu_providerconfigs.yaml"],
      ["MachineCapabilities", "platform.edgeconnect.eu_machinecapabilities.yaml"],
    ] as const) {
      const crd = parse(readFileSync(join(REPO_ROOT, "packages", "api", "crds", file), "utf8")) as { spec: { versions: { schema: { openAPIV3Schema: Schema } }[] } };
      const schema = crd.spec.versions[0]?.schema.openAPIV3Schema;
      if (schema === undefined) throw new Error(`no schema in ${file}`);
      this.schemas.set(kind, schema);
    }
  }

  /** Why kcp refuses the object (422), or nothing. */
  refusal(obj: KubeObject): string[] {
    const name = obj.metadata?.name ?? "";
    const problems = name.length > 253 || !DNS_SUBDOMAIN.test(name) ? ["metadata.name"] : [];
    if (obj.kind === "Secret") {
      const data = (obj.data ?? {}) as Record<string, string>;
      for (const key of Object.keys(data)) if (!/^[-._a-zA-Z0-9]+$/.test(key) || key.length > 253) problems.push(`data key ${key}`);
      if (obj.type === "kubernetes.io/tls" && (data["tls.crt"] === undefined || data["tls.key"] === undefined)) problems.push("tls keys");
      return problems;
    }
    const schema = this.schemas.get(obj.kind ?? "");
    if (schema === undefined) throw new Error(`no schema for ${obj.kind}`);
    problems.push(...structural(obj, schema, ""));
    if (problems.length === 0) problems.push(...cel(obj));
    return problems;
  }

  /** The KubernetesCluster's condition once the admitted objects are in, or "valid". */
  verdict(objects: readonly KubeObject[], namespace: string): ExpectedCondition | "valid" {
    const find = (kind: string, name: string | undefined): KubeObject | undefined => objects.find((obj) => obj.kind === kind && obj.metadata?.name === name);
    const cluster = find("KubernetesCluster", objects.at(-1)?.metadata?.name);
    const spec = cluster?.spec as { providerRef: { configRef?: { name: string } }; machineCapabilitiesRef: { name: string }; nodeAvailableZone?: string; nodeFlavor?: string };
    const credentialsValid = (reason: string): ExpectedCondition => ({ type: "CredentialsValid", reason });
    const providerConfig = find("ProviderConfig", spec.providerRef.configRef?.name);
    if (providerConfig === undefined) return credentialsValid("ProviderConfigNotFound");
    const ref = (providerConfig.spec as { credentials: { secretRef: { name: string; namespace?: string; key?: string } } }).credentials.secretRef;
    if (ref.namespace !== undefined && ref.namespace !== namespace) return credentialsValid("InvalidProviderConfig");
    const secret = find("Secret", ref.name);
    if (secret === undefined || secret.metadata?.labels?.[SECRET_LABEL.key] !== SECRET_LABEL.value) return credentialsValid("SecretNotFound");
    const encoded = (secret.data as Record<string, string> | undefined)?.[ref.key ?? "credentials"];
    if (encoded === undefined || encoded === "") return credentialsValid("SecretKeyMissing");
    const text = credentialsText(encoded);
    const parsed = text.ok ? parseOtcCredentials(text.text) : undefined;
    if (parsed?.ok !== true) return credentialsValid("InvalidCredentials");
    if (!this.valid.ok) throw new Error("the test's credentials do not parse");
    const allowed = `${new URL(this.valid.credentials.authUrl).origin}/`;
    const authUrl = parsed.credentials.authUrl;
    if (!(authUrl.endsWith("/") ? authUrl : `${authUrl}/`).startsWith(allowed)) return credentialsValid("AuthUrlNotAllowed");
    if (credentialFingerprint(parsed.credentials) !== credentialFingerprint(this.valid.credentials)) return credentialsValid("CredentialsRejected");
    const capabilities = find("MachineCapabilities", spec.machineCapabilitiesRef.name);
    if (capabilities === undefined) return { type: "FlavorMatched", reason: "MachineCapabilitiesNotFound" };
    const match = matchFlavor({
      providerType: "OTC",
      capabilities: capabilities.spec as { vCPUCount: number; memorySize: string },
      flavors: this.flavors,
      zone: spec.nodeAvailableZone ?? "random",
      region: parsed.credentials.region,
      ...(spec.nodeFlavor === undefined ? {} : { pinned: spec.nodeFlavor }),
    });
    return match.ok ? "valid" : { type: "FlavorMatched", reason: "NoMatchingFlavor" };
  }
}

/** The OpenAPI checks our CRDs use; unknown fields are pruned, not refused. */
function structural(value: unknown, schema: Schema, path: string): string[] {
  const problem = [`${path}: ${JSON.stringify(value)?.slice(0, 80)}`];
  if (schema["x-kubernetes-int-or-string"] === true) {
    if (typeof value === "number") return Number.isInteger(value) ? [] : problem;
    return typeof value === "string" ? stringProblems(value, schema, path) : problem;
  }
  switch (schema.type) {
    case "object": {
      if (!isObject(value)) return problem;
      const problems = (schema.required ?? []).filter((key) => !(key in value)).map((key) => `${path}.${key}: required`);
      for (const [key, child] of Object.entries(schema.properties ?? {})) if (key in value && key !== "metadata") problems.push(...structural(value[key], child, `${path}.${key}`));
      return problems;
    }
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) return problem;
      return (schema.minimum !== undefined && value < schema.minimum) || (schema.maximum !== undefined && value > schema.maximum) ? problem : [];
    case "string":
      return typeof value === "string" ? stringProblems(value, schema, path) : problem;
    case "boolean":
      return typeof value === "boolean" ? [] : problem;
    default:
      return [];
  }
}

function stringProblems(value: string, schema: Schema, path: string): string[] {
  // Lengths count characters (runes), as the API server does.
  const length = [...value].length;
  const ok =
    (schema.enum === undefined || schema.enum.includes(value)) &&
    (schema.minLength === undefined || length >= schema.minLength) &&
    (schema.maxLength === undefined || length <= schema.maxLength) &&
    (schema.pattern === undefined || new RegExp(schema.pattern).test(value));
  return ok ? [] : [`${path}: ${JSON.stringify(value).slice(0, 80)}`];
}

/** The CRDs' CEL rules that apply on create (the transition rules do not). */
function cel(obj: KubeObject): string[] {
  const quantity = (value: unknown): bigint | undefined => {
    try {
      return parseQuantity(String(value));
    } catch {
      return undefined;
    }
  };
  const spec = obj.spec as Record<string, unknown>;
  const problems: string[] = [];
  if (obj.kind === "KubernetesCluster") {
    if (("vpcID" in spec) !== ("subnetID" in spec)) problems.push("vpcID and subnetID together");
    const providerRef = spec.providerRef as { type: string; configRef?: unknown; templateSet?: unknown };
    if (providerRef.type === "OTC" && providerRef.configRef === undefined) problems.push("configRef for OTC");
    if ((providerRef.templateSet !== undefined) !== (providerRef.type === "ClusterAPI")) problems.push("templateSet for ClusterAPI only");
    const disk = quantity(spec.nodeDiskSize);
    if (disk !== undefined && (disk < 10n * GI || disk > 32768n * GI)) problems.push("nodeDiskSize between 10Gi and 32768Gi");
  }
  if (obj.kind === "MachineCapabilities") {
    const memory = quantity(spec.memorySize);
    if (memory !== undefined && memory <= 0n) problems.push("memorySize above zero");
  }
  return problems;
}
