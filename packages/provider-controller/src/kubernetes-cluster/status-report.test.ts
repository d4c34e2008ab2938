import { describe, expect, it } from "@jest/globals";
import type { KubernetesCluster, KubernetesClusterStatus } from "@edgeconnect/api";
import type { KubeObject, RequestOptionsLite } from "@edgeconnect/kcp-ts";
import { CONDITION, STEP_CONDITIONS } from "@edgeconnect/provisioning";
import { EventRecorder, ManualClock, type ClusterScope, type EventClient } from "@edgeconnect/runtime";
import { StatusReport } from "./status-report.js";

type Cluster = KubernetesCluster & KubeObject;

const REQUEST = { cluster: "tenant-a", namespace: "default", name: "my-cluster" };

function cluster(status?: KubernetesClusterStatus): Cluster {
  return {
    apiVersion: "platform.edgeconnect.eu/v1alpha1",
    kind: "KubernetesCluster",
    metadata: { name: "my-cluster", namespace: "default", uid: "uid-1", generation: 3, annotations: { "kcp.io/cluster": "tenant-a" } },
    ...(status ? { status } : {}),
  };
}

/** A status subresource that answers with the object as written, and an Events sink. */
function harness(kc: Cluster): { scope: ClusterScope; written: () => KubernetesClusterStatus | undefined; recorder: EventRecorder; events: { reason?: string; type?: string }[] } {
  let status: KubernetesClusterStatus | undefined;
  const client = {
    request: async <T>(method: string, path: string, options?: RequestOptionsLite): Promise<T> => {
      expect(method).toBe("PATCH");
      expect(path).toBe("/apis/platform.edgeconnect.eu/v1alpha1/namespaces/default/kubernetesclusters/my-cluster/status");
      status = (options?.body as { status: KubernetesClusterStatus }).status;
      return { ...kc, status } as T;
    },
  };
  const events: { reason?: string; type?: string }[] = [];
  const eventClient: EventClient = {
    create: async <T>(_path: string, body: unknown) => {
      events.push(body as { reason?: string; type?: string });
      return body as T;
    },
    request: async <T>() => undefined as T,
  };
  const recorder = new EventRecorder({ client: eventClient, component: "test", clock: new ManualClock(), audience: "tenant" });
  const scope = { cluster: "tenant-a", client, lister: () => ({ get: () => undefined, list: () => [] }) } as unknown as ClusterScope;
  return { scope, written: () => status, recorder, events };
}

const allTrue = (report: StatusReport): void => {
  for (const type of STEP_CONDITIONS) report.pass(type, "Done", `${type} done`);
};

describe("StatusReport", () => {
  it("writes every step in order with the generation, a summary Ready and the phase", async () => {
    const kc = cluster();
    const { scope, written, recorder } = harness(kc);
    const report = new StatusReport(kc, recorder);
    report.pass(CONDITION.CredentialsValid, "Accepted", "accepted");
    report.fail(CONDITION.FlavorMatched, "NoMatchingFlavor", "no flavor offers 64 vCPUs");
    await report.flush({ scope, signal: new AbortController().signal, request: REQUEST });
    const status = written();
    expect(status?.conditions?.map((c) => c.type)).toEqual([...STEP_CONDITIONS, "Ready"]);
    expect(status?.conditions?.every((c) => c.observedGeneration === 3)).toBe(true);
    expect(status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "False", reason: "NoMatchingFlavor" });
    expect(status?.observedGeneration).toBe(3);
    expect(status?.phase).toBe("Failed");
  });

  it("says Ready, and records an Event only for what changed", async () => {
    const kc = cluster();
    const first = harness(kc);
    const report = new StatusReport(kc, first.recorder);
    allTrue(report);
    expect(report.ready).toBe(true);
    await report.flush({ scope: first.scope, signal: new AbortController().signal, request: REQUEST });
    await first.recorder.flush();
    expect(first.written()?.phase).toBe("Ready");
    expect(first.events.map((e) => e.reason)).toEqual(["ClusterReady"]);

    const again = cluster(first.written());
    const second = harness(again);
    const next = new StatusReport(again, second.recorder);
    allTrue(next);
    await next.flush({ scope: second.scope, signal: new AbortController().signal, request: REQUEST });
    await second.recorder.flush();
    expect(second.events).toEqual([]);
  });

  it("lets a refusal override the steps, and keeps the sold-out list bounded and without repeats", async () => {
    const kc = cluster();
    const { scope, written, recorder, events } = harness(kc);
    const report = new StatusReport(kc, recorder);
    allTrue(report);
    report.refuse("UnsupportedChange", "kubernetes.version cannot change from v1.31 to v1.32 in place; set it back to v1.31");
    for (let i = 0; i < 25; i++) report.addSoldOut(`s3.flavor-${i}`, "random");
    report.addSoldOut("s3.flavor-24", "random");
    await report.flush({ scope, signal: new AbortController().signal, request: REQUEST });
    await recorder.flush();
    expect(written()?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "False", reason: "UnsupportedChange" });
    expect(written()?.phase).toBe("Failed");
    expect(written()?.flavor?.soldOut).toHaveLength(20);
    expect(written()?.flavor?.soldOut?.at(-1)).toEqual({ flavor: "s3.flavor-24", zone: "random" });
    expect(events.map((e) => [e.type, e.reason])).toEqual([["Warning", "UnsupportedChange"]]);
  });

  it("keeps tenant messages free of infrastructure details", async () => {
    const kc = cluster();
    const { scope, written, recorder } = harness(kc);
    const report = new StatusReport(kc, recorder);
    report.fail(CONDITION.ControlPlaneReady, "ReconcileError", "PATCH https://infra.internal:6443/apis/cce/namespaces/kcp-0123456789ab/clusterv3s/x: HTTP 500");
    await report.flush({ scope, signal: new AbortController().signal, request: REQUEST });
    expect(JSON.stringify(written())).not.toMatch(/infra\.internal|6443|kcp-0123456789ab/);
  });
});
