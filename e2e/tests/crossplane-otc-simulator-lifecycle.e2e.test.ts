/**
 * The Crossplane OTC provider simulator (lifecycle): CRDs that refuse what the provider's refuse; a VPC, subnet, EIP,
 * keypair, CCE cluster and node pool with literal IDs reach Synced and Ready
 * with their atProvider filled; a node pool scales in place and refuses a
 * ForceNew change; SoldOut leaves a pool Ready with its create failed; a VPC
 * with a subnet left fails to delete until the subnet is gone; OTC ends empty.
 * The processes and helpers are e2e/src/crossplane-otc-scenarios.ts's.
 */
import { expect, it } from "@jest/globals";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import {
  CLUSTER,
  condition,
  crossplaneOtcScenarios,
  describeCrossplaneOtc,
  EIP,
  EXTERNAL_CREATE_SUCCEEDED,
  EXTERNAL_NAME,
  FIELD_MANAGER,
  IN_USE_FINALIZER,
  itLeavesOtcEmpty,
  KEYPAIR,
  MR_FINALIZER,
  MR_VERSION,
  mrPath,
  NODE_POOL,
  PROVIDER_CONFIG_LABEL,
  sshPublicKey,
  SUBNET,
  TEST_TIMEOUT_MS,
  VPC,
  type ManagedResource,
} from "../src/crossplane-otc-scenarios.js";

describeCrossplaneOtc("crossplane-otc-simulator (lifecycle)", () => {
  const s = crossplaneOtcScenarios();
  const { kube, run, namespace, config, usesConfig, apply, get, ready, until, gone, deleteMr, providerConfigUntil, usages } = s;

  it("has CRDs that refuse a misspelled forProvider field and a missing required parameter", async () => {
    await expect(apply(VPC, "misspelled", { providerConfigRef: usesConfig, forProvider: { name: "x", cidr: "10.0.0.0/16", cdir: "10.0.0.0/16" } })).rejects.toThrow(
      ".spec.forProvider.cdir: field not declared in schema",
    );
    await expect(apply(VPC, "missing", { providerConfigRef: usesConfig, forProvider: { name: "x" } })).rejects.toThrow("spec.forProvider.cidr is a required parameter");
    // Observe-only needs no parameters: the CRD's rules apply to Create and Update only.
    const observeOnly = await kube.request<ManagedResource>("PATCH", mrPath(VPC, namespace, "observe-only"), {
      body: { apiVersion: `${VPC.group}/${MR_VERSION}`, kind: VPC.kind, metadata: { name: "observe-only" }, spec: { managementPolicies: ["Observe"], forProvider: {} } },
      contentType: "application/apply-patch+yaml",
      query: { fieldManager: FIELD_MANAGER, fieldValidation: "Strict", dryRun: "All" },
    });
    expect(observeOnly.spec?.providerConfigRef).toEqual({ kind: "ClusterProviderConfig", name: "default" });
  }, TEST_TIMEOUT_MS);

  it("brings a VPC, subnet, EIP, keypair, cluster and node pool with literal IDs to Synced and Ready", async () => {
    await apply(VPC, "vpc", { providerConfigRef: usesConfig, forProvider: { name: `kcp-${run}`, cidr: "192.168.0.0/16" } });
    await apply(EIP, "api", {
      providerConfigRef: usesConfig,
      writeConnectionSecretToRef: { name: "api-connection" },
      forProvider: { publicip: [{ type: "5_bgp" }], bandwidth: [{ name: `kcp-${run}`, shareType: "PER", size: 10, chargeMode: "traffic" }] },
    });
    await apply(KEYPAIR, "workers", { providerConfigRef: usesConfig, forProvider: { name: `kcp-${run}`, publicKey: sshPublicKey() } });

    const vpc = await ready(VPC, "vpc");
    const vpcId = vpc.status?.atProvider?.id as string;
    expect(s.sim.state.vpcs.has(vpcId)).toBe(true);
    expect(vpc.status?.atProvider).toMatchObject({ status: "OK", cidr: "192.168.0.0/16", name: `kcp-${run}` });
    expect(vpc.metadata?.annotations?.[EXTERNAL_NAME]).toBe(vpcId);
    expect(vpc.metadata?.annotations?.[EXTERNAL_CREATE_SUCCEEDED]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(vpc.metadata?.finalizers).toContain(MR_FINALIZER);
    expect(condition(vpc, "LastAsyncOperation")).toMatchObject({ status: "True", reason: "Success" });
    expect(condition(vpc, "AsyncOperation")).toMatchObject({ status: "True", reason: "Finished" });
    expect(condition(vpc, "Ready")).toMatchObject({ status: "True", reason: "Available" });

    await apply(SUBNET, "subnet", { providerConfigRef: usesConfig, forProvider: { name: `kcp-${run}`, cidr: "192.168.0.0/24", gatewayIp: "192.168.0.1", vpcId } });
    const subnet = await ready(SUBNET, "subnet");
    const networkId = subnet.status?.atProvider?.networkId as string;
    expect(subnet.status?.atProvider).toMatchObject({ id: networkId, subnetId: expect.any(String), status: "ACTIVE", vpcId });
    expect(subnet.status?.atProvider?.subnetId).not.toBe(networkId);
    expect(subnet.metadata?.annotations?.[EXTERNAL_NAME]).toBe(networkId);

    const eip = await ready(EIP, "api");
    const publicip = (eip.status?.atProvider?.publicip ?? []) as { type?: string; ipAddress?: string }[];
    const address = publicip[0]?.ipAddress ?? "";
    expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(publicip).toEqual([expect.objectContaining({ type: "5_bgp", ipAddress: address })]);
    // The address is only there: the provider has no top-level one.
    expect(eip.status?.atProvider?.address).toBeUndefined();
    expect(s.sim.state.eips.get(eip.metadata?.annotations?.[EXTERNAL_NAME] ?? "")?.publicIpAddress).toBe(address);
    // An EIP has no sensitive attribute to publish: a Secret without data, owned by the MR.
    const connection = await kube.get<KubeObject & { type?: string; data?: Record<string, string> }>(`/api/v1/namespaces/${namespace}/secrets/api-connection`);
    expect(connection).toMatchObject({ type: "connection.crossplane.io/v1alpha1", metadata: { ownerReferences: [expect.objectContaining({ kind: "EIPV1", uid: eip.metadata?.uid })] } });
    expect(connection.data ?? {}).toEqual({});

    const keypair = await ready(KEYPAIR, "workers");
    expect(keypair.metadata?.annotations?.[EXTERNAL_NAME]).toBe(`kcp-${run}`);
    expect(keypair.status?.atProvider).toMatchObject({ id: `kcp-${run}`, name: `kcp-${run}`, publicKey: expect.stringMatching(/^ssh-ed25519 /) });

    await apply(CLUSTER, "cluster", {
      providerConfigRef: usesConfig,
      forProvider: {
        name: `kcp-${run}`,
        clusterType: "VirtualMachine",
        flavorId: "cce.s1.small",
        clusterVersion: "v1.31",
        containerNetworkType: "vpc-router",
        authenticationMode: "rbac",
        vpcId,
        subnetId: networkId,
        eip: address,
        deleteEvs: "try",
        deleteNet: "try",
      },
    });
    const cluster = await ready(CLUSTER, "cluster");
    const clusterId = cluster.status?.atProvider?.id as string;
    // Terraform records the cluster only once it is Available and the EIP is bound.
    expect(cluster.metadata?.annotations?.[EXTERNAL_NAME]).toBe(clusterId);
    expect(s.sim.state.cceClusters.has(clusterId)).toBe(true);
    expect(cluster.status?.atProvider).toMatchObject({
      status: "Available",
      internal: expect.stringMatching(/^https:\/\/192\.168\.0\.\d+:5443$/),
      external: `https://${address}:5443`,
      certificateUsers: [expect.objectContaining({ name: "user", clientCertificateData: expect.any(String), clientKeyData: expect.any(String) })],
    });
    const servers = ((cluster.status?.atProvider?.certificateClusters ?? []) as { name: string }[]).map((entry) => entry.name);
    expect(servers).toEqual(expect.arrayContaining(["internalCluster", "externalCluster"]));

    await apply(NODE_POOL, "workers", {
      providerConfigRef: usesConfig,
      forProvider: {
        name: "workers",
        clusterId,
        flavor: "s3.xlarge.4",
        initialNodeCount: 2,
        availabilityZone: "random",
        keyPair: `kcp-${run}`,
        os: "HCE OS 2.0",
        runtime: "containerd",
        rootVolume: [{ size: 40, volumetype: "SSD" }],
        dataVolumes: [{ size: 100, volumetype: "SSD" }],
      },
    });
    const pool = await ready(NODE_POOL, "workers");
    const poolId = pool.metadata?.annotations?.[EXTERNAL_NAME] ?? "";
    expect(s.sim.state.nodePools.has(poolId)).toBe(true);
    // CCE's normal node pool phase is the empty string, which Terraform's state keeps.
    expect(pool.status?.atProvider).toMatchObject({ id: poolId, status: "", clusterId, flavor: "s3.xlarge.4", initialNodeCount: 2 });
    expect(pool.status?.atProvider).not.toHaveProperty("region");
    expect(condition(pool, "LastAsyncOperation")).toMatchObject({ status: "True", reason: "Success" });

    // crossplane-runtime's usage tracking: one ProviderConfigUsage per MR, named after its uid...
    const tracked = await usages(namespace);
    expect(tracked.find((usage) => usage.metadata?.name === pool.metadata?.uid)?.metadata?.labels?.[PROVIDER_CONFIG_LABEL]).toBe(config);
    expect(tracked.map((usage) => usage.resourceRef?.kind).sort()).toEqual(["ClusterV3", "EIPV1", "KeypairV2", "NodePoolV3", "SubnetV1", "VpcV1"]);
    // ...which its ProviderConfig reconciler counts, holding the config in use.
    const pc = await providerConfigUntil(namespace, config, (current) => current?.status?.users === 6, "counting 6 users");
    expect(pc.metadata?.finalizers).toContain(IN_USE_FINALIZER);
  }, TEST_TIMEOUT_MS);

  it("scales a node pool in place and refuses a ForceNew change without touching OTC", async () => {
    const pool = await get(NODE_POOL, "workers");
    const poolId = pool?.metadata?.annotations?.[EXTERNAL_NAME] ?? "";
    const spec = pool?.spec as { forProvider: Record<string, unknown>; providerConfigRef: unknown };
    await apply(NODE_POOL, "workers", { ...spec, forProvider: { ...spec.forProvider, initialNodeCount: 3 } });
    const scaled = await until(NODE_POOL, "workers", (mr) => mr?.status?.atProvider?.initialNodeCount === 3 && condition(mr, "AsyncOperation").status === "True");
    expect(s.sim.state.nodePools.get(poolId)?.initialNodeCount).toBe(3);
    expect(condition(scaled, "LastAsyncOperation")).toMatchObject({ status: "True", reason: "Success" });

    const before = s.sim.state.nodePools.get(poolId)?.generation;
    await apply(NODE_POOL, "workers", { ...spec, forProvider: { ...spec.forProvider, initialNodeCount: 3, flavor: "s3.2xlarge.2" } });
    const refused = await until(NODE_POOL, "workers", (mr) => condition(mr, "Synced").status === "False");
    expect(condition(refused, "Synced")).toMatchObject({
      reason: "ReconcileError",
      message:
        'update failed: refuse to update the external resource because the following update requires replacing it: cannot change the value of the argument "flavor" from "s3.xlarge.4" to "s3.2xlarge.2"',
    });
    // Refused before any operation: the last one, the scale-out, stands, and so does the pool.
    expect(condition(refused, "LastAsyncOperation")).toMatchObject({ status: "True", reason: "Success" });
    expect(condition(refused, "Ready").status).toBe("True");
    expect(s.sim.state.nodePools.get(poolId)).toMatchObject({ flavor: "s3.xlarge.4", generation: before });

    await apply(NODE_POOL, "workers", { ...spec, forProvider: { ...spec.forProvider, initialNodeCount: 3 } });
    await ready(NODE_POOL, "workers");
  }, TEST_TIMEOUT_MS);

  it("leaves a SoldOut node pool Ready with its create failed", async () => {
    const pool = await get(NODE_POOL, "workers");
    const spec = pool?.spec as { forProvider: Record<string, unknown>; providerConfigRef: unknown };
    await apply(NODE_POOL, "sold-out", { ...spec, forProvider: { ...spec.forProvider, name: "sold-out", flavor: "s3.large.2", initialNodeCount: 1 } });
    const soldOut = await until(
      NODE_POOL,
      "sold-out",
      (mr) => condition(mr, "LastAsyncOperation").status === "False" && condition(mr, "Ready").status === "True" && mr?.status?.atProvider?.status === "SoldOut",
    );
    expect(condition(soldOut, "LastAsyncOperation")).toMatchObject({
      reason: "ApplyFailure",
      message: "apply failed: error waiting for Open Telekom Cloud CCE Node Pool to become available: unexpected state 'SoldOut', wanted target ''",
    });
    expect(condition(soldOut, "Ready")).toMatchObject({ reason: "Available" });
    // The pool's ID is recorded before the wait fails: the MR knows what to delete.
    expect(s.sim.state.nodePools.get(soldOut.metadata?.annotations?.[EXTERNAL_NAME] ?? "")?.phase).toBe("SoldOut");
    await deleteMr(NODE_POOL, "sold-out");
  }, TEST_TIMEOUT_MS);

  it("fails to delete a VPC while its subnet is left (DestroyFailure) and deletes it once the subnet is gone", async () => {
    await deleteMr(NODE_POOL, "workers");
    await kube.delete(mrPath(VPC, namespace, "vpc"));
    const refused = await until(VPC, "vpc", (mr) => condition(mr, "LastAsyncOperation").reason === "DestroyFailure" && condition(mr, "Synced").status === "False");
    expect(condition(refused, "LastAsyncOperation")).toMatchObject({ status: "False", message: expect.stringMatching(/^destroy failed: .*HTTP 409/) });
    expect(condition(refused, "Synced")).toMatchObject({ reason: "ReconcileError", message: expect.stringMatching(/^delete failed: destroy failed: .*HTTP 409/) });
    expect(condition(refused, "Ready")).toMatchObject({ status: "False", reason: "Deleting" });
    expect(refused.metadata?.finalizers).toContain(MR_FINALIZER);
    expect(s.sim.state.vpcs.has(refused.metadata?.annotations?.[EXTERNAL_NAME] ?? "")).toBe(true);

    await deleteMr(CLUSTER, "cluster");
    await deleteMr(SUBNET, "subnet");
    await gone(mrPath(VPC, namespace, "vpc"));
    await deleteMr(EIP, "api");
    await deleteMr(KEYPAIR, "workers");
    // The connection Secret goes with its owner, by garbage collection.
    await gone(`/api/v1/namespaces/${namespace}/secrets/api-connection`);
  }, TEST_TIMEOUT_MS);

  itLeavesOtcEmpty(s);
});
