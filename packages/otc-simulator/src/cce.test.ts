import { createPrivateKey, X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  availableCluster,
  CLUSTERS,
  clusterBody,
  createKeypair,
  createNetwork,
  KEYPAIRS,
  nodePoolBody,
  startCceSimulator,
  SUBNETS,
  TIMING,
  VPCS,
  type Network,
} from "./cce-test.fixture.js";
import { at, CREDENTIALS, DELAY_MS, pluck, PROJECT, SUBNET, type TestSimulator, text } from "./test-client.fixture.js";
import { createCceCluster, getCceCluster, getCceClusterCert, OtcClient, type CreateCceCluster } from "@edgeconnect/otc";
import { createCertificateAuthority, type CertificateAndKey } from "./workload-certificates.js";

const WORKLOAD_URL = "https://127.0.0.1:6443";
const EIPS = `/v1/${PROJECT.id}/publicips`;
const DAY_MS = 24 * 60 * 60 * 1000;

describe("CCE clusters", () => {
  let t: TestSimulator;
  let network: Network;
  let clientCa: CertificateAndKey;
  let servingCa: CertificateAndKey;
  beforeAll(async () => {
    clientCa = createCertificateAuthority("workload-client-ca");
    servingCa = createCertificateAuthority("workload-serving-ca");
    t = await startCceSimulator({ workloadCluster: { url: WORKLOAD_URL, servingCaPem: servingCa.certPem, clientCa } });
    network = await createNetwork(t);
    // Two RSA keys and forge's signatures in JavaScript: well under a second alone, several seconds on a CI machine
    // busy starting the e2e servers beside the unit files.
  }, 30_000);
  afterAll(() => t.sim.close());

  async function downEip(): Promise<{ id: string; address: string }> {
    const body = { publicip: { type: "5_bgp" }, bandwidth: { name: "bw-cce", size: 5, share_type: "PER" } };
    const created = await t.call("POST", EIPS, { body });
    t.advance(DELAY_MS);
    return { id: text(created.body, "publicip.id"), address: text(created.body, "publicip.public_ip_address") };
  }

  const bind = (clusterId: string, action: "bind" | "unbind", id?: string) =>
    t.call("PUT", `${CLUSTERS}/${clusterId}/mastereip`, { body: { spec: { action, spec: id === undefined ? {} : { id } } } });

  it("creates a cluster that is Creating, then Available, with an internal endpoint in its subnet", async () => {
    const created = await t.call("POST", CLUSTERS, { body: clusterBody(network, {}, "phases") });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: "Cluster",
      apiVersion: "v3",
      metadata: { name: "phases", creationTimestamp: "2026-03-01 12:00:00.000000 +0000 UTC" },
      spec: { flavor: "cce.s1.small", version: "v1.31", hostNetwork: { vpc: network.vpcId, subnet: network.subnetId } },
      status: { phase: "Creating" },
    });
    const id = text(created.body, "metadata.uid");
    const endpoints = at(created.body, "status.endpoints");
    expect(endpoints).toEqual([{ url: expect.stringMatching(/^https:\/\/10\.0\.1\.\d+:5443$/) as unknown, type: "Internal" }]);

    t.advance(TIMING.cceClusterCreateMs - 1);
    expect(at((await t.call("GET", `${CLUSTERS}/${id}`)).body, "status.phase")).toBe("Creating");
    t.advance(1);
    expect(at((await t.call("GET", `${CLUSTERS}/${id}`)).body, "status.phase")).toBe("Available");
    expect(pluck((await t.call("GET", CLUSTERS)).body, "items", "metadata.uid")).toContain(id);
    expect((await t.call("GET", `${CLUSTERS}/00000000-0000-0000-0000-000000000000`)).status).toBe(404);
  });

  it.each([
    ["an unknown flavor", { flavor: "cce.s3.small" }, "spec.flavor"],
    ["an unknown cluster type", { type: "Kubernetes" }, "spec.type"],
    ["a version without v", { version: "1.31" }, "spec.version"],
    ["a malformed version", { version: "v1.31.x" }, "spec.version"],
    ["a CCE patch without a Kubernetes patch", { version: "v1.31-r0" }, "spec.version"],
    ["a version CCE does not offer", { version: "v1.99" }, "spec.version"],
    ["a patch of a version CCE does not offer", { version: "v1.26.15-r0" }, "spec.version"],
    ["a master zone of another region", { masters: [{ availabilityZone: "eu-nl-01" }] }, "spec.masters[0].availabilityZone"],
    ["an unknown network mode", { containerNetwork: { mode: "flannel" } }, "spec.containerNetwork.mode"],
    ["a container CIDR overlapping the VPC", { containerNetwork: { mode: "vpc-router", cidr: "10.0.0.0/12" } }, "spec.containerNetwork.cidr"],
    ["three masters on a single-master flavor", { masters: [{ availabilityZone: "eu-de-01" }, { availabilityZone: "eu-de-02" }, { availabilityZone: "eu-de-03" }] }, "spec.masters"],
  ])("refuses %s with a CCE 400", async (_what, spec, field) => {
    const result = await t.call("POST", CLUSTERS, { body: clusterBody(network, spec, "invalid") });
    expect(result.status).toBe(400);
    expect(result.body).toMatchObject({ kind: "Status", status: "Failure", code: 400, reason: "BadRequest", error_code: "CCE.01400001" });
    expect(at(result.body, "message")).toContain(field);
  });

  it("names the refused version and the offered ones", async () => {
    const result = await t.call("POST", CLUSTERS, { body: clusterBody(network, { version: "v1.99" }, "too-new") });
    expect(at(result.body, "message")).toBe("spec.version v1.99 is not offered; CCE offers v1.25, v1.27, v1.28, v1.29, v1.30, v1.31, v1.32, v1.33");
  });

  it.each(["v1.30", "v1.30.0", "v1.30.0-r0", "v1.30.14-r12"])("creates a cluster of version %s, echoing it", async (version) => {
    const result = await t.call("POST", CLUSTERS, { body: clusterBody(network, { version }, `version-${version.replaceAll(".", "-")}`) });
    expect(result.status).toBe(201);
    expect(at(result.body, "spec.version")).toBe(version);
  });

  it("creates the latest offered version when spec.version is omitted", async () => {
    const result = await t.call("POST", CLUSTERS, { body: clusterBody(network, { version: undefined }, "latest") });
    expect(result.status).toBe(201);
    expect(at(result.body, "spec.version")).toBe("v1.33");
  });

  it("accepts three masters on an HA flavor", async () => {
    const masters = [{ availabilityZone: "eu-de-01" }, { availabilityZone: "eu-de-02" }, { availabilityZone: "eu-de-03" }];
    const result = await t.call("POST", CLUSTERS, { body: clusterBody(network, { flavor: "cce.s2.small", masters }, "ha-masters") });
    expect(result.status).toBe(201);
    expect(at(result.body, "spec.masters")).toEqual(masters);
  });

  it("refuses the Neutron subnet id, naming the network id it wants", async () => {
    const result = await t.call("POST", CLUSTERS, {
      body: clusterBody(network, { hostNetwork: { vpc: network.vpcId, subnet: network.neutronSubnetId } }, "wrong-id"),
    });
    expect(result.status).toBe(400);
    expect(at(result.body, "message")).toBe(
      `spec.hostNetwork.subnet ${network.neutronSubnetId} is the Neutron subnet id (neutron_subnet_id) of subnet subnet-ci; ` +
        `CCE expects the subnet's network id (neutron_network_id ${network.subnetId})`,
    );
  });

  it("refuses a subnet of another VPC, a seeded subnet's VPC subnet id, and an unknown VPC", async () => {
    const otherVpc = text((await t.call("POST", VPCS, { body: { vpc: { name: "other", cidr: "10.9.0.0/16" } } })).body, "vpc.id");
    const otherSubnet = await t.call("POST", SUBNETS, { body: { subnet: { name: "o", cidr: "10.9.0.0/24", gateway_ip: "10.9.0.1", vpc_id: otherVpc } } });
    const foreign = await t.call("POST", CLUSTERS, {
      body: clusterBody(network, { hostNetwork: { vpc: network.vpcId, subnet: text(otherSubnet.body, "subnet.id") } }, "foreign"),
    });
    expect(foreign.status).toBe(400);
    expect(at(foreign.body, "message")).toMatch(/belongs to VPC/);
    const seeded = await t.call("POST", CLUSTERS, { body: clusterBody(network, { hostNetwork: { vpc: network.vpcId, subnet: SUBNET.vpcSubnetId } }, "seeded") });
    expect(at(seeded.body, "message")).toMatch(/is the VPC subnet id of subnet .*neutron_network_id 33333333/);
    const noVpc = await t.call("POST", CLUSTERS, { body: clusterBody(network, { hostNetwork: { vpc: SUBNET.vpcId, subnet: network.subnetId } }, "novpc") });
    expect(noVpc.status).toBe(400);
    expect(at(noVpc.body, "message")).toMatch(/spec.hostNetwork.vpc .*no such VPC/);
  });

  it("answers 409 for a cluster name that exists", async () => {
    expect((await t.call("POST", CLUSTERS, { body: clusterBody(network, {}, "twice") })).status).toBe(201);
    const again = await t.call("POST", CLUSTERS, { body: clusterBody(network, {}, "twice") });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ kind: "Status", code: 409 });
  });

  it("binds a master EIP (External endpoint, EIP ACTIVE and unreleasable) and unbinds it", async () => {
    const id = await availableCluster(t, network, "with-eip");
    const eip = await downEip();
    expect((await bind(id, "bind", "no-such-eip")).status).toBe(400);

    const bound = await bind(id, "bind", eip.id);
    expect(bound.status).toBe(200);
    expect(bound.body).toMatchObject({ spec: { action: "bind", elasticIp: eip.address }, status: { publicEndpoint: `https://${eip.address}:5443` } });
    const cluster = await t.call("GET", `${CLUSTERS}/${id}`);
    expect(at(cluster.body, "status.endpoints")).toContainEqual({ url: `https://${eip.address}:5443`, type: "External" });
    const internal = text(cluster.body, "status.endpoints.0.url");
    const publicip = await t.call("GET", `${EIPS}/${eip.id}`);
    expect(at(publicip.body, "publicip")).toMatchObject({ status: "ACTIVE", private_ip_address: internal.replace(/^https:\/\/(.*):5443$/, "$1") });
    expect((await t.call("DELETE", `${EIPS}/${eip.id}`)).status).toBe(409);
    expect((await bind(id, "bind", eip.id)).status).toBe(200);
    const second = await downEip();
    expect((await bind(id, "bind", second.id)).status).toBe(409);

    expect((await bind(id, "unbind", eip.id)).status).toBe(200);
    expect(at((await t.call("GET", `${EIPS}/${eip.id}`)).body, "publicip.status")).toBe("DOWN");
    expect(pluck((await t.call("GET", `${CLUSTERS}/${id}`)).body, "status.endpoints", "type")).toEqual(["Internal"]);
    expect((await t.call("DELETE", `${EIPS}/${eip.id}`)).status).toBe(204);
  });

  it("refuses to bind an EIP that is still PENDING_CREATE or bound elsewhere", async () => {
    const id = await availableCluster(t, network, "busy-eip");
    const pending = await t.call("POST", EIPS, { body: { publicip: { type: "5_bgp" }, bandwidth: { name: "bw", size: 5, share_type: "PER" } } });
    expect((await bind(id, "bind", text(pending.body, "publicip.id"))).status).toBe(409);
    const other = await availableCluster(t, network, "holder");
    const eip = await downEip();
    expect((await bind(other, "bind", eip.id)).status).toBe(200);
    expect((await bind(id, "bind", eip.id)).status).toBe(409);
  });

  it("issues a kubeconfig with only the internal entry while no EIP is bound", async () => {
    const id = await availableCluster(t, network, "internal-only");
    const result = await t.call("POST", `${CLUSTERS}/${id}/clustercert`, { body: { duration: 30 } });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ kind: "Config", apiVersion: "v1", "current-context": "internal" });
    expect(pluck(result.body, "clusters", "name")).toEqual(["internalCluster"]);
    expect(pluck(result.body, "contexts", "name")).toEqual(["internal"]);
    const internal = text((await t.call("GET", `${CLUSTERS}/${id}`)).body, "status.endpoints.0.url");
    expect(t.sim.state.certificatesIssued.get(id)).toEqual(new Map([[30, 1]]));
    expect(at(result.body, "clusters.0.cluster")).toEqual({
      server: internal,
      "certificate-authority-data": Buffer.from(servingCa.certPem).toString("base64"),
    });
  });

  it("takes the nodes' security group as the OTC client sends it, with CCE's spelling (hostNetwork.SecurityGroup)", async () => {
    const client = new OtcClient({ credentials: CREDENTIALS, region: "eu-de", projectId: PROJECT.id, endpoints: { cce: t.sim.url }, now: () => t.now() });
    try {
      const spec: CreateCceCluster["spec"] = {
        type: "VirtualMachine",
        flavor: "cce.s1.small",
        version: "v1.31",
        hostNetwork: { vpc: network.vpcId, subnet: network.subnetId, SecurityGroup: "0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9" },
        containerNetwork: { mode: "vpc-router", cidr: "172.16.0.0/16" },
      };
      const created = await createCceCluster(client, { metadata: { name: "with-security-group" }, spec });
      expect((await getCceCluster(client, created.metadata.uid))?.spec.hostNetwork).toMatchObject({ SecurityGroup: "0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9" });
    } finally {
      client.close();
    }
  });

  it("issues one certificate when its answer is lost: the OTC client does not ask again", async () => {
    const id = await availableCluster(t, network, "lost-answer");
    const client = new OtcClient({ credentials: CREDENTIALS, region: "eu-de", projectId: PROJECT.id, endpoints: { cce: t.sim.url }, retry: { attempts: 3, baseDelayMs: 1 }, now: () => t.now() });
    try {
      t.sim.faults.failNextAfterEffect({ method: "POST", pathSuffix: "/clustercert" }, 502);
      await expect(getCceClusterCert(client, id, 30)).rejects.toMatchObject({ status: 502 });
      expect(t.sim.state.certificatesIssued.get(id)).toEqual(new Map([[30, 1]]));
      t.sim.faults.failNext({ method: "POST", pathSuffix: "/clustercert" }, 429);
      await getCceClusterCert(client, id, 30);
      expect(t.sim.state.certificatesIssued.get(id)).toEqual(new Map([[30, 2]]));
    } finally {
      t.sim.faults.clear();
      client.close();
    }
  });

  it("issues a kubeconfig whose external entries reach the workload cluster with a client certificate of its CA", async () => {
    const id = await availableCluster(t, network, "external");
    expect((await bind(id, "bind", (await downEip()).id)).status).toBe(200);
    const result = await t.call("POST", `${CLUSTERS}/${id}/clustercert`, { body: { duration: 30 } });
    expect(result.status).toBe(200);
    expect(at(result.body, "current-context")).toBe("external");
    expect(pluck(result.body, "clusters", "name")).toEqual(["internalCluster", "externalCluster", "externalClusterTLSVerify"]);
    expect(at(result.body, "clusters.1.cluster")).toEqual({ server: WORKLOAD_URL, "insecure-skip-tls-verify": true });
    expect(at(result.body, "clusters.2.cluster.server")).toBe(WORKLOAD_URL);
    expect(at(result.body, "contexts")).toContainEqual({ name: "externalTLSVerify", context: { cluster: "externalClusterTLSVerify", user: "user" } });

    const decode = (path: string) => Buffer.from(text(result.body, path), "base64").toString("utf8");
    const cert = new X509Certificate(decode("users.0.user.client-certificate-data"));
    const ca = new X509Certificate(clientCa.certPem);
    expect(cert.issuer).toBe("CN=workload-client-ca");
    expect(cert.subject.split("\n").sort()).toEqual([`CN=cce-${id}`, "O=system:masters"]);
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.keyUsage).toEqual(["1.3.6.1.5.5.7.3.2"]);
    expect(new Date(cert.validFrom).getTime()).toBe(t.now().getTime());
    expect(new Date(cert.validTo).getTime()).toBe(t.now().getTime() + 30 * DAY_MS);
    expect(cert.checkPrivateKey(createPrivateKey(decode("users.0.user.client-key-data")))).toBe(true);
  });

  it("refuses a cluster certificate while the cluster is not Available, and odd durations", async () => {
    const created = await t.call("POST", CLUSTERS, { body: clusterBody(network, {}, "still-creating") });
    const id = text(created.body, "metadata.uid");
    const early = await t.call("POST", `${CLUSTERS}/${id}/clustercert`, { body: { duration: 30 } });
    expect(early.status).toBe(400);
    expect(at(early.body, "message")).toMatch(/is Creating/);
    t.advance(TIMING.cceClusterCreateMs);
    expect((await t.call("POST", `${CLUSTERS}/${id}/clustercert`, { body: { duration: 0 } })).status).toBe(400);
    expect((await t.call("POST", `${CLUSTERS}/${id}/clustercert`, { body: { duration: 1826 } })).status).toBe(400);
    const max = await t.call("POST", `${CLUSTERS}/${id}/clustercert`, { body: { duration: -1 } });
    const cert = new X509Certificate(Buffer.from(text(max.body, "users.0.user.client-certificate-data"), "base64"));
    expect(new Date(cert.validTo).getTime() - new Date(cert.validFrom).getTime()).toBe(1825 * DAY_MS);
  });

  it("deletes a cluster: Deleting, then gone with its EIP unbound and its node pools and servers removed", async () => {
    await createKeypair(t, "cascade-key");
    const id = await availableCluster(t, network, "cascade");
    const eip = await downEip();
    await bind(id, "bind", eip.id);
    const pool = await t.call("POST", `${CLUSTERS}/${id}/nodepools`, { body: nodePoolBody("workers", { sshKey: "cascade-key", count: 2 }) });
    expect(pool.status).toBe(201);
    t.advance(TIMING.nodePoolSyncMs);
    const poolPath = `${CLUSTERS}/${id}/nodepools/${text(pool.body, "metadata.uid")}`;
    expect(at((await t.call("GET", poolPath)).body, "status")).toEqual({ phase: "", currentNode: 2 });
    const servers = () => [...t.sim.state.servers.values()].filter((server) => server.name.startsWith("workers-"));
    expect(servers()).toHaveLength(2);
    const subnetPath = `${VPCS}/${network.vpcId}/subnets/${network.subnetId}`;
    expect((await t.call("DELETE", subnetPath)).status).toBe(409);

    expect((await t.call("DELETE", `${CLUSTERS}/${id}?delete_evs=maybe`)).status).toBe(400);
    const deleting = await t.call("DELETE", `${CLUSTERS}/${id}?delete_efs=try&delete_eni=try&delete_evs=try&delete_net=try&delete_obs=try&delete_sfs=try`);
    expect(deleting.status).toBe(200);
    expect(at(deleting.body, "status.phase")).toBe("Deleting");
    t.advance(TIMING.cceClusterDeleteMs - 1);
    expect(at((await t.call("GET", `${CLUSTERS}/${id}`)).body, "status.phase")).toBe("Deleting");
    expect(servers()).toHaveLength(2);
    t.advance(1);
    expect((await t.call("GET", `${CLUSTERS}/${id}`)).status).toBe(404);
    expect(servers()).toHaveLength(0);
    expect([...t.sim.state.nodePools.values()].filter((candidate) => candidate.clusterId === id)).toEqual([]);
    expect(at((await t.call("GET", `${EIPS}/${eip.id}`)).body, "publicip.status")).toBe("DOWN");
  });

  it("leaves nothing once a client deletes everything it made", async () => {
    const clean = await startCceSimulator();
    try {
      const own = await createNetwork(clean);
      await createKeypair(clean);
      const created = await clean.call("POST", CLUSTERS, { body: clusterBody(own) });
      const id = text(created.body, "metadata.uid");
      clean.advance(TIMING.cceClusterCreateMs);
      await clean.call("POST", `${CLUSTERS}/${id}/nodepools`, { body: nodePoolBody("pool", { count: 3 }) });
      clean.advance(TIMING.nodePoolSyncMs);
      expect(clean.sim.liveObjects()).toEqual({ vpcs: 1, subnets: 2, eips: 0, keypairs: 1, cceClusters: 1, nodePools: 1, servers: 3 });
      await clean.call("DELETE", `${CLUSTERS}/${id}`);
      clean.advance(TIMING.cceClusterDeleteMs);
      expect((await clean.call("DELETE", `${VPCS}/${own.vpcId}/subnets/${own.subnetId}`)).status).toBe(204);
      expect((await clean.call("DELETE", `${VPCS}/${own.vpcId}`)).status).toBe(204);
      expect((await clean.call("DELETE", `${KEYPAIRS}/ci-key`)).status).toBe(202);
      // The fixture's seeded subnet is the one left.
      expect(clean.sim.liveObjects()).toEqual({ vpcs: 0, subnets: 1, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
    } finally {
      await clean.sim.close();
    }
  });
});

describe("CCE with its own offered versions and region", () => {
  it("creates only the versions of the cceVersions option, the last one by default", async () => {
    const t = await startCceSimulator({ cceVersions: ["v1.28", "v1.29"] });
    try {
      const network = await createNetwork(t);
      const latest = await t.call("POST", CLUSTERS, { body: clusterBody(network, { version: undefined }, "latest") });
      expect(at(latest.body, "spec.version")).toBe("v1.29");
      const refused = await t.call("POST", CLUSTERS, { body: clusterBody(network, { version: "v1.31" }, "refused") });
      expect(refused.status).toBe(400);
      expect(at(refused.body, "message")).toBe("spec.version v1.31 is not offered; CCE offers v1.28, v1.29");
    } finally {
      await t.sim.close();
    }
  });

  it.each([[[]], [["v1.30.1"]], [["1.30"]]])("refuses to start with cceVersions %j", async (cceVersions) => {
    await expect(startCceSimulator({ cceVersions })).rejects.toThrow(/CCE versions must be one or more vX.Y/);
  });

  it("places masters in the zones of its region only", async () => {
    const t = await startCceSimulator({ region: "eu-nl" });
    try {
      const network = await createNetwork(t);
      const masters = ["eu-nl-01", "eu-nl-02", "eu-nl-03"].map((availabilityZone) => ({ availabilityZone }));
      expect((await t.call("POST", CLUSTERS, { body: clusterBody(network, { flavor: "cce.s2.small", masters }, "nl-masters") })).status).toBe(201);
      const foreign = await t.call("POST", CLUSTERS, { body: clusterBody(network, { masters: [{ availabilityZone: "eu-de-01" }] }, "de-master") });
      expect(foreign.status).toBe(400);
      expect(at(foreign.body, "message")).toBe("spec.masters[0].availabilityZone must be one of eu-nl-01, eu-nl-02, eu-nl-03");
    } finally {
      await t.sim.close();
    }
  });
});

describe("CCE without a workload cluster", () => {
  it("answers clustercert with 400", async () => {
    const t = await startCceSimulator();
    try {
      const id = await availableCluster(t, await createNetwork(t));
      const result = await t.call("POST", `${CLUSTERS}/${id}/clustercert`, { body: { duration: 1 } });
      expect(result.status).toBe(400);
      expect(at(result.body, "message")).toBe("the simulator has no workload cluster");
    } finally {
      await t.sim.close();
    }
  });
});
