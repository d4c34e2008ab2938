import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { objectKey } from "./object-key.js";
import { CLUSTER_INDEX, CLUSTER_NAMESPACE_INDEX, mutableCopy, Store, type DeepReadonly } from "./store.js";

interface Spec {
  cluster?: string;
  namespace?: string;
  name: string;
  rv?: string;
  labels?: Record<string, string>;
  owners?: string[];
}

function obj({ cluster, namespace, name, rv, labels, owners }: Spec): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name,
      namespace,
      resourceVersion: rv,
      labels,
      annotations: cluster === undefined ? undefined : { "kcp.io/cluster": cluster },
      ownerReferences: owners?.map((uid) => ({ apiVersion: "v1", kind: "Owner", name: uid, uid })),
    },
  };
}

const names = (objects: readonly DeepReadonly<KubeObject>[]): string[] => objects.map((o) => objectKey(o)).sort();

describe("Store", () => {
  it("gets, lists and counts", () => {
    const store = new Store();
    store.upsert(obj({ cluster: "a", namespace: "ns", name: "x", rv: "1" }));
    store.upsert(obj({ cluster: "a", name: "y", rv: "2" }));
    expect(store.size).toBe(2);
    expect(store.get("a|ns/x")?.metadata?.resourceVersion).toBe("1");
    expect(store.get("a|y")).toBeDefined();
    expect(store.get("b|ns/x")).toBeUndefined();
    expect(names(store.list())).toEqual(["a|ns/x", "a|y"]);
  });

  it("keeps the same namespace/name in two logical clusters apart", () => {
    const store = new Store();
    store.upsert(obj({ cluster: "a", namespace: "ns", name: "x", rv: "1" }));
    store.upsert(obj({ cluster: "b", namespace: "ns", name: "x", rv: "1" }));
    expect(store.size).toBe(2);
    store.remove(obj({ cluster: "a", namespace: "ns", name: "x" }));
    expect(names(store.list())).toEqual(["b|ns/x"]);
  });

  it("reports inserts and updates, and ignores an identical resourceVersion", () => {
    const store = new Store();
    const v1 = obj({ cluster: "a", namespace: "ns", name: "x", rv: "5" });
    const v2 = obj({ cluster: "a", namespace: "ns", name: "x", rv: "6" });
    expect(store.upsert(v1)).toEqual({ current: v1 });
    expect(store.upsert(v2)).toEqual({ old: v1, current: v2 });
    expect(store.upsert(obj({ cluster: "a", namespace: "ns", name: "x", rv: "6" }))).toBeUndefined();
    expect(store.get("a|ns/x")).toBe(v2);
  });

  it("compares resourceVersions only for equality, never by size", () => {
    const store = new Store();
    store.upsert(obj({ namespace: "ns", name: "x", rv: "10" }));
    // "9" < "10" numerically, "10" < "9" as strings: neither may matter.
    expect(store.upsert(obj({ namespace: "ns", name: "x", rv: "9" }))?.current.metadata?.resourceVersion).toBe("9");
    expect(store.upsert(obj({ namespace: "ns", name: "x", rv: "10" }))?.old?.metadata?.resourceVersion).toBe("9");
  });

  it("always replaces objects without a resourceVersion", () => {
    const store = new Store();
    store.upsert(obj({ namespace: "ns", name: "x" }));
    expect(store.upsert(obj({ namespace: "ns", name: "x" }))?.old).toBeDefined();
  });

  it("removes and returns the stored object", () => {
    const store = new Store();
    const stored = obj({ cluster: "a", namespace: "ns", name: "x", rv: "1" });
    store.upsert(stored);
    expect(store.remove(obj({ cluster: "a", namespace: "ns", name: "x", rv: "2" }))).toBe(stored);
    expect(store.remove(stored)).toBeUndefined();
    expect(store.size).toBe(0);
    expect(store.byIndex(CLUSTER_INDEX, "a")).toEqual([]);
  });

  it("indexes by cluster and cluster/namespace, consistently on every write", () => {
    const store = new Store();
    store.upsert(obj({ cluster: "a", namespace: "n1", name: "x", rv: "1" }));
    store.upsert(obj({ cluster: "a", namespace: "n2", name: "y", rv: "1" }));
    store.upsert(obj({ cluster: "b", namespace: "n1", name: "x", rv: "1" }));
    store.upsert(obj({ cluster: "a", name: "scoped", rv: "1" }));
    expect(names(store.byIndex(CLUSTER_INDEX, "a"))).toEqual(["a|n1/x", "a|n2/y", "a|scoped"]);
    expect(names(store.byIndex(CLUSTER_NAMESPACE_INDEX, "a/n1"))).toEqual(["a|n1/x"]);
    expect(names(store.byIndex(CLUSTER_NAMESPACE_INDEX, "b/n1"))).toEqual(["b|n1/x"]);
    expect(store.byIndex(CLUSTER_NAMESPACE_INDEX, "a/")).toEqual([]);
    store.remove(obj({ cluster: "a", namespace: "n1", name: "x" }));
    expect(names(store.byIndex(CLUSTER_INDEX, "a"))).toEqual(["a|n2/y", "a|scoped"]);
    expect(store.byIndex(CLUSTER_NAMESPACE_INDEX, "a/n1")).toEqual([]);
  });

  it("keeps custom indexes (by label, by owner uid) in step with updates", () => {
    const store = new Store({
      indexers: {
        app: (o) => (o.metadata?.labels?.app === undefined ? [] : [o.metadata.labels.app]),
        owner: (o) => (o.metadata?.ownerReferences ?? []).map((ref) => ref.uid),
      },
    });
    store.upsert(obj({ cluster: "a", namespace: "ns", name: "x", rv: "1", labels: { app: "web" }, owners: ["u1", "u2"] }));
    store.upsert(obj({ cluster: "a", namespace: "ns", name: "y", rv: "1", labels: { app: "web" }, owners: ["u2"] }));
    expect(names(store.byIndex("app", "web"))).toEqual(["a|ns/x", "a|ns/y"]);
    expect(names(store.byIndex("owner", "u2"))).toEqual(["a|ns/x", "a|ns/y"]);

    store.upsert(obj({ cluster: "a", namespace: "ns", name: "x", rv: "2", labels: { app: "db" }, owners: ["u3"] }));
    expect(names(store.byIndex("app", "web"))).toEqual(["a|ns/y"]);
    expect(names(store.byIndex("app", "db"))).toEqual(["a|ns/x"]);
    expect(store.byIndex("owner", "u1")).toEqual([]);
    expect(names(store.byIndex("owner", "u2"))).toEqual(["a|ns/y"]);
    expect(names(store.byIndex("owner", "u3"))).toEqual(["a|ns/x"]);
  });

  it("rejects unknown and reserved index names", () => {
    expect(() => new Store().byIndex("nope", "x")).toThrow('no index "nope"');
    expect(() => new Store({ indexers: { cluster: () => [] } })).toThrow("built in");
  });

  it("leaves the store untouched when an indexer throws", () => {
    const store = new Store({
      indexers: {
        picky: (o) => {
          if (o.metadata?.labels?.bad) throw new Error("bad object");
          return ["ok"];
        },
      },
    });
    const good = obj({ namespace: "ns", name: "x", rv: "1" });
    store.upsert(good);
    expect(() => store.upsert(obj({ namespace: "ns", name: "x", rv: "2", labels: { bad: "yes" } }))).toThrow("bad object");
    expect(store.get("|ns/x")).toBe(good);
    expect(store.byIndex("picky", "ok")).toEqual([good]);
  });

  it("removes everything not kept, from the indexes too, and returns what it removed", () => {
    const store = new Store({ indexers: { app: (o) => [o.metadata?.labels?.app ?? "none"] } });
    const kept = obj({ cluster: "a", namespace: "ns", name: "kept", rv: "1", labels: { app: "web" } });
    const gone = obj({ cluster: "b", namespace: "ns", name: "gone", rv: "1", labels: { app: "web" } });
    const alsoGone = obj({ cluster: "b", name: "also-gone", rv: "1" });
    for (const o of [kept, gone, alsoGone]) store.upsert(o);

    const removed = store.removeExcept(new Set(["a|ns/kept", "c|ns/never-stored"]));

    expect(names(removed)).toEqual(["b|also-gone", "b|ns/gone"]);
    expect(names(store.list())).toEqual(["a|ns/kept"]);
    expect(store.get("a|ns/kept")).toBe(kept);
    expect(names(store.byIndex("app", "web"))).toEqual(["a|ns/kept"]);
    expect(store.indexCount(CLUSTER_INDEX, "b")).toBe(0);
    expect(store.indexCount(CLUSTER_NAMESPACE_INDEX, "b/ns")).toBe(0);
    expect(store.removeExcept(new Set(["a|ns/kept"]))).toEqual([]);
  });

  it("counts the objects under an index value as byIndex would list them", () => {
    const store = new Store({ indexers: { owner: (o) => (o.metadata?.ownerReferences ?? []).map((ref) => ref.uid) } });
    store.upsert(obj({ cluster: "a", namespace: "ns", name: "x", rv: "1", owners: ["u1", "u2"] }));
    store.upsert(obj({ cluster: "a", namespace: "ns", name: "y", rv: "1", owners: ["u1"] }));
    store.upsert(obj({ cluster: "b", name: "z", rv: "1" }));
    const cases: [string, string][] = [
      ["owner", "u1"],
      ["owner", "u2"],
      ["owner", "u3"],
      [CLUSTER_INDEX, "a"],
      [CLUSTER_INDEX, "b"],
      [CLUSTER_NAMESPACE_INDEX, "a/ns"],
      [CLUSTER_NAMESPACE_INDEX, "b/"],
    ];
    expect(cases.map(([name, value]) => store.indexCount(name, value))).toEqual([2, 1, 0, 2, 1, 2, 0]);
    for (const [name, value] of cases) expect(store.indexCount(name, value)).toBe(store.byIndex(name, value).length);

    store.upsert(obj({ cluster: "a", namespace: "ns", name: "x", rv: "2", owners: ["u2"] }));
    store.remove(obj({ cluster: "a", namespace: "ns", name: "y" }));
    expect(store.indexCount("owner", "u1")).toBe(0);
    expect(store.indexCount("owner", "u2")).toBe(1);
    expect(() => store.indexCount("nope", "x")).toThrow('no index "nope"');
  });

  it("deep-freezes what enters, so that not even a cast lets a reader change it", () => {
    const store = new Store({ indexers: { app: (o) => [o.metadata?.labels?.app ?? ""] } });
    store.upsert(obj({ cluster: "a", namespace: "ns", name: "x", rv: "1", labels: { app: "web" }, owners: ["u1"] }));
    // Re-applying a stored (frozen) object is a no-op, not a throw.
    expect(store.upsert(store.get("a|ns/x") as KubeObject)).toBeUndefined();
    store.upsert(obj({ cluster: "a", namespace: "ns", name: "y", rv: "1", labels: { app: "web" } }));
    for (const key of ["a|ns/x", "a|ns/y"]) {
      // The cast a careless reconciler might write: ES modules are strict, so writes to frozen objects throw.
      const stored = store.get(key) as KubeObject;
      const metadata = stored.metadata ?? {};
      expect(() => {
        stored.spec = { replicas: 3 };
      }).toThrow(TypeError);
      expect(() => {
        (metadata.labels ?? {}).app = "db";
      }).toThrow(TypeError);
      expect(() => (metadata.finalizers = ["mine"])).toThrow(TypeError);
    }
    expect(() => (store.get("a|ns/x") as KubeObject).metadata?.ownerReferences?.push({ apiVersion: "v1", kind: "Owner", name: "u2", uid: "u2" })).toThrow(
      TypeError,
    );
    expect(names(store.byIndex("app", "web"))).toEqual(["a|ns/x", "a|ns/y"]);
    expect(store.get("a|ns/x")?.metadata?.labels?.app).toBe("web");
  });

  it("types what it hands out as read-only, and gives mutable deep copies", () => {
    const store = new Store();
    store.upsert(obj({ cluster: "a", namespace: "ns", name: "x", rv: "1", labels: { app: "web" }, owners: ["u1"] }));
    const stored = store.get("a|ns/x");
    const change = store.upsert(obj({ cluster: "a", namespace: "ns", name: "x", rv: "2", labels: { app: "web" }, owners: ["u1"] }));
    const labels = stored?.metadata?.labels;
    const owners = change?.current.metadata?.ownerReferences;
    if (stored === undefined || labels === undefined || owners === undefined) throw new Error("not stored");
    const mutations = [
      () => {
        // @ts-expect-error labels are read-only
        labels.app = "db";
      },
      () => {
        // @ts-expect-error so are arrays, in the objects a change reports too
        owners[0] = { apiVersion: "v1", kind: "Owner", name: "u2", uid: "u2" };
      },
    ];
    for (const mutate of mutations) expect(mutate).toThrow(TypeError);

    const copy = mutableCopy(stored);
    copy.metadata = { ...copy.metadata, labels: { app: "db" } };
    expect(copy.metadata.labels).toEqual({ app: "db" });
    expect(store.byIndex(CLUSTER_INDEX, "a")[0]?.metadata?.labels).toEqual({ app: "web" });
  });
});
