import { describe, expect, it } from "@jest/globals";
import type { ProviderConfig } from "@edgeconnect/api";
import { processSecrets } from "@edgeconnect/redaction";
import type { ClusterScope } from "@edgeconnect/runtime";
import type { OtcGateway } from "../otc/otc-gateway.js";
import { checkProviderConfig, type CredentialsContext } from "./tenant-credentials.js";
import { tenantResources, type Secret } from "./tenant-resources.js";

const resources = tenantResources({});
const PASSWORD = "Zq8#tenant-credentials-test-pa55";
const CREDENTIALS = ["auth_url=https://iam.eu-de.otc.t-systems.com/v3", "user_name=alice", `password=${PASSWORD}`, "domain_name=OTC0001", "tenant_name=eu-de", ""].join("\n");

function providerConfig(secretRef: { name: string; namespace?: string; key?: string }): ProviderConfig {
  return {
    apiVersion: "platform.edgeconnect.eu/v1alpha1",
    kind: "ProviderConfig",
    metadata: { name: "otc", namespace: "team-a" },
    spec: { credentials: { source: "Secret", secretRef } },
  };
}

/** A tenant scope holding `secrets`, and a gateway that accepts everything and counts the calls. */
function harness(secrets: Secret[]): { context: CredentialsContext; scope: ClusterScope; verified: () => number } {
  let verified = 0;
  const gateway = {
    verify: async () => {
      verified++;
      return { accepted: true, projectId: "p-1" };
    },
  } as unknown as OtcGateway;
  const lister = () => ({
    get: (namespace: string, name: string) => secrets.find((s) => s.metadata?.namespace === namespace && s.metadata?.name === name),
    list: () => secrets,
  });
  const scope = { cluster: "tenant-a", client: {}, lister } as unknown as ClusterScope;
  return { context: { resources, gateway, allowedAuthUrls: ["https://iam.*.otc.t-systems.com/"] }, scope, verified: () => verified };
}

const secret = (namespace: string, data: Buffer | string): Secret => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "otc-credentials", namespace },
  data: { credentials: Buffer.from(data).toString("base64") },
});

describe("checkProviderConfig", () => {
  it("accepts the seed's credentials in the ProviderConfig's namespace, with or without naming it", async () => {
    for (const ref of [{ name: "otc-credentials" }, { name: "otc-credentials", namespace: "team-a" }]) {
      const { context, scope } = harness([secret("team-a", CREDENTIALS)]);
      const outcome = await checkProviderConfig(context, scope, providerConfig(ref), new AbortController().signal);
      expect(outcome).toMatchObject({ ok: true, projectId: "p-1" });
    }
  });

  it("refuses a Secret of another namespace without reading it: the ProviderConfig's author may not be able to", async () => {
    const { context, scope, verified } = harness([secret("team-b", CREDENTIALS)]);
    const outcome = await checkProviderConfig(context, scope, providerConfig({ name: "otc-credentials", namespace: "team-b" }), new AbortController().signal);
    expect(outcome).toMatchObject({ ok: false, reason: "InvalidProviderConfig" });
    expect(outcome.ok ? "" : outcome.message).toMatch(/only use Secrets of its own namespace "team-a": remove spec.credentials.secretRef.namespace/);
    expect(verified()).toBe(0);
  });

  it("says which label makes a Secret visible when it cannot be seen", async () => {
    const { context, scope } = harness([]);
    const outcome = await checkProviderConfig(context, scope, providerConfig({ name: "otc-credentials" }), new AbortController().signal);
    expect(outcome).toMatchObject({ ok: false, reason: "SecretNotFound" });
    expect(outcome.ok ? "" : outcome.message).toContain("label platform.edgeconnect.eu/visible-to-platform=true");
  });

  it.each<[string, Buffer | string, RegExp]>([
    ["100 KB", `${CREDENTIALS}#${"x".repeat(100 * 1024)}\n`, /larger than 8192 bytes/],
    ["1 MiB", Buffer.alloc(1024 * 1024, 0x61), /larger than 8192 bytes/],
    ["binary", Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0x00]), /not UTF-8 text|control characters/],
    ["many-line", `${CREDENTIALS}${"#\n".repeat(200)}`, /more than 100 lines/],
  ])("refuses a %s credentials value before it is parsed or held, and asks IAM nothing", async (_what, data, problem) => {
    const { context, scope, verified } = harness([secret("team-a", data)]);
    const held = processSecrets().size;
    const outcome = await checkProviderConfig(context, scope, providerConfig({ name: "otc-credentials" }), new AbortController().signal);
    expect(outcome).toMatchObject({ ok: false, reason: "InvalidCredentials" });
    expect(outcome.ok ? "" : outcome.message).toMatch(problem);
    expect(outcome.ok ? "" : outcome.message).not.toContain(PASSWORD);
    expect(processSecrets().size).toBe(held);
    expect(verified()).toBe(0);
  });
});
