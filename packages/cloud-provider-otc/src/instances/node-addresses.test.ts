import { describe, expect, it } from "@jest/globals";
import type { Server } from "@edgeconnect/otc";
import { ANNOTATION_PROVIDED_NODE_IP, type Node } from "../kube/objects.js";
import { nodeAddresses, preferProvidedNodeIp, ProvidedNodeIpError } from "./node-addresses.js";

const SERVER: Server = {
  id: "5d0f7d0e-6c8a-4a3b-9f53-2b4f0b6c1a01",
  name: "worker-1",
  status: "ACTIVE",
  addresses: {
    "vpc-b": [
      { version: "4", addr: "10.1.0.7", "OS-EXT-IPS:type": "fixed" },
      { version: "4", addr: "80.158.1.2", "OS-EXT-IPS:type": "floating" },
    ],
    "vpc-a": [
      { version: "4", addr: "192.168.0.11", "OS-EXT-IPS:type": "fixed" },
      { version: "6", addr: "2001:db8::11", "OS-EXT-IPS:type": "fixed" },
      { version: "4", addr: "192.168.0.11", "OS-EXT-IPS:type": "fixed" },
      { version: "4", addr: "192.168.0.99" },
    ],
  },
};

function node(annotation?: string): Node {
  return { metadata: { name: "worker-1", ...(annotation === undefined ? {} : { annotations: { [ANNOTATION_PROVIDED_NODE_IP]: annotation } }) } };
}

describe("nodeAddresses", () => {
  it("maps fixed to InternalIP and floating to ExternalIP, VPCs in ID order, once each, then the Hostname", () => {
    expect(nodeAddresses(SERVER, node())).toEqual([
      { type: "InternalIP", address: "192.168.0.11" },
      { type: "InternalIP", address: "2001:db8::11" },
      { type: "InternalIP", address: "10.1.0.7" },
      { type: "ExternalIP", address: "80.158.1.2" },
      { type: "Hostname", address: "worker-1" },
    ]);
  });

  it("gives a server without addresses just the Hostname", () => {
    expect(nodeAddresses({ ...SERVER, addresses: undefined }, node())).toEqual([{ type: "Hostname", address: "worker-1" }]);
  });

  it("puts the provided node IP first and drops the other addresses of its type", () => {
    expect(nodeAddresses(SERVER, node("10.1.0.7"))).toEqual([
      { type: "InternalIP", address: "10.1.0.7" },
      { type: "ExternalIP", address: "80.158.1.2" },
      { type: "Hostname", address: "worker-1" },
    ]);
  });

  it("keeps the other types when the provided IP is an ExternalIP", () => {
    expect(nodeAddresses(SERVER, node("80.158.1.2")).map((a) => a.address)).toEqual(["80.158.1.2", "192.168.0.11", "2001:db8::11", "10.1.0.7", "worker-1"]);
  });

  it("matches IPv6 in any spelling and honours a dual-stack pair", () => {
    expect(nodeAddresses(SERVER, node("192.168.0.11,2001:0db8:0:0::0011"))).toEqual([
      { type: "InternalIP", address: "192.168.0.11" },
      { type: "InternalIP", address: "2001:db8::11" },
      { type: "ExternalIP", address: "80.158.1.2" },
      { type: "Hostname", address: "worker-1" },
    ]);
  });

  it.each([
    ["an IP the cloud does not know", "10.9.9.9", /not among the cloud's addresses/],
    ["garbage", "node-1", /cannot parse/],
    ["two IPv4s", "10.1.0.7,192.168.0.11", /single IP or a dual-stack pair/],
    ["three IPs", "10.1.0.7,2001:db8::11,192.168.0.11", /single IP or a dual-stack pair/],
    ["an unspecified half of a pair", "0.0.0.0,2001:db8::11", /cannot include/],
  ])("rejects %s", (_what, annotation, message) => {
    expect(() => nodeAddresses(SERVER, node(annotation))).toThrow(ProvidedNodeIpError);
    expect(() => nodeAddresses(SERVER, node(annotation))).toThrow(message);
  });
});

describe("preferProvidedNodeIp", () => {
  it("returns the addresses as they are without an annotation", () => {
    const addresses = [{ type: "ExternalIP" as const, address: "1.2.3.4" }, { type: "InternalIP" as const, address: "10.0.0.1" }];
    expect(preferProvidedNodeIp(addresses, undefined)).toEqual(addresses);
  });

  it("is idempotent, so applying it again changes nothing", () => {
    const once = nodeAddresses(SERVER, node("10.1.0.7"));
    expect(preferProvidedNodeIp(once, "10.1.0.7")).toEqual(once);
  });
});
