import { describe, expect, it } from "@jest/globals";
import { TEST_PROJECT, useLoopback } from "./loopback.fixture.js";
import { createSubnet, createVpc, deleteSubnet, deleteVpc, getSubnet, getVpc } from "./vpc.js";

describe("VPC", () => {
  const env = useLoopback();

  const base = `/v1/${TEST_PROJECT}`;
  const vpc = { id: "v1", name: "kcp-net", cidr: "192.168.0.0/16", status: "CREATING" };
  const subnet = {
    id: "n1",
    name: "kcp-subnet",
    cidr: "192.168.0.0/24",
    gateway_ip: "192.168.0.1",
    vpc_id: "v1",
    neutron_network_id: "n1",
    neutron_subnet_id: "s1",
    status: "UNKNOWN",
  };
  const notFound = { status: 404, body: { code: "VPC.0202", message: "Query resource by id v1 fail." } };

  it("creates a VPC", async () => {
    env.loopback.reset(() => ({ body: { vpc } }));
    expect(await createVpc(env.client, { name: "kcp-net", cidr: "192.168.0.0/16", description: "tenant t" })).toEqual(vpc);
    expect(env.loopback.requests.map((r) => [r.method, r.path, JSON.parse(r.body) as unknown])).toEqual([
      ["POST", `${base}/vpcs`, { vpc: { name: "kcp-net", cidr: "192.168.0.0/16", description: "tenant t" } }],
    ]);
  });

  it("gets and deletes a VPC, tolerating 404", async () => {
    env.loopback.reset((r) => (r.path.endsWith("/v1") ? (r.method === "GET" ? { body: { vpc: { ...vpc, status: "OK" } } } : { status: 204 }) : notFound));
    expect(await getVpc(env.client, "v1")).toMatchObject({ status: "OK" });
    expect(await getVpc(env.client, "gone")).toBeUndefined();
    expect(await deleteVpc(env.client, "v1")).toBe(true);
    expect(await deleteVpc(env.client, "gone")).toBe(false);
    expect(env.loopback.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET ${base}/vpcs/v1`,
      `GET ${base}/vpcs/gone`,
      `DELETE ${base}/vpcs/v1`,
      `DELETE ${base}/vpcs/gone`,
    ]);
  });

  it("creates a subnet with OTC's field names, leaving unset options out", async () => {
    env.loopback.reset(() => ({ body: { subnet } }));
    expect(await createSubnet(env.client, { name: "kcp-subnet", cidr: "192.168.0.0/24", gatewayIp: "192.168.0.1", vpcId: "v1" })).toEqual(subnet);
    await createSubnet(env.client, {
      name: "kcp-subnet",
      cidr: "192.168.0.0/24",
      gatewayIp: "192.168.0.1",
      vpcId: "v1",
      availabilityZone: "eu-de-01",
      primaryDns: "100.125.4.25",
      secondaryDns: "100.125.129.199",
      dhcpEnable: true,
    });
    expect(env.loopback.requests.map((r) => [r.method, r.path, JSON.parse(r.body) as unknown])).toEqual([
      ["POST", `${base}/subnets`, { subnet: { name: "kcp-subnet", cidr: "192.168.0.0/24", gateway_ip: "192.168.0.1", vpc_id: "v1" } }],
      [
        "POST",
        `${base}/subnets`,
        {
          subnet: {
            name: "kcp-subnet",
            cidr: "192.168.0.0/24",
            gateway_ip: "192.168.0.1",
            vpc_id: "v1",
            availability_zone: "eu-de-01",
            primary_dns: "100.125.4.25",
            secondary_dns: "100.125.129.199",
            dhcp_enable: true,
          },
        },
      ],
    ]);
  });

  it("gets a subnet by its ID and deletes it under its VPC, tolerating 404", async () => {
    env.loopback.reset((r) => (r.path.endsWith("/n1") ? (r.method === "GET" ? { body: { subnet } } : { status: 204 }) : notFound));
    expect(await getSubnet(env.client, "n1")).toEqual(subnet);
    expect(await getSubnet(env.client, "gone")).toBeUndefined();
    expect(await deleteSubnet(env.client, "v1", "n1")).toBe(true);
    expect(await deleteSubnet(env.client, "v1", "gone")).toBe(false);
    expect(env.loopback.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET ${base}/subnets/n1`,
      `GET ${base}/subnets/gone`,
      `DELETE ${base}/vpcs/v1/subnets/n1`,
      `DELETE ${base}/vpcs/v1/subnets/gone`,
    ]);
  });

  it("surfaces a refused deletion (VPC with subnets) after the retries", async () => {
    env.loopback.reset(() => ({ status: 409, body: { code: "VPC.0106", message: "vpc has subnets" } }));
    const client = env.loopback.client({ retry: { attempts: 2 } });
    await expect(deleteVpc(client, "v1")).rejects.toMatchObject({ status: 409, code: "VPC.0106" });
    client.close();
    expect(env.loopback.requests).toHaveLength(2);
  });
});
