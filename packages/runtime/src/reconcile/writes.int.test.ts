/**
 * Status by server-side apply on the real kube-apiserver, with a CRD of the
 * test's own whose conditions are a list map keyed by type (as every status
 * this repo applies declares them): two field managers each own one
 * condition and keep it, and a field another manager owns is a conflict,
 * not a takeover.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import { connectFromEnv, eventually, holds } from "@edgeconnect/testenv";
import { randomBytes } from "node:crypto";
import { conditionTime, ownedConditions, type Condition, type ConditionUpdate } from "./conditions.js";
import { applyStatus, FieldConflictError, StaleObjectError } from "./writes.js";

const { infra } = connectFromEnv();
const describeInfra = "skipped" in infra ? describe.skip : describe;

interface Probe extends KubeObject {
  status?: { phase?: string; observedGeneration?: number; conditions?: Condition[] };
}

describeInfra("applyStatus on a real API server", () => {
  const client = infra as RestClient;
  const suffix = randomBytes(3).toString("hex");
  // CRDs are cluster-scoped: a group of the run's own keeps parallel runs apart.
  const group = `w${suffix}.runtime.edgeconnect.eu`;
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/probes.${group}`;
  const namespace = `writes-${suffix}`;
  const probes = `/apis/${group}/v1/namespaces/${namespace}/probes`;
  const identity = { apiVersion: `${group}/v1`, kind: "Probe" };
  let count = 0;

  beforeAll(async () => {
    await client.create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `probes.${group}` },
      spec: {
        group,
        scope: "Namespaced",
        names: { kind: "Probe", plural: "probes", singular: "probe", listKind: "ProbeList" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  status: {
                    type: "object",
                    properties: {
                      phase: { type: "string" },
                      observedGeneration: { type: "integer", format: "int64" },
                      conditions: {
                        type: "array",
                        "x-kubernetes-list-type": "map",
                        "x-kubernetes-list-map-keys": ["type"],
                        items: {
                          type: "object",
                          required: ["type", "status", "lastTransitionTime", "reason", "message"],
                          properties: {
                            type: { type: "string" },
                            status: { type: "string", enum: ["True", "False", "Unknown"] },
                            observedGeneration: { type: "integer", format: "int64" },
                            lastTransitionTime: { type: "string", format: "date-time" },
                            reason: { type: "string" },
                            message: { type: "string" },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    });
    await client.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    // Serving lags the Established condition: wait until objects can be listed.
    await eventually(async () => holds((await client.list(probes)).items.length === 0, "probes not served yet"), {
      timeoutMs: 30_000,
      description: "the probe CRD served",
    });
  });

  afterAll(async () => {
    await client.delete(`/api/v1/namespaces/${namespace}`);
    await client.delete(crdPath);
  });

  async function probe(): Promise<{ path: string; name: string }> {
    const name = `p-${++count}`;
    await client.create(probes, { ...identity, metadata: { name } });
    return { path: `${probes}/${name}`, name };
  }

  /** One controller's status write: its own conditions from what it observed. */
  async function applyOwned(path: string, name: string, manager: string, updates: ConditionUpdate[], now: Date): Promise<Probe> {
    const observed = await client.get<Probe>(path);
    const conditions = ownedConditions(observed.status?.conditions, updates, observed.metadata?.generation, now);
    return applyStatus<Probe>(client, path, { ...identity, metadata: { name, namespace } }, { conditions }, manager, {
      signal: AbortSignal.timeout(10_000),
    });
  }

  it("lets two field managers each own one condition without removing the other's", async () => {
    const { path, name } = await probe();
    const t0 = new Date("2026-11-30T10:00:00Z");
    const t1 = new Date("2026-11-30T11:00:00Z");
    await applyOwned(path, name, "network-controller", [{ type: "NetworkReady", status: "False", reason: "Creating", message: "" }], t0);
    await applyOwned(path, name, "cluster-controller", [{ type: "ClusterReady", status: "False", reason: "Waiting", message: "" }], t0);
    // Same status, new reason: the time of the transition stays.
    await applyOwned(path, name, "network-controller", [{ type: "NetworkReady", status: "False", reason: "StillCreating", message: "vpc" }], t1);
    const flipped = await applyOwned(path, name, "cluster-controller", [{ type: "ClusterReady", status: "True", reason: "Ready", message: "" }], t1);

    const byType = Object.fromEntries((flipped.status?.conditions ?? []).map((c) => [c.type, c]));
    expect(Object.keys(byType).sort()).toEqual(["ClusterReady", "NetworkReady"]);
    expect(byType.NetworkReady).toMatchObject({ status: "False", reason: "StillCreating", message: "vpc", lastTransitionTime: conditionTime(t0) });
    expect(byType.ClusterReady).toMatchObject({ status: "True", reason: "Ready", lastTransitionTime: conditionTime(t1) });
    const managers = (flipped.metadata?.managedFields as { manager: string; subresource?: string }[]).filter((m) => m.subresource === "status");
    expect(managers.map((m) => m.manager).sort()).toEqual(["cluster-controller", "network-controller"]);
  });

  it("surfaces a field another manager owns as FieldConflictError and leaves it theirs", async () => {
    const { path, name } = await probe();
    const target = { ...identity, metadata: { name, namespace } };
    await applyStatus(client, path, target, { phase: "Provisioning" }, "cluster-controller");
    const error = await applyStatus(client, path, target, { phase: "Ready" }, "network-controller", { force: false }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FieldConflictError);
    expect((error as FieldConflictError).fields).toEqual([".status.phase"]);
    expect((error as FieldConflictError).message).toContain('conflict with "cluster-controller"');
    expect((await client.get<Probe>(path)).status?.phase).toBe("Provisioning");
  });

  it("refuses a status guarded by a resourceVersion that another write has overtaken, as StaleObjectError", async () => {
    const { path, name } = await probe();
    const target = { ...identity, metadata: { name, namespace } };
    const read = await client.get<Probe>(path);
    await applyStatus(client, path, target, { phase: "Provisioning" }, "cluster-controller");
    const error = await applyStatus(client, path, target, { phase: "Ready" }, "cluster-controller", { resourceVersion: read.metadata?.resourceVersion ?? "" }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(StaleObjectError);
    expect((await client.get<Probe>(path)).status?.phase).toBe("Provisioning");
    const fresh = await client.get<Probe>(path);
    await applyStatus(client, path, target, { phase: "Ready" }, "cluster-controller", { resourceVersion: fresh.metadata?.resourceVersion ?? "" });
    expect((await client.get<Probe>(path)).status?.phase).toBe("Ready");
  });
});
