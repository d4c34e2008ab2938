import { afterEach, describe, expect, it } from "@jest/globals";
import { get } from "node:http";
import { KcpLoadSimulator, type SimulatedResource } from "./index.js";

const WIDGETS: SimulatedResource = {
  group: "example.dev",
  version: "v1",
  plural: "widgets",
  kind: "Widget",
  namespaced: true,
  status: true,
  virtualWorkspace: {},
};
const SECRETS = { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true, status: false } as const;
const LEASES = { group: "coordination.k8s.io", version: "v1", plural: "leases", kind: "Lease", namespaced: true, status: false } as const;

interface Obj {
  metadata: { name: string; namespace?: string; resourceVersion: string; generation?: number; uid: string; annotations?: Record<string, string>; finalizers?: string[]; deletionTimestamp?: string };
  spec?: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string }[]; [key: string]: unknown };
  data?: Record<string, string>;
}
interface List {
  metadata: { resourceVersion: string; continue?: string };
  items: Obj[];
}

let sim: KcpLoadSimulator;
afterEach(async () => sim.close());

async function start(options: { history?: number; bookmarkMs?: number } = {}): Promise<KcpLoadSimulator> {
  sim = await KcpLoadSimulator.start({
    exportName: "example.dev",
    resources: [WIDGETS],
    secretsClaim: { labelSelector: "visible=true" },
    ...(options.history === undefined ? {} : { historyPerResource: options.history }),
    ...(options.bookmarkMs === undefined ? {} : { bookmarkIntervalMs: options.bookmarkMs }),
  });
  return sim;
}

async function call<T>(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<{ status: number; body: T }> {
  const response = await fetch(`${sim.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${sim.token}`, ...(body === undefined ? {} : { "Content-Type": contentType }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** Reads watch events until `count` arrived, then ends the watch. */
function watchEvents(path: string, count: number): Promise<{ type: string; object: Obj & { code?: number } }[]> {
  return new Promise((resolve, reject) => {
    const events: { type: string; object: Obj & { code?: number } }[] = [];
    const request = get(`${sim.url}${path}`, { headers: { Authorization: `Bearer ${sim.token}` } }, (response) => {
      let buffer = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        buffer += chunk;
        let newline: number;
        while ((newline = buffer.indexOf("\n")) !== -1 && events.length < count) {
          events.push(JSON.parse(buffer.slice(0, newline)) as { type: string; object: Obj });
          buffer = buffer.slice(newline + 1);
        }
        if (events.length >= count) {
          request.destroy();
          resolve(events);
        }
      });
      response.on("end", () => resolve(events));
    });
    request.on("error", (err) => (events.length >= count ? undefined : reject(err)));
  });
}

const widget = (name: string, spec: Record<string, unknown> = { size: 1 }) => ({ apiVersion: "example.dev/v1", kind: "Widget", metadata: { name, namespace: "default" }, spec });
const vw = () => `/services/apiexport/root:provider/example.dev`;

describe("KcpLoadSimulator", () => {
  it("names the virtual workspace in the endpoint slice and serves only bound clusters through it, with kcp's cluster annotation", async () => {
    await start();
    const slice = await call<{ status: { endpoints: { url: string }[] } }>("GET", "/clusters/root:provider/apis/apis.kcp.io/v1alpha1/apiexportendpointslices/example.dev");
    expect(slice.body.status.endpoints).toEqual([{ url: sim.virtualWorkspaceUrl }]);
    sim.put("t1", WIDGETS, widget("a"));
    sim.put("t2", WIDGETS, widget("b"));
    sim.bind("t1");
    const list = await call<List>("GET", `${vw()}/clusters/*/apis/example.dev/v1/widgets`);
    expect(list.body.items.map((o) => [o.metadata.annotations?.["kcp.io/cluster"], o.metadata.name])).toEqual([["t1", "a"]]);
    expect((await call("GET", `${vw()}/clusters/t2/apis/example.dev/v1/namespaces/default/widgets/b`)).status).toBe(403);
    const bindings = await call<List>("GET", `${vw()}/clusters/*/apis/apis.kcp.io/v1alpha2/apibindings`);
    expect(bindings.body.items.map((o) => o.metadata.annotations?.["kcp.io/cluster"])).toEqual(["t1"]);
    sim.unbind("t1");
    expect((await call<List>("GET", `${vw()}/clusters/*/apis/example.dev/v1/widgets`)).body.items).toEqual([]);
  });

  it("pages a list from one snapshot: objects written between pages do not show, and an unknown continue token is 410", async () => {
    await start();
    sim.bind("t1");
    for (let i = 0; i < 5; i++) sim.put("t1", WIDGETS, widget(`w${i}`));
    const first = await call<List>("GET", `${vw()}/clusters/*/apis/example.dev/v1/widgets?limit=2`);
    expect(first.body.items.map((o) => o.metadata.name)).toEqual(["w0", "w1"]);
    sim.put("t1", WIDGETS, widget("w9"));
    const names = [...first.body.items.map((o) => o.metadata.name)];
    let token = first.body.metadata.continue;
    while (token !== undefined) {
      const page = await call<List>("GET", `${vw()}/clusters/*/apis/example.dev/v1/widgets?limit=2&continue=${token}`);
      expect(page.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
      names.push(...page.body.items.map((o) => o.metadata.name));
      token = page.body.metadata.continue;
    }
    expect(names).toEqual(["w0", "w1", "w2", "w3", "w4"]);
    const expired = await call<{ code: number; reason: string }>("GET", `${vw()}/clusters/*/apis/example.dev/v1/widgets?limit=2&continue=${Buffer.from("nope:2").toString("base64url")}`);
    expect([expired.status, expired.body.reason]).toEqual([410, "Expired"]);
  });

  it("resumes a watch after a resourceVersion, and answers a version older than its history with a 410 ERROR event", async () => {
    await start({ history: 3 });
    sim.bind("t1");
    const list = await call<List>("GET", `${vw()}/clusters/*/apis/example.dev/v1/widgets`);
    sim.put("t1", WIDGETS, widget("a"));
    sim.put("t1", WIDGETS, widget("a", { size: 2 }));
    const events = await watchEvents(`${vw()}/clusters/*/apis/example.dev/v1/widgets?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`, 2);
    expect(events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.generation])).toEqual([
      ["ADDED", "a", 1],
      ["MODIFIED", "a", 2],
    ]);
    for (let i = 0; i < 4; i++) sim.put("t1", WIDGETS, widget("a", { size: 3 + i }));
    const expired = await watchEvents(`${vw()}/clusters/*/apis/example.dev/v1/widgets?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`, 1);
    expect([expired[0]?.type, expired[0]?.object.code]).toEqual(["ERROR", 410]);
  });

  it("sends live events to every matching watch and bookmarks to those that asked", async () => {
    await start({ bookmarkMs: 50 });
    sim.bind("t1");
    const rv = (await call<List>("GET", `${vw()}/clusters/*/apis/example.dev/v1/widgets`)).body.metadata.resourceVersion;
    const watching = watchEvents(`${vw()}/clusters/*/apis/example.dev/v1/widgets?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`, 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    sim.put("t1", WIDGETS, widget("live"));
    const events = await watching;
    expect(events.map((e) => e.type)).toEqual(["ADDED", "BOOKMARK"]);
    expect(Number(events[1]?.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(events[0]?.object.metadata.resourceVersion));
  });

  it("shows claimed Secrets through the virtual workspace by the claim's selector only, and stores stringData as data", async () => {
    await start();
    sim.bind("t1");
    sim.put("t1", SECRETS, { metadata: { name: "claimed", namespace: "default", labels: { visible: "true" } }, stringData: { key: "value" } });
    sim.put("t1", SECRETS, { metadata: { name: "private", namespace: "default" }, stringData: { key: "value" } });
    const list = await call<List>("GET", `${vw()}/clusters/*/api/v1/secrets?labelSelector=visible%3Dtrue`);
    expect(list.body.items.map((o) => [o.metadata.name, o.data])).toEqual([["claimed", { key: Buffer.from("value").toString("base64") }]]);
    expect((await call("GET", `${vw()}/clusters/t1/api/v1/namespaces/default/secrets/private`)).status).toBe(404);
    expect((await call("GET", `/clusters/t1/api/v1/namespaces/default/secrets/private`)).status).toBe(200);
    const written = await call<Obj & { metadata: { labels?: Record<string, string> } }>("POST", `${vw()}/clusters/t1/api/v1/namespaces/default/secrets`, { metadata: { name: "ours", labels: { visible: "true" } } });
    expect(Object.keys(written.body.metadata.labels ?? {}).map((key) => key.replace(/\/.*$/, "/"))).toEqual(["visible", "claimed.internal.apis.kcp.io/"]);
  });

  it("applies status as a field manager: what it applied before and leaves out now is removed, others' conditions stay", async () => {
    await start();
    sim.bind("t1");
    sim.put("t1", WIDGETS, widget("a"));
    const path = `${vw()}/clusters/t1/apis/example.dev/v1/namespaces/default/widgets/a/status`;
    const apply = (manager: string, status: object) =>
      call<Obj>("PATCH", `${path}?fieldManager=${manager}&force=true`, { apiVersion: "example.dev/v1", kind: "Widget", metadata: { name: "a", namespace: "default" }, status }, "application/apply-patch+yaml");
    await apply("other", { conditions: [{ type: "Theirs", status: "True" }] });
    await apply("ctrl", { phase: "Creating", observedGeneration: 1, conditions: [{ type: "Ready", status: "False" }, { type: "Synced", status: "True" }] });
    const second = await apply("ctrl", { observedGeneration: 1, conditions: [{ type: "Ready", status: "True" }] });
    expect(second.status).toBe(200);
    expect(second.body.status).toEqual({ observedGeneration: 1, conditions: [{ type: "Theirs", status: "True" }, { type: "Ready", status: "True" }] });
    expect(second.body.metadata.generation).toBe(1);
    const stale = await call("PATCH", `${path}?fieldManager=ctrl`, { metadata: { name: "a", namespace: "default", resourceVersion: "1" }, status: {} }, "application/apply-patch+yaml");
    expect(stale.status).toBe(409);
  });

  it("guards JSON patches by their test op, keeps an object with finalizers until the last goes, and checks delete preconditions", async () => {
    await start();
    sim.bind("t1");
    const created = sim.put("t1", WIDGETS, widget("a")) as unknown as Obj;
    const path = `${vw()}/clusters/t1/apis/example.dev/v1/namespaces/default/widgets/a`;
    const guarded = (rv: string, ops: object[]) => call<Obj>("PATCH", path, [{ op: "test", path: "/metadata/resourceVersion", value: rv }, ...ops], "application/json-patch+json");
    expect((await guarded("1", [{ op: "add", path: "/metadata/finalizers", value: ["f"] }])).status).toBe(422);
    const withFinalizer = await guarded(created.metadata.resourceVersion, [{ op: "add", path: "/metadata/finalizers", value: ["f"] }]);
    expect(withFinalizer.body.metadata.finalizers).toEqual(["f"]);
    expect((await call("DELETE", path, { preconditions: { uid: "someone-else" } })).status).toBe(409);
    const deleting = await call<Obj>("DELETE", path, { preconditions: { uid: created.metadata.uid } });
    expect(deleting.body.metadata.deletionTimestamp).toBeDefined();
    await guarded(deleting.body.metadata.resourceVersion, [{ op: "remove", path: "/metadata/finalizers/0" }]);
    expect(sim.get("t1", WIDGETS, "default", "a")).toBeUndefined();
  });

  it("serves Leases in the provider workspace with create conflicts and guarded updates", async () => {
    await start();
    const leases = "/clusters/root:provider/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
    const lease = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "ctrl", namespace: "kube-system" }, spec: { holderIdentity: "a" } };
    const created = await call<Obj>("POST", leases, lease);
    expect(created.status).toBe(201);
    expect((await call("POST", leases, lease)).status).toBe(409);
    const renewed = await call<Obj>("PUT", `${leases}/ctrl`, { ...created.body, spec: { holderIdentity: "a", renewTime: "now" } });
    expect(renewed.status).toBe(200);
    expect((await call("PUT", `${leases}/ctrl`, { ...created.body, spec: { holderIdentity: "b" } })).status).toBe(409);
    expect(sim.get("root:provider", LEASES, "kube-system", "ctrl")?.spec).toEqual({ holderIdentity: "a", renewTime: "now" });
  });

  it("refuses requests without its token and counts what clients asked", async () => {
    await start();
    const response = await fetch(`${sim.url}/clusters/root:provider/api/v1/namespaces/default/secrets`);
    expect(response.status).toBe(401);
    sim.bind("t1");
    await call("GET", `${vw()}/clusters/*/apis/example.dev/v1/widgets`);
    expect([...sim.requests()]).toEqual([["list virtual-workspace * example.dev/v1/widgets 200", 1]]);
  });
});
