import { beforeAll, describe, expect, it } from "@jest/globals";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as constants from "./constants.js";
import { OpenMcpApiModule, openMcpApiModule, parseGoSource } from "./openmcp-api.fixture.js";

const API = "clusters/v1alpha1";
const COMMON = "common";
const CONSTANTS = "constants";
const REASONS = "clusters/v1alpha1/constants";

/** Each of our constants (its path in constants.ts) and the Go constant of the pinned openMCP API module it copies. */
const COUNTERPARTS: readonly (readonly [string, string, string])[] = [
  ["OPENMCP_GROUP", CONSTANTS, "OpenMCPGroupName"],
  ["CLUSTERS_GROUP", API, "GroupName"],
  ["PROVIDER_LABEL", API, "ProviderLabel"],
  ["PROFILE_LABEL", API, "ProfileLabel"],
  ["K8S_VERSION_LABEL", API, "K8sVersionLabel"],
  ["PROVIDER_INFO_ANNOTATION", API, "ProviderInfoAnnotation"],
  ["OPERATION_ANNOTATION", CONSTANTS, "OperationAnnotation"],
  ["OPERATION.Reconcile", CONSTANTS, "OperationAnnotationValueReconcile"],
  ["OPERATION.Ignore", CONSTANTS, "OperationAnnotationValueIgnore"],
  ["CLUSTER_LABEL", CONSTANTS, "ClusterLabel"],
  ["APISERVER_ENDPOINT.External", API, "APISERVER_ENDPOINT_EXTERNAL"],
  ["APISERVER_ENDPOINT.Internal", API, "APISERVER_ENDPOINT_INTERNAL"],
  ["COMMON_PHASE.Ready", COMMON, "StatusPhaseReady"],
  ["COMMON_PHASE.Progressing", COMMON, "StatusPhaseProgressing"],
  ["COMMON_PHASE.Terminating", COMMON, "StatusPhaseTerminating"],
  ["REQUEST_PHASE.Pending", API, "REQUEST_PENDING"],
  ["REQUEST_PHASE.Granted", API, "REQUEST_GRANTED"],
  ["REQUEST_PHASE.Denied", API, "REQUEST_DENIED"],
  ["SECRET_KEY.Kubeconfig", API, "SecretKeyKubeconfig"],
  ["SECRET_KEY.ExpirationTimestamp", API, "SecretKeyExpirationTimestamp"],
  ["SECRET_KEY.CreationTimestamp", API, "SecretKeyCreationTimestamp"],
  ["SECRET_KEY.ClientID", API, "SecretKeyClientID"],
  ["SECRET_KEY.Host", API, "SecretKeyHost"],
  ["SECRET_KEY.CA", API, "SecretKeyCA"],
  ["SECRET_KEY.Token", API, "SecretKeyToken"],
  ["REASON.PlatformClusterInteractionProblem", REASONS, "ReasonPlatformClusterInteractionProblem"],
  ["REASON.InvalidReference", REASONS, "ReasonInvalidReference"],
  ["REASON.ConfigurationProblem", REASONS, "ReasonConfigurationProblem"],
  ["REASON.InternalError", REASONS, "ReasonInternalError"],
];

/** Not Go constants: the module states them in its CRDs, which are checked below. */
const FROM_CRDS = ["CLUSTERS_API_VERSION", "PLATFORM_CLUSTER"];

/** Every string exported by constants.ts, by its path (`SECRET_KEY.CA`). */
function ourConstants(): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (path: string, value: unknown): void => {
    if (typeof value === "string") found.set(path, value);
    else if (value !== null && typeof value === "object") for (const [key, inner] of Object.entries(value)) visit(`${path}.${key}`, inner);
  };
  for (const [name, value] of Object.entries(constants)) visit(name, value);
  return found;
}

describe("openMCP contract constants, against the pinned openMCP API module", () => {
  let module: OpenMcpApiModule;

  // Fails every test below with the reason when the module is not in the Go module cache: never a silent skip.
  beforeAll(async () => {
    module = await openMcpApiModule();
  }, 120_000);

  it.each(COUNTERPARTS)("%s is the module's %s.%s", (ours, pkg, goName) => {
    expect(ourConstants().get(ours)).toBe(module.constant(pkg, goName));
  });

  it("has a counterpart for each of our constants", () => {
    const covered = new Set([...COUNTERPARTS.map(([ours]) => ours), ...FROM_CRDS]);
    expect([...ourConstants().keys()].filter((path) => !covered.has(path))).toEqual([]);
  });

  it("has the apiVersion and the CRD label of the module's Cluster, ClusterProfile, ClusterRequest and AccessRequest CRDs", () => {
    const kinds = ["Cluster", "ClusterProfile", "ClusterRequest", "AccessRequest"];
    const crds = module.crds().filter((crd) => kinds.includes((crd.spec as { names: { kind: string } }).names.kind));
    expect(crds).toHaveLength(kinds.length);
    for (const crd of crds) {
      const spec = crd.spec as { group: string; versions: { name: string }[] };
      expect(spec.versions.map((version) => `${spec.group}/${version.name}`)).toContain(constants.CLUSTERS_API_VERSION);
      expect(crd.metadata?.labels?.[module.constant(CONSTANTS, "ClusterLabel")]).toBe(constants.PLATFORM_CLUSTER);
    }
  });
});

describe("reading Go constants (the fixture the test above relies on)", () => {
  const source = parseGoSource(
    [
      "package x",
      "",
      "import (",
      '\tapiconst "github.com/openmcp-project/openmcp-operator/api/constants"',
      '\t"k8s.io/apimachinery/pkg/runtime"',
      ")",
      "",
      'const Group = "clusters." + apiconst.OpenMCPGroupName // a trailing comment',
      "",
      "const (",
      "\t// Label is a comment with = and \"quotes\".",
      '\tLabel = Group + "/label"',
      '\tTyped string = "typed"',
      "\tPort int32 = 8080",
      '\tURL = "https://example.com/a+b"',
      "\t/* A block",
      '\t   comment: Hidden = "no" */',
      ")",
    ].join("\n"),
  );

  it("takes each declaration's expression, typed or not, and drops comments", () => {
    expect(Object.fromEntries(source.constants)).toEqual({
      Group: '"clusters." + apiconst.OpenMCPGroupName',
      Label: 'Group + "/label"',
      Typed: '"typed"',
      Port: "8080",
      URL: '"https://example.com/a+b"',
    });
  });

  it("names imports by their alias or their last path element", () => {
    expect(Object.fromEntries(source.imports)).toEqual({ apiconst: "github.com/openmcp-project/openmcp-operator/api/constants", runtime: "k8s.io/apimachinery/pkg/runtime" });
  });
});

describe("OpenMcpApiModule.constant", () => {
  /** A module directory with the given files (path → Go source). */
  function moduleWith(files: Record<string, string>): OpenMcpApiModule {
    const dir = mkdtempSync(join(tmpdir(), "openmcp-api-"));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return new OpenMcpApiModule(dir, "v0.0.0-test");
  }

  const fake = moduleWith({
    "constants/constants.go": 'package constants\n\nconst Base = "example.org"\n',
    "v1/names.go": 'package v1\n\nimport apiconst "github.com/openmcp-project/openmcp-operator/api/constants"\n\nconst Group = "things." + apiconst.Base\n',
    "v1/labels.go": 'package v1\n\nimport "k8s.io/other"\n\nconst (\n\tLabel = Group + "/label"\n\tForeign = other.Name\n\tLoop = Loop + "x"\n\tPort int32 = 8080\n)\n',
  });

  it("evaluates a constant built from constants of its own and another package of the module", () => {
    expect(fake.constant("v1", "Label")).toBe("things.example.org/label");
  });

  it.each([
    ["a missing constant", "v1", "Nope", /has no string constant Nope in package v1/],
    ["a missing package", "v2", "Label", /has no Go package v2/],
    ["a constant of a package outside the module", "v1", "Foreign", /cannot read the string constant v1\.Foreign = other\.Name/],
    ["a number", "v1", "Port", /cannot read the string constant v1\.Port = 8080/],
    ["a constant defined by itself", "v1", "Loop", /refer to each other/],
  ])("refuses %s with the reason", (_case, pkg, name, message) => {
    expect(() => fake.constant(pkg, name)).toThrow(message);
  });
});

describe("openMcpApiModule", () => {
  it("fails, saying how to get the module, where the pinned module cannot be had", async () => {
    const repoRoot = mkdtempSync(join(tmpdir(), "no-openmcp-api-"));
    await expect(openMcpApiModule(repoRoot)).rejects.toThrow(/the openMCP API module's sources are needed to check our openMCP constants against, and are not available: [\s\S]*go mod download` in scripts\/modules\/openmcp-api/);
  });
});
