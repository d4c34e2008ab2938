import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { SUBNETS, VPCS } from "./cce-test.fixture.js";
import { at, DELAY_MS, OTHER_PROJECT, pluck, startTestSimulator, type TestSimulator, text } from "./test-client.fixture.js";

describe("VPCs", () => {
  let t: TestSimulator;
  beforeAll(async () => {
    t = await startTestSimulator();
  });
  afterAll(() => t.sim.close());

  const createVpc = (vpc: Record<string, unknown>) => t.call("POST", VPCS, { body: { vpc } });

  it("creates a VPC that is CREATING, then OK after the transition delay, and deletes it", async () => {
    const created = await createVpc({ name: "vpc-a", cidr: "192.168.0.0/16", description: "ci" });
    expect(created.status).toBe(200);
    const id = text(created.body, "vpc.id");
    expect(at(created.body, "vpc")).toMatchObject({ name: "vpc-a", cidr: "192.168.0.0/16", status: "CREATING", description: "ci" });
    t.advance(DELAY_MS);
    expect(at((await t.call("GET", `${VPCS}/${id}`)).body, "vpc.status")).toBe("OK");
    expect(pluck((await t.call("GET", VPCS)).body, "vpcs", "id")).toContain(id);
    expect((await t.call("GET", `/v1/${OTHER_PROJECT.id}/vpcs/${id}`)).status).toBe(404);

    expect((await t.call("DELETE", `${VPCS}/${id}`)).status).toBe(204);
    expect((await t.call("GET", `${VPCS}/${id}`)).status).toBe(404);
    expect((await t.call("DELETE", `${VPCS}/${id}`)).status).toBe(404);
  });

  it.each([
    ["a public range", "8.8.0.0/16"],
    ["a prefix longer than /24", "10.0.0.0/25"],
    ["host bits", "10.0.0.1/16"],
    ["no CIDR at all", "10.0.0.0"],
  ])("refuses %s as the CIDR", async (_what, cidr) => {
    const result = await createVpc({ name: "bad", cidr });
    expect(result.status).toBe(400);
    expect(result.body).toMatchObject({ error_code: "VPC.0400", error_msg: expect.stringContaining("vpc.cidr") as unknown });
  });

  it("refuses to delete a VPC that still has subnets (409), then deletes it once they are gone", async () => {
    const vpcId = text((await createVpc({ name: "vpc-b", cidr: "10.1.0.0/16" })).body, "vpc.id");
    const subnet = await t.call("POST", SUBNETS, { body: { subnet: { name: "s", cidr: "10.1.0.0/24", gateway_ip: "10.1.0.1", vpc_id: vpcId } } });
    const subnetId = text(subnet.body, "subnet.id");
    const refused = await t.call("DELETE", `${VPCS}/${vpcId}`);
    expect(refused.status).toBe(409);
    expect(at(refused.body, "error_msg")).toContain(subnetId);
    expect((await t.call("DELETE", `${VPCS}/${vpcId}/subnets/${subnetId}`)).status).toBe(204);
    expect((await t.call("DELETE", `${VPCS}/${vpcId}`)).status).toBe(204);
    expect(t.sim.liveObjects()).toMatchObject({ vpcs: 0 });
  });

  it("keeps VPCs in their project", async () => {
    await createVpc({ name: "vpc-c", cidr: "172.16.0.0/16" });
    expect(at((await t.call("GET", `/v1/${OTHER_PROJECT.id}/vpcs`)).body, "vpcs")).toEqual([]);
  });
});
