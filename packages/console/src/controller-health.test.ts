import { describe, expect, it } from "@jest/globals";
import { fingerprint } from "@edgeconnect/kcp-ts";
import { slotOf, type Lease } from "@edgeconnect/runtime";
import { controllerHealth } from "./controller-health.js";
import { parsePrometheusText } from "./prometheus-text.js";

const NOW = Date.parse("2026-01-01T12:00:00Z");
const TENANTS = ["tenant-a-cluster", "tenant-b-cluster", "tenant-c-cluster"];

function metrics(reconciles: number, errors: number, tenantCount: number): ReturnType<typeof parsePrometheusText>["samples"] {
  return parsePrometheusText(
    [
      `workqueue_depth{name="kubernetescluster",controller="kubernetescluster"} 2`,
      `controller_runtime_reconcile_total{controller="kubernetescluster",result="success"} ${reconciles}`,
      `controller_runtime_reconcile_errors_total{controller="kubernetescluster"} ${errors}`,
      `edgeconnect_tenant_queue_duration_seconds_count{controller="kubernetescluster",tenant="${fingerprint("tenant-a-cluster")}"} ${tenantCount}`,
      `edgeconnect_tenant_queue_duration_seconds_count{controller="kubernetescluster",tenant="other"} 1`,
      `edgeconnect_orphaned_infrastructure{kind="VpcV1"} 1`,
    ].join("\n"),
  ).samples;
}

function lease(name: string, holderIdentity: string, renewTime = "2026-01-01T11:59:55.000000Z", labels?: Record<string, string>): Lease {
  return { metadata: { name, ...(labels ? { labels } : {}) }, spec: { holderIdentity, renewTime, leaseDurationSeconds: 15 } };
}

describe("controllerHealth", () => {
  it("reads queue depth, reconcile totals and rates, per-tenant queue counts by workspace, and orphans", () => {
    const health = controllerHealth({
      scrapes: [
        { current: { url: "http://r0/metrics", at: NOW, samples: metrics(130, 6, 15) }, previous: { url: "http://r0/metrics", at: NOW - 10_000, samples: metrics(100, 4, 5) } },
        { current: { url: "http://r1/metrics", at: NOW, error: "connect ECONNREFUSED" } },
      ],
      leases: [lease("provider-controller", "replica-0")],
      leaseName: "provider-controller",
      tenants: TENANTS,
      now: NOW,
    });
    expect(health.scrapes[0]).toEqual({
      url: "http://r0/metrics",
      up: true,
      queueDepth: [{ controller: "kubernetescluster", depth: 2 }],
      reconciles: 130,
      errors: 6,
      reconcileRate: 3,
      errorRate: 0.2,
      tenantQueue: [
        { tenant: "tenant-a-cluster", queued: 15, rate: 1 },
        { tenant: "other", queued: 1, rate: 0 },
      ],
      orphaned: 1,
    });
    expect(health.scrapes[1]).toMatchObject({ up: false, error: "connect ECONNREFUSED" });
    expect(health).toMatchObject({ mode: "leader", replicas: [{ identity: "replica-0", slots: [], tenants: TENANTS }] });
  });

  it("maps shard slot Leases to replicas and the tenants their slots hold; an expired Lease is held by no replica", () => {
    const group = { "runtime.edgeconnect.eu/shard-group": "provider-controller" };
    const slots = 4;
    const leases = [
      lease("provider-controller-slot-0", "r0", undefined, group),
      lease("provider-controller-slot-1", "r1", undefined, group),
      lease("provider-controller-slot-2", "r0", undefined, group),
      lease("provider-controller-slot-3", "r1", "2026-01-01T11:00:00.000000Z", group),
      lease("provider-controller-member-abc", "r0", undefined, group),
    ];
    const health = controllerHealth({ scrapes: [], leases, leaseName: "provider-controller", tenants: TENANTS, now: NOW });
    expect(health.mode).toBe("sharded");
    const of = (slotSet: number[]) => TENANTS.filter((t) => slotSet.includes(slotOf(fingerprint(t), slots)));
    expect(health.replicas).toEqual([
      { identity: "r0", renewTime: "2026-01-01T11:59:55.000000Z", slots: [0, 2], tenants: of([0, 2]) },
      { identity: "r1", renewTime: "2026-01-01T11:59:55.000000Z", slots: [1], tenants: of([1]) },
      { identity: "(no replica)", renewTime: "2026-01-01T11:00:00.000000Z", slots: [3], tenants: of([3]) },
    ]);
  });

  it("says why leadership is unknown", () => {
    expect(controllerHealth({ scrapes: [], leases: { error: "kcp answered 403" }, leaseName: "p", tenants: [], now: NOW })).toEqual({ scrapes: [], mode: "unknown", replicas: [], leasesError: "kcp answered 403" });
    expect(controllerHealth({ scrapes: [], leases: [], leaseName: "p", tenants: [], now: NOW }).mode).toBe("unknown");
  });
});
