/** The chaos run's judgements (e2e/chaos/chaos-checks.ts), on made-up records: no servers. */
import { describe, expect, it } from "@jest/globals";
import type { RequestLogEntry } from "@edgeconnect/otc-simulator";
import { clusterCreates, cloudObjectCount, crossTenantRequests, doubleCreates, ReadyHistory } from "../chaos/chaos-checks.js";
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
    for (const ready of [true, false, true]) history.observe("flapped", ready);
    history.observe("never", false);
    expect(history.violations(["flapped", "never"])).toEqual(["flapped: became Ready 2 time(s), lost Ready 1 time(s)", "never: became Ready 0 time(s), lost Ready 0 time(s)"]);
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
