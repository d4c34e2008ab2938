import { describe, expect, it } from "@jest/globals";
import { withinClusterQuota } from "./cluster-quota.js";

const cluster = (name: string, created: string, deleting = false) => ({
  metadata: { name, namespace: "default", creationTimestamp: created, ...(deleting ? { deletionTimestamp: "2026-12-02T00:00:00Z" } : {}) },
});

describe("withinClusterQuota", () => {
  const a = cluster("a", "2026-12-01T10:00:00Z");
  const b = cluster("b", "2026-12-01T11:00:00Z");
  const c = cluster("c", "2026-12-01T11:00:00Z");
  const d = cluster("d", "2026-12-01T12:00:00Z");

  it("admits the oldest clusters up to the bound, ties broken by name, whatever the list order", () => {
    const all = [d, c, b, a];
    expect([a, b, c, d].map((self) => withinClusterQuota(all, self, 2))).toEqual([true, true, false, false]);
    expect([a, b, c, d].map((self) => withinClusterQuota(all, self, 4))).toEqual([true, true, true, true]);
  });

  it("does not count clusters being deleted, so a deletion makes room", () => {
    const all = [cluster("a", "2026-12-01T10:00:00Z", true), b, c, d];
    expect(withinClusterQuota(all, c, 2)).toBe(true);
    expect(withinClusterQuota(all, d, 2)).toBe(false);
  });
});
