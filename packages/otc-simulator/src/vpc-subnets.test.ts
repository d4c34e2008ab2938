import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { at, OTHER_PROJECT, PROJECT, startTestSimulator, SUBNET, type TestSimulator } from "./test-client.fixture.js";

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
});
