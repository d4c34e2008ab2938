import { describe, expect, it } from "@jest/globals";
import * as cce from "./cce.js";
import { getServer, listServersByName } from "./ecs.js";
import { bindPublicIp, createPublicIp, getPublicIp, listPublicIps, releasePublicIp, unbindPublicIp } from "./eip.js";
import * as v2 from "./elb-v2.js";
import * as v3 from "./elb-v3.js";
import { connectOtcClient, discoverProjectId, validateCredentials } from "./iam.js";
import * as entryPoint from "./index.js";
import { createKeypair, deleteKeypair, getKeypair } from "./keypairs.js";
import { TEST_CREDENTIALS, useLoopback } from "./loopback.fixture.js";
import type { OtcCallOptions, OtcClient } from "./otc-client.js";
import { collect, listByLinks, listByMarker, listByPageInfo, listByPageNumber, type ListRequest } from "./pagination.js";
import { createSubnet, createVpc, deleteSubnet, deleteVpc, getSubnet, getVpc } from "./vpc.js";

type Call = (client: OtcClient, options: OtcCallOptions) => Promise<unknown>;

const LIST: ListRequest = { service: "elb", path: "/items", itemsKey: "items", limit: 1 };
const monitor = { pool_id: "p", type: "TCP", delay: 5, timeout: 3, max_retries: 3 } as const;
const volume = { size: 50, volumetype: "SSD" };
const nodePool: cce.CreateCceNodePool = {
  metadata: { name: "np" },
  spec: { type: "vm", initialNodeCount: 1, nodeTemplate: { flavor: "f", az: "random", login: { sshKey: "k" }, rootVolume: volume, dataVolumes: [volume] } },
};
const cluster: cce.CreateCceCluster = {
  metadata: { name: "c" },
  spec: { type: "VirtualMachine", flavor: "cce.s1.small", hostNetwork: { vpc: "v", subnet: "n" }, containerNetwork: { mode: "vpc-router" } },
};

/** Every helper of the package that sends a request, called with `options` last. */
const HELPERS: readonly (readonly [string, Call])[] = [
  ["getServer", (c, o) => getServer(c, "s", o)],
  ["listServersByName", (c, o) => listServersByName(c, "n", o)],
  ["createPublicIp", (c, o) => createPublicIp(c, { bandwidth: { name: "b", size: 1 } }, o)],
  ["getPublicIp", (c, o) => getPublicIp(c, "e", o)],
  ["listPublicIps", (c, o) => listPublicIps(c, o)],
  ["bindPublicIp", (c, o) => bindPublicIp(c, "e", "port", o)],
  ["unbindPublicIp", (c, o) => unbindPublicIp(c, "e", o)],
  ["releasePublicIp", (c, o) => releasePublicIp(c, "e", o)],
  ["discoverProjectId", (c, o) => discoverProjectId(c, undefined, o)],
  ["validateCredentials", (c, o) => validateCredentials(c, o)],
  ["createVpc", (c, o) => createVpc(c, { name: "v", cidr: "192.168.0.0/16" }, o)],
  ["getVpc", (c, o) => getVpc(c, "v", o)],
  ["deleteVpc", (c, o) => deleteVpc(c, "v", o)],
  ["createSubnet", (c, o) => createSubnet(c, { name: "s", cidr: "192.168.0.0/24", gatewayIp: "192.168.0.1", vpcId: "v" }, o)],
  ["getSubnet", (c, o) => getSubnet(c, "s", o)],
  ["deleteSubnet", (c, o) => deleteSubnet(c, "v", "s", o)],
  ["createKeypair", (c, o) => createKeypair(c, { name: "k", publicKey: "ssh-ed25519 AAAA" }, o)],
  ["getKeypair", (c, o) => getKeypair(c, "k", o)],
  ["deleteKeypair", (c, o) => deleteKeypair(c, "k", o)],
  ["createCceCluster", (c, o) => cce.createCceCluster(c, cluster, o)],
  ["getCceCluster", (c, o) => cce.getCceCluster(c, "c", o)],
  ["deleteCceCluster", (c, o) => cce.deleteCceCluster(c, "c", {}, o)],
  ["bindCceMasterEip", (c, o) => cce.bindCceMasterEip(c, "c", "e", o)],
  ["unbindCceMasterEip", (c, o) => cce.unbindCceMasterEip(c, "c", "e", o)],
  ["getCceClusterCert", (c, o) => cce.getCceClusterCert(c, "c", 30, o)],
  ["createCceNodePool", (c, o) => cce.createCceNodePool(c, "c", nodePool, o)],
  ["getCceNodePool", (c, o) => cce.getCceNodePool(c, "c", "np", o)],
  ["updateCceNodePool", (c, o) => cce.updateCceNodePool(c, "c", "np", { initialNodeCount: 2 }, o)],
  ["deleteCceNodePool", (c, o) => cce.deleteCceNodePool(c, "c", "np", o)],
  ["listByPageNumber", (c, o) => collect(listByPageNumber(c, LIST, o))],
  ["listByLinks", (c, o) => collect(listByLinks(c, LIST, o))],
  ["listByPageInfo", (c, o) => collect(listByPageInfo(c, LIST, o))],
  ["listByMarker", (c, o) => collect(listByMarker(c, LIST, o))],
  ["createLoadBalancerV2", (c, o) => v2.createLoadBalancerV2(c, { vip_subnet_id: "s" }, o)],
  ["getLoadBalancerV2", (c, o) => v2.getLoadBalancerV2(c, "lb", o)],
  ["listLoadBalancersV2", (c, o) => v2.listLoadBalancersV2(c, {}, o)],
  ["deleteLoadBalancerV2", (c, o) => v2.deleteLoadBalancerV2(c, "lb", o)],
  ["createListenerV2", (c, o) => v2.createListenerV2(c, { loadbalancer_id: "lb", protocol: "TCP", protocol_port: 80 }, o)],
  ["deleteListenerV2", (c, o) => v2.deleteListenerV2(c, "l", o)],
  ["listListenersV2", (c, o) => v2.listListenersV2(c, "lb", o)],
  ["createPoolV2", (c, o) => v2.createPoolV2(c, { protocol: "TCP", lb_algorithm: "ROUND_ROBIN" }, o)],
  ["updatePoolV2", (c, o) => v2.updatePoolV2(c, "p", {}, o)],
  ["deletePoolV2", (c, o) => v2.deletePoolV2(c, "p", o)],
  ["listPoolsV2", (c, o) => v2.listPoolsV2(c, "lb", o)],
  ["createMemberV2", (c, o) => v2.createMemberV2(c, "p", { address: "10.0.0.1", protocol_port: 80, subnet_id: "s" }, o)],
  ["deleteMemberV2", (c, o) => v2.deleteMemberV2(c, "p", "m", o)],
  ["listMembersV2", (c, o) => v2.listMembersV2(c, "p", o)],
  ["createHealthMonitorV2", (c, o) => v2.createHealthMonitorV2(c, monitor, o)],
  ["updateHealthMonitorV2", (c, o) => v2.updateHealthMonitorV2(c, "h", {}, o)],
  ["getHealthMonitorV2", (c, o) => v2.getHealthMonitorV2(c, "h", o)],
  ["deleteHealthMonitorV2", (c, o) => v2.deleteHealthMonitorV2(c, "h", o)],
  ["createLoadBalancerV3", (c, o) => v3.createLoadBalancerV3(c, { availability_zone_list: ["z"] }, o)],
  ["getLoadBalancerV3", (c, o) => v3.getLoadBalancerV3(c, "lb", o)],
  ["listLoadBalancersV3", (c, o) => v3.listLoadBalancersV3(c, {}, o)],
  ["deleteLoadBalancerV3", (c, o) => v3.deleteLoadBalancerV3(c, "lb", o)],
  ["createListenerV3", (c, o) => v3.createListenerV3(c, { loadbalancer_id: "lb", protocol: "TCP", protocol_port: 80 }, o)],
  ["deleteListenerV3", (c, o) => v3.deleteListenerV3(c, "l", o)],
  ["listListenersV3", (c, o) => v3.listListenersV3(c, "lb", o)],
  ["createPoolV3", (c, o) => v3.createPoolV3(c, { protocol: "TCP", lb_algorithm: "ROUND_ROBIN" }, o)],
  ["updatePoolV3", (c, o) => v3.updatePoolV3(c, "p", {}, o)],
  ["deletePoolV3", (c, o) => v3.deletePoolV3(c, "p", o)],
  ["listPoolsV3", (c, o) => v3.listPoolsV3(c, "lb", o)],
  ["createMemberV3", (c, o) => v3.createMemberV3(c, "p", { address: "10.0.0.1", protocol_port: 80 }, o)],
  ["deleteMemberV3", (c, o) => v3.deleteMemberV3(c, "p", "m", o)],
  ["listMembersV3", (c, o) => v3.listMembersV3(c, "p", o)],
  ["createHealthMonitorV3", (c, o) => v3.createHealthMonitorV3(c, monitor, o)],
  ["updateHealthMonitorV3", (c, o) => v3.updateHealthMonitorV3(c, "h", {}, o)],
  ["getHealthMonitorV3", (c, o) => v3.getHealthMonitorV3(c, "h", o)],
  ["deleteHealthMonitorV3", (c, o) => v3.deleteHealthMonitorV3(c, "h", o)],
];

describe("cancellation", () => {
  const env = useLoopback();

  it.each(HELPERS)("%s passes its signal on: an aborted one sends nothing", async (_, call) => {
    env.loopback.reset(() => ({ body: {} }));
    const reason = new Error("stopped");
    await expect(call(env.client, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(env.loopback.requests).toHaveLength(0);
  });

  it("connectOtcClient passes its signal to the project discovery", async () => {
    env.loopback.reset(() => ({ body: { projects: [{ id: "p", name: "eu-de" }] } }));
    const reason = new Error("stopped");
    const options = { credentials: TEST_CREDENTIALS, region: "eu-de", endpoints: { iam: env.loopback.baseUrl } };
    await expect(connectOtcClient(options, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(env.loopback.requests).toHaveLength(0);
  });

  it("covers every request-sending function of the entry point", () => {
    const offline = new Set(["OtcApiError", "OtcConfigError", "OtcClient", "isRetryableStatus", "parseErrorBody", "canonicalRequest"]);
    for (const name of ["parseAuthorization", "sdkDate", "signature", "signRequest", "stringToSign", "resolveEndpoints", "serviceUrl", "collect"]) {
      offline.add(name);
    }
    for (const name of ["abortable", "endpointsFromAuthUrl", "isCredentialRejection", "isPasswordCredentials"]) {
      offline.add(name);
    }
    const functions = Object.entries(entryPoint).filter(([name, value]) => typeof value === "function" && !offline.has(name));
    expect(functions.map(([name]) => name).sort()).toEqual([...HELPERS.map(([name]) => name), "connectOtcClient"].sort());
  });

  it("a list aborted while paging asks for no further page", async () => {
    const controller = new AbortController();
    env.loopback.reset(() => {
      controller.abort();
      return { body: { items: [{ id: "a" }] } };
    });
    const error = await collect(listByMarker(env.client, LIST, { signal: controller.signal })).catch((e: unknown) => e);
    expect(error).toBe(controller.signal.reason);
    expect(env.loopback.requests).toHaveLength(1);
  });
});
