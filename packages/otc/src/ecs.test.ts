import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { getServer, listServersByName } from "./ecs.js";
import { OtcApiError } from "./errors.js";
import { Loopback, TEST_PROJECT } from "./loopback.fixture.js";
import type { OtcClient } from "./otc-client.js";

describe("ECS", () => {
  let loopback: Loopback;
  let client: OtcClient;

  beforeAll(async () => {
    loopback = await Loopback.start();
    client = loopback.client({ retry: { attempts: 2 } });
  });

  afterAll(async () => {
    client.close();
    await loopback.stop();
  });

  it("gets a server by ID", async () => {
    const server = { id: "s1", name: "node-1", status: "ACTIVE", "OS-EXT-AZ:availability_zone": "eu-de-01", flavor: { id: "c3.large.2" } };
    loopback.reset(() => ({ body: { server } }));
    expect(await getServer(client, "s1")).toEqual(server);
    expect(loopback.requests[0]?.path).toBe(`/v1/${TEST_PROJECT}/cloudservers/s1`);
  });

  it("answers undefined for 404 but throws for transient failures", async () => {
    loopback.reset(() => ({ status: 404, body: { error: { code: "Ecs.0114", message: "Instance could not be found" } } }));
    expect(await getServer(client, "gone")).toBeUndefined();
    loopback.reset(() => ({ status: 503 }));
    await expect(getServer(client, "s1")).rejects.toMatchObject({ status: 503, retryable: true });
    await expect(getServer(client, "s1")).rejects.toBeInstanceOf(OtcApiError);
  });

  it("lists servers by exact name although ECS matches fuzzily", async () => {
    loopback.reset(() => ({
      body: { count: 3, servers: [{ id: "1", name: "node.1" }, { id: "2", name: "nodeX1" }, { id: "3", name: "node.10" }] },
    }));
    expect((await listServersByName(client, "node.1")).map((s) => s.id)).toEqual(["1"]);
    expect(loopback.requests[0]?.path).toBe(`/v1/${TEST_PROJECT}/cloudservers/detail`);
    expect(loopback.requests[0]?.query.get("name")).toBe("node.1");
  });
});
