import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { SUBNETS, VPCS } from "./cce-test.fixture.js";
import { at, DELAY_MS, OTHER_PROJECT, PROJECT, startTestSimulator, SUBNET, type TestSimulator, text } from "./test-client.fixture.js";

describe("VPC subnets", () => {
  let t: TestSimulator;
  beforeAll(async () => {
    t = await startTestSimulator();
  });
  afterAll(() => t.sim.close());

  it("shows the Neutron ids of a VPC subnet", async () => {
    const one = await t.call("GET", `/v1/${PROJECT.id}/subnets/${SUBNET.vpcSubnetId}`);
    expect(one.status).toBe(200);
    expect(at(one.body, "subnet")).toMatchObject({
      id: SUBNET.vpcSubnetId,
      neutron_subnet_id: SUBNET.neutronSubnetId,
      neutron_network_id: SUBNET.neutronNetworkId,
      vpc_id: SUBNET.vpcId,
      cidr: SUBNET.cidr,
      gateway_ip: "192.168.0.1",
    });
    const list = await t.call("GET", `/v1/${PROJECT.id}/subnets?vpc_id=${SUBNET.vpcId}`);
    expect(at(list.body, "subnets")).toHaveLength(1);
  });

  it("lists a subnet only in its own project and answers 404 for other ids", async () => {
    expect(at((await t.call("GET", `/v1/${OTHER_PROJECT.id}/subnets`)).body, "subnets")).toEqual([]);
    expect((await t.call("GET", `/v1/${PROJECT.id}/subnets/${SUBNET.neutronSubnetId}`)).status).toBe(404);
  });

  describe("created through the API", () => {
    let vpcId: string;
    beforeAll(async () => {
      vpcId = text((await t.call("POST", VPCS, { body: { vpc: { name: "vpc", cidr: "10.0.0.0/16" } } })).body, "vpc.id");
    });

    const create = (subnet: Record<string, unknown>) =>
      t.call("POST", SUBNETS, { body: { subnet: { name: "subnet", vpc_id: vpcId, cidr: "10.0.1.0/24", gateway_ip: "10.0.1.1", ...subnet } } });

    it("has its network id as id, a separate Neutron subnet id, and is UNKNOWN, then ACTIVE", async () => {
      const created = await create({ availability_zone: "eu-de-02" });
      expect(created.status).toBe(200);
      const subnet = at(created.body, "subnet");
      expect(subnet).toMatchObject({
        name: "subnet",
        cidr: "10.0.1.0/24",
        gateway_ip: "10.0.1.1",
        vpc_id: vpcId,
        status: "UNKNOWN",
        primary_dns: "100.125.4.25",
        secondary_dns: "100.125.129.199",
        availability_zone: "eu-de-02",
      });
      const id = text(subnet, "id");
      expect(at(subnet, "neutron_network_id")).toBe(id);
      expect(text(subnet, "neutron_subnet_id")).not.toBe(id);
      t.advance(DELAY_MS);
      expect(at((await t.call("GET", `${SUBNETS}/${id}`)).body, "subnet.status")).toBe("ACTIVE");
      expect(at((await t.call("GET", `${SUBNETS}?vpc_id=${vpcId}`)).body, "subnets")).toHaveLength(1);

      expect((await t.call("DELETE", `${VPCS}/${SUBNET.vpcId}/subnets/${id}`)).status).toBe(404);
      expect((await t.call("DELETE", `${VPCS}/${vpcId}/subnets/${id}`)).status).toBe(204);
      expect((await t.call("GET", `${SUBNETS}/${id}`)).status).toBe(404);
    });

    it.each([
      ["a CIDR outside the VPC", { cidr: "10.1.0.0/24", gateway_ip: "10.1.0.1" }, "subnet.cidr"],
      ["a prefix longer than /28", { cidr: "10.0.1.0/29", gateway_ip: "10.0.1.1" }, "subnet.cidr"],
      ["a gateway outside the CIDR", { gateway_ip: "10.0.2.1" }, "subnet.gateway_ip"],
      ["the network address as gateway", { gateway_ip: "10.0.1.0" }, "subnet.gateway_ip"],
      ["an unknown VPC", { vpc_id: SUBNET.vpcId }, "subnet.vpc_id"],
      ["an unknown zone", { availability_zone: "eu-nl-01" }, "subnet.availability_zone"],
    ])("refuses %s with 400", async (_what, override, field) => {
      const result = await create(override);
      expect(result.status).toBe(400);
      expect(at(result.body, "error_msg")).toContain(field);
    });

    it("refuses a CIDR that overlaps another subnet of the VPC", async () => {
      expect((await create({ name: "first", cidr: "10.0.8.0/24", gateway_ip: "10.0.8.1" })).status).toBe(200);
      const clash = await create({ name: "second", cidr: "10.0.8.128/25", gateway_ip: "10.0.8.129" });
      expect(clash.status).toBe(400);
      expect(at(clash.body, "error_msg")).toMatch(/overlaps/);
    });
  });
});
