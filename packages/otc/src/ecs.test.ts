import { describe, expect, it } from "@jest/globals";
import { getServer, listServersByName } from "./ecs.js";
import { OtcApiError } from "./errors.js";
import { TEST_PROJECT, useLoopback } from "./loopback.fixture.js";

describe("ECS", () => {
  const env = useLoopback({ retry: { attempts: 2 } });

  it("gets a server by ID", async () => {
    const server = { id: "s1", name: "node-1", status: "ACTIVE", "OS-EXT-AZ:availability_zone": "eu-de-01", flavor: { id: "c3.large.2" } };
    env.loopback.reset(() => ({ body: { server } }));
    expect(await getServer(env.client, "s1")).toEqual(server);
    expect(env.loopback.requests[0]?.path).toBe(`/v1/${TEST_PROJECT}/cloudservers/s1`);
  });

  it("answers undefined for 404 but throws for transient failures", async () => {
    env.loopback.reset(() => ({ status: 404, body: { error: { code: "Ecs.0114", message: "Instance could not be found" } } }));
    expect(await getServer(env.client, "gone")).toBeUndefined();
    env.loopback.reset(() => ({ status: 503 }));
    await expect(getServer(env.client, "s1")).rejects.toMatchObject({ status: 503, retryable: true });
    await expect(getServer(env.client, "s1")).rejects.toBeInstanceOf(OtcApiError);
  });

  it("lists servers by exact name although ECS matches fuzzily", async () => {
    env.loopback.reset(() => ({
      body: { count: 3, servers: [{ id: "1", name: "node.1" }, { id: "2", name: "nodeX1" }, { id: "3", name: "node.10" }] },
    }));
    expect((await listServersByName(env.client, "node.1")).map((s) => s.id)).toEqual(["1"]);
    expect(env.loopback.requests[0]?.path).toBe(`/v1/${TEST_PROJECT}/cloudservers/detail`);
    expect(env.loopback.requests[0]?.query.get("name")).toBe("node.1");
  });
});
