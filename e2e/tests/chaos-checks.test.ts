/** The chaos run's judgements (e2e/chaos/chaos-checks.ts), on made-up records: no servers. */
import { describe, expect, it } from "@jest/globals";
import type { RequestLogEntry } from "@edgeconnect/otc-simulator";
import {
  answeredFaults,
  clusterCreates,
  cloudObjectCount,
  crossTenantRequests,
  doubleCreates,
  readyForGeneration,
  ReadyHistory,
  tornDownByWay,
} from "../chaos/chaos-checks.js";
import { between, seededRandom } from "../chaos/random.js";

describe("ReadyHistory", () => {
  it("passes a cluster that became Ready once and stayed", () => {
    const history = new ReadyHistory();
    for (const ready of [false, undefined, false, true, undefined, true]) history.observe("a", ready);
    expect(history.isReady("a")).toBe(true);
    expect(history.violations(["a"])).toEqual([]);
  });

  it("reports a cluster that fell back from Ready, one that never got there, and one seen Ready twice", () => {
    const history = new ReadyHistory();
    for (const [ready, state] of [[true, "Ready / Ready"], [false, "Provisioning / Issuing"], [true, "Ready / Ready"]] as const) history.observe("flapped", ready, state);
    history.observe("never", false);
    expect(history.violations(["flapped", "never"])).toEqual([
      "flapped: became Ready 2 time(s), lost Ready 1 time(s) (first as Provisioning / Issuing)",
      "never: became Ready 0 time(s), lost Ready 0 time(s)",
    ]);
  });
});

const A = { user: "OTC-A/tenant-a", project: "pa" };
const B = { user: "OTC-B/tenant-b", project: "pb" };
const entry = (path: string, status: number, caller?: RequestLogEntry["caller"], method = "GET"): RequestLogEntry => ({ method, path, query: "", status, ...(caller === undefined ? {} : { caller }) });

describe("crossTenantRequests", () => {
  it("finds a tenant's token issued for, or used in, another tenant's project", () => {
    const log = [
      entry("/v3/auth/tokens", 201, { user: A.user, project: "pa" }, "POST"),
      entry("/v3/auth/tokens", 201, { user: A.user, project: "pb" }, "POST"),
      entry("/api/v3/projects/pb/clusters", 403, { user: A.user, project: "pa" }),
      entry("/api/v3/projects/pb/clusters", 200, { user: B.user, project: "pb" }),
      entry("/v3/auth/tokens", 201, { user: "platform/admin", project: "pb" }, "POST"),
      entry("/v3/projects", 401),
    ];
    expect(crossTenantRequests(log, [A, B]).map((found) => found.caller)).toEqual([
      { user: A.user, project: "pb" },
      { user: A.user, project: "pa" },
    ]);
  });
});

describe("clusterCreates and doubleCreates", () => {
  it("counts CCE clusters created per project, not other calls or refused creates", () => {
    const log = [
      entry("/api/v3/projects/pa/clusters", 201, undefined, "POST"),
      entry("/api/v3/projects/pb/clusters", 201, undefined, "POST"),
      entry("/api/v3/projects/pb/clusters", 201, undefined, "POST"),
      entry("/api/v3/projects/pb/clusters", 500, undefined, "POST"),
      entry("/api/v3/projects/pa/clusters/c1/nodepools", 201, undefined, "POST"),
      entry("/api/v3/projects/pa/clusters", 200),
    ];
    const creates = clusterCreates(log);
    expect(Object.fromEntries(creates)).toEqual({ pa: 1, pb: 2 });
    expect(doubleCreates(creates, ["pa", "pb", "pc"])).toEqual(["pb: 2 CCE clusters created", "pc: 0 CCE clusters created"]);
  });
});

describe("cloudObjectCount", () => {
  it("sums every kind", () => {
    expect(cloudObjectCount({ vpcs: 1, subnets: 0, eips: 2, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 3 })).toBe(6);
  });
});

describe("answeredFaults", () => {
  const CONTROLLER = "provider-controller";
  const answered = (status: number, agent: string | undefined, fault?: "before" | "after"): RequestLogEntry => ({
    ...entry("/v3/auth/tokens", status, undefined, "POST"),
    ...(agent === undefined ? {} : { agent }),
    ...(fault === undefined ? {} : { fault }),
  });

  it("counts the faults answered to the controller by kind, not other clients' nor the cloud's own errors", () => {
    const log = [
      answered(500, CONTROLLER, "before"),
      answered(429, CONTROLLER, "before"),
      answered(429, CONTROLLER, "before"),
      answered(500, CONTROLLER, "after"),
      // The Crossplane simulator's call, answered with an injected fault: not the controller's.
      answered(500, "Go-http-client/1.1", "before"),
      // The cloud's own 500 and 429 to the controller: not injected.
      answered(500, CONTROLLER),
      answered(429, CONTROLLER),
      answered(201, CONTROLLER),
      answered(500, undefined, "before"),
    ];
    expect(answeredFaults(log, CONTROLLER)).toEqual({ errors: 1, throttled: 2, lost: 1 });
  });

  it("counts nothing when faults were armed but none was answered", () => {
    expect(answeredFaults([answered(201, CONTROLLER), answered(200, CONTROLLER)], CONTROLLER)).toEqual({ errors: 0, throttled: 0, lost: 0 });
  });
});

describe("tornDownByWay", () => {
  const WAYS = ["delete the cluster", "unbind the export"];
  const record = (way: string, project: string, done = true) => ({ way, done, project, namespace: `kcp-${project}` });

  it("counts a tenant for its way only when its calls went through, its project is empty and its namespace gone", () => {
    const records = [
      record("delete the cluster", "p1"),
      record("delete the cluster", "p2"),
      record("delete the cluster", "p3", false),
      record("unbind the export", "p4"),
      record("unbind the export", "p5"),
    ];
    const cloud: Record<string, number> = { p2: 1 };
    expect(tornDownByWay(records, WAYS, (project) => cloud[project] ?? 0, new Set(["kcp-p5"]))).toEqual({ "delete the cluster": 1, "unbind the export": 1 });
  });

  it("shows a way that tore nothing down as 0", () => {
    expect(tornDownByWay([record("delete the cluster", "p1")], WAYS, () => 0, new Set())).toEqual({ "delete the cluster": 1, "unbind the export": 0 });
  });
});

describe("readyForGeneration", () => {
  const cluster = (generation: number | undefined, ready: string, observedGeneration?: number) => ({
    metadata: generation === undefined ? {} : { generation },
    status: { conditions: [{ type: "Ready", status: ready, ...(observedGeneration === undefined ? {} : { observedGeneration }) }] },
  });

  it("is true only for Ready True written for the current generation", () => {
    expect(readyForGeneration(cluster(3, "True", 3))).toBe(true);
    expect(readyForGeneration(cluster(3, "True", 2))).toBe(false);
    expect(readyForGeneration(cluster(3, "False", 3))).toBe(false);
    expect(readyForGeneration(cluster(3, "True"))).toBe(false);
    expect(readyForGeneration(cluster(undefined, "True", 1))).toBe(false);
    expect(readyForGeneration(undefined)).toBe(false);
  });
});

describe("seededRandom", () => {
  it("repeats for a seed and stays in range", () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const first = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(first);
    expect(Array.from({ length: 5 }, () => seededRandom(8)())).not.toEqual(first);
    const draw = seededRandom(1);
    for (let i = 0; i < 1000; i++) {
      const value = between(draw, 5, 20);
      expect(value).toBeGreaterThanOrEqual(5);
      expect(value).toBeLessThan(20);
    }
  });
});
