import { describe, expect, it } from "@jest/globals";
import { CLUSTER_API_STEPS, CONDITION, STEP_CONDITIONS } from "@edgeconnect/provisioning";
import type { RequestOptionsLite } from "@edgeconnect/kcp-ts";
import type { ClusterScope } from "@edgeconnect/runtime";
import { StatusReport } from "./status-report.js";
import { cluster, REQUEST, statusHarness as harness } from "./status-report.fixture.js";

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
    expect(status?.conditions?.map((c) => c.type)).toEqual([...STEP_CONDITIONS, "InfrastructureReachable", "Ready"]);
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

  it("writes the steps of the provider type it was made for", async () => {
    const kc = cluster();
    const { scope, written, recorder } = harness(kc);
    const report = new StatusReport(kc, recorder, CLUSTER_API_STEPS);
    report.pass(CONDITION.TemplateSetValid, "Resolved", "template set in-memory");
    await report.flush({ scope, signal: new AbortController().signal, request: REQUEST });
    expect(written()?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ["TemplateSetValid", "True"],
      ["ClusterAvailable", "Unknown"],
      ["KubeconfigReady", "Unknown"],
      ["InfrastructureReachable", "True"],
      ["Ready", "False"],
    ]);
    expect(written()?.phase).toBe("Provisioning");
  });

  it("guards each status write by the version it was computed from, and the next by the version the last one left", async () => {
    const kc = { ...cluster(), metadata: { ...cluster().metadata, resourceVersion: "41" } };
    const sent: (string | undefined)[] = [];
    const client = {
      request: async <T>(_method: string, _path: string, options?: RequestOptionsLite): Promise<T> => {
        const body = options?.body as { metadata: { resourceVersion?: string }; status: object };
        sent.push(body.metadata.resourceVersion);
        return { ...kc, metadata: { ...kc.metadata, resourceVersion: String(Number(body.metadata.resourceVersion) + 1) }, status: body.status } as T;
      },
    };
    const { recorder } = harness(kc);
    const scope = { ...harness(kc).scope, client } as unknown as ClusterScope;
    const report = new StatusReport(kc, recorder);
    allTrue(report);
    await report.flush({ scope, signal: new AbortController().signal, request: REQUEST });
    await report.flush({ scope, signal: new AbortController().signal, request: REQUEST });
    expect(sent).toEqual(["41", "42"]);
  });

  it("keeps what the steps said last while the infrastructure does not answer, and says so instead of a frozen Ready", async () => {
    const kc = cluster();
    const first = harness(kc);
    const ready = new StatusReport(kc, first.recorder);
    allTrue(ready);
    await ready.flush({ scope: first.scope, signal: new AbortController().signal, request: REQUEST });
    const before = first.written();

    const later = { ...cluster(before), metadata: { ...cluster().metadata, generation: 4 } };
    const second = harness(later);
    const report = new StatusReport(later, second.recorder);
    report.infrastructureUnreachable("the platform cannot reach the infrastructure of your cluster since 2026-12-02T06:00:00Z");
    await report.flush({ scope: second.scope, signal: new AbortController().signal, request: REQUEST });
    await second.recorder.flush();
    const status = second.written();
    for (const type of STEP_CONDITIONS) {
      expect(status?.conditions?.find((c) => c.type === type)).toEqual(before?.conditions?.find((c) => c.type === type));
    }
    expect(status?.conditions?.find((c) => c.type === "InfrastructureReachable")).toMatchObject({ status: "False", reason: "InfrastructureUnreachable", observedGeneration: 4 });
    expect(status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "Unknown", reason: "InfrastructureUnreachable", observedGeneration: 4 });
    expect(status?.phase).toBe("Ready");
    expect(second.events.map((e) => e.reason)).toEqual(["InfrastructureUnreachable"]);
  });

  it("keeps what the steps it did not reach said last when a pass stops on an error", async () => {
    const kc = cluster();
    const first = harness(kc);
    const ready = new StatusReport(kc, first.recorder);
    allTrue(ready);
    await ready.flush({ scope: first.scope, signal: new AbortController().signal, request: REQUEST });

    const again = cluster(first.written());
    const second = harness(again);
    const report = new StatusReport(again, second.recorder);
    report.pass(CONDITION.CredentialsValid, "Accepted", "accepted");
    report.interrupted("the infrastructure API did not answer in time");
    await report.flush({ scope: second.scope, signal: new AbortController().signal, request: REQUEST });
    const status = second.written();
    expect(status?.conditions?.find((c) => c.type === CONDITION.NodePoolReady)).toMatchObject({ status: "True" });
    expect(status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "Unknown", reason: "ReconcileError" });
    expect(status?.phase).toBe("Ready");
  });

  it("records what the pass did as Events even when its status cannot be written", async () => {
    const kc = cluster();
    const { recorder, events, scope } = harness(kc);
    const refusing = { ...scope, client: { request: async () => Promise.reject(new Error("409 the object has been modified")) } } as unknown as ClusterScope;
    const report = new StatusReport(kc, recorder);
    report.event("Warning", "FlavorSoldOut", "flavor c4.xlarge.2 is sold out in every zone; moving the node pool to s3.xlarge.4");
    await expect(report.flush({ scope: refusing, signal: new AbortController().signal, request: REQUEST })).rejects.toThrow(/409/);
    await recorder.flush();
    expect(events.map((e) => e.reason)).toEqual(["FlavorSoldOut"]);
  });
});
