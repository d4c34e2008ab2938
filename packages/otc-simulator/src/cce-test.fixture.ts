/**
 * Test support for the VPC, key pair and CCE tests: a simulator with known
 * CCE timings, and helpers that build the network, key pair, cluster and
 * node pool bodies a client sends, through the API like a client would.
 */
import { generateKeyPairSync } from "node:crypto";
import { expect } from "@jest/globals";
import type { OtcSimulatorOptions } from "./server.js";
import { PROJECT, startTestSimulator, text, type TestSimulator } from "./test-client.fixture.js";

export const TIMING = { cceClusterCreateMs: 3000, cceClusterDeleteMs: 2000, nodePoolSyncMs: 500 } as const;
export const VPCS = `/v1/${PROJECT.id}/vpcs`;
export const SUBNETS = `/v1/${PROJECT.id}/subnets`;
export const KEYPAIRS = `/v2.1/${PROJECT.id}/os-keypairs`;
export const CLUSTERS = `/api/v3/projects/${PROJECT.id}/clusters`;

export function startCceSimulator(options: Partial<OtcSimulatorOptions> = {}): Promise<TestSimulator> {
  return startTestSimulator({ ...TIMING, ...options });
}

/** An OpenSSH `ssh-ed25519` public key line with a fresh key. */
export function sshPublicKey(comment = "ci@example"): string {
  const { publicKey } = generateKeyPairSync("ed25519");
  const raw = Buffer.from(publicKey.export({ format: "jwk" }).x ?? "", "base64url");
  const part = (bytes: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  return `ssh-ed25519 ${Buffer.concat([part(Buffer.from("ssh-ed25519")), part(raw)]).toString("base64")} ${comment}`;
}

export interface Network {
  readonly vpcId: string;
  /** The VPC subnet id, which is the Neutron network id. */
  readonly subnetId: string;
  readonly neutronSubnetId: string;
}

/** A VPC 10.0.0.0/16 with the subnet 10.0.1.0/24, both past their transition. */
export async function createNetwork(t: TestSimulator): Promise<Network> {
  const vpc = await t.call("POST", VPCS, { body: { vpc: { name: "vpc-ci", cidr: "10.0.0.0/16" } } });
  expect(vpc.status).toBe(200);
  const vpcId = text(vpc.body, "vpc.id");
  const subnet = await t.call("POST", SUBNETS, { body: { subnet: { name: "subnet-ci", cidr: "10.0.1.0/24", gateway_ip: "10.0.1.1", vpc_id: vpcId } } });
  expect(subnet.status).toBe(200);
  return { vpcId, subnetId: text(subnet.body, "subnet.id"), neutronSubnetId: text(subnet.body, "subnet.neutron_subnet_id") };
}

export async function createKeypair(t: TestSimulator, name = "ci-key"): Promise<string> {
  const result = await t.call("POST", KEYPAIRS, { body: { keypair: { name, public_key: sshPublicKey() } } });
  expect(result.status).toBe(200);
  return name;
}

export function clusterBody(network: Network, spec: Record<string, unknown> = {}, name = "ci-cluster"): unknown {
  return {
    kind: "Cluster",
    apiVersion: "v3",
    metadata: { name },
    spec: {
      type: "VirtualMachine",
      flavor: "cce.s1.small",
      version: "v1.31",
      hostNetwork: { vpc: network.vpcId, subnet: network.subnetId },
      containerNetwork: { mode: "vpc-router", cidr: "172.16.0.0/16" },
      authentication: { mode: "rbac" },
      ...spec,
    },
  };
}

/** Creates a cluster and waits (on the simulator's clock) until it is Available; returns its id. */
export async function availableCluster(t: TestSimulator, network: Network, name = "ci-cluster"): Promise<string> {
  const created = await t.call("POST", CLUSTERS, { body: clusterBody(network, {}, name) });
  expect(created.status).toBe(201);
  t.advance(TIMING.cceClusterCreateMs);
  return text(created.body, "metadata.uid");
}

export interface PoolOptions {
  readonly flavor?: string;
  readonly az?: string;
  readonly count?: number;
  readonly sshKey?: string;
}

export function nodePoolBody(name: string, options: PoolOptions = {}): unknown {
  return {
    kind: "NodePool",
    apiVersion: "v3",
    metadata: { name },
    spec: {
      type: "vm",
      initialNodeCount: options.count ?? 2,
      nodeTemplate: {
        flavor: options.flavor ?? "s3.xlarge.4",
        az: options.az ?? "eu-de-01",
        os: "HCE OS 2.0",
        login: { sshKey: options.sshKey ?? "ci-key" },
        rootVolume: { size: 50, volumetype: "SSD" },
        dataVolumes: [{ size: 100, volumetype: "SSD" }],
        runtime: { name: "containerd" },
      },
    },
  };
}
