import { describe, expect, it } from "@jest/globals";
import { useLoopback } from "./loopback.fixture.js";
import { collect, listByLinks, listByMarker, listByPageInfo, listByPageNumber } from "./pagination.js";

const ids = (...values: string[]) => values.map((id) => ({ id }));

describe("pagination", () => {
  const env = useLoopback();

  it("ECS: offset is a page number from 1; a short page ends the list", async () => {
    const pages: Record<string, { id: string }[]> = { "1": ids("a", "b"), "2": ids("c", "d"), "3": ids("e") };
    env.loopback.reset((request) => ({ body: { count: 5, servers: pages[request.query.get("offset") ?? ""] ?? [] } }));
    const items = await collect(listByPageNumber(env.client, { service: "ecs", path: "/v1/p/cloudservers/detail", itemsKey: "servers", limit: 2, query: { name: "n" } }));
    expect(items).toEqual(ids("a", "b", "c", "d", "e"));
    expect(env.loopback.requests.map((r) => r.url)).toEqual([1, 2, 3].map((page) => `/v1/p/cloudservers/detail?name=n&offset=${page}&limit=2`));
  });

  it("ELB v2: follows the next link's marker and stops without one", async () => {
    env.loopback.reset((request) => {
      const marker = request.query.get("marker");
      if (marker === null) {
        return { body: { loadbalancers: ids("a", "b"), loadbalancers_links: [{ rel: "next", href: "https://elb/v2.0/lbaas/loadbalancers?limit=2&marker=b" }] } };
      }
      if (marker === "b") {
        return { body: { loadbalancers: ids("c", "d"), loadbalancers_links: [{ rel: "previous", href: "x" }, { rel: "next", href: "https://elb/v2.0/lbaas/loadbalancers?limit=2&marker=d" }] } };
      }
      return { body: { loadbalancers: ids("e"), loadbalancers_links: [{ rel: "previous", href: "x" }] } };
    });
    const items = await collect(listByLinks(env.client, { service: "elb", path: "/v2.0/lbaas/loadbalancers", itemsKey: "loadbalancers", limit: 2 }));
    expect(items).toEqual(ids("a", "b", "c", "d", "e"));
    expect(env.loopback.requests.map((r) => r.query.get("marker"))).toEqual([null, "b", "d"]);
  });

  it("ELB v3: follows page_info.next_marker until a short page", async () => {
    env.loopback.reset((request) => {
      const marker = request.query.get("marker");
      if (marker === null) return { body: { pools: ids("a", "b"), page_info: { next_marker: "b", current_count: 2 } } };
      return { body: { pools: ids("c"), page_info: { previous_marker: "c", current_count: 1 } } };
    });
    const items = await collect(listByPageInfo(env.client, { service: "elb", path: "/v3/p/elb/pools", itemsKey: "pools", limit: 2, query: { loadbalancer_id: ["lb"] } }));
    expect(items).toEqual(ids("a", "b", "c"));
    expect(env.loopback.requests.map((r) => r.url)).toEqual(["/v3/p/elb/pools?loadbalancer_id=lb&limit=2", "/v3/p/elb/pools?loadbalancer_id=lb&marker=b&limit=2"]);
  });

  it("EIP: the marker is the last ID; an empty page after a full one ends the list", async () => {
    const pages: Record<string, { id: string }[]> = { "": ids("a", "b"), b: ids("c", "d"), d: [] };
    env.loopback.reset((request) => ({ body: { publicips: pages[request.query.get("marker") ?? ""] ?? [] } }));
    const items = await collect(listByMarker(env.client, { service: "vpc", path: "/v1/p/publicips", itemsKey: "publicips", limit: 2 }));
    expect(items).toEqual(ids("a", "b", "c", "d"));
    expect(env.loopback.requests.map((r) => r.query.get("marker"))).toEqual([null, "b", "d"]);
  });

  it("stops when a server repeats a marker", async () => {
    env.loopback.reset(() => ({ body: { members: ids("a", "b"), page_info: { next_marker: "same" } } }));
    const items = await collect(listByPageInfo(env.client, { service: "elb", path: "/m", itemsKey: "members", limit: 2 }));
    expect(items).toHaveLength(4);
    expect(env.loopback.requests).toHaveLength(2);
  });

  it("fetches lazily: breaking out early requests no further pages", async () => {
    env.loopback.reset(() => ({ body: { servers: ids("a", "b") } }));
    for await (const item of listByPageNumber<{ id: string }>(env.client, { service: "ecs", path: "/s", itemsKey: "servers", limit: 2 })) {
      if (item.id === "a") break;
    }
    expect(env.loopback.requests).toHaveLength(1);
  });
});
