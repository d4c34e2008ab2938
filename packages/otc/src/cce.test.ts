import { describe, expect, it, jest } from "@jest/globals";
import { REDACTED, RELEASE_GRACE_MS, releaseSecrets, scrubText } from "@edgeconnect/redaction";
import {
  bindCceMasterEip,
  createCceCluster,
  createCceNodePool,
  deleteCceCluster,
  deleteCceNodePool,
  getCceCluster,
  getCceClusterCert,
  getCceNodePool,
  unbindCceMasterEip,
  updateCceNodePool,
  type CreateCceCluster,
  type CreateCceNodePool,
} from "./cce.js";
import { OtcApiError } from "./errors.js";
import { SilentServer, TEST_PASSWORD, TEST_PROJECT, isTokenRequest, testClient, tokenAnswer, useLoopback } from "./loopback.fixture.js";

const CLUSTERS = `/api/v3/projects/${TEST_PROJECT}/clusters`;
const NOT_FOUND = { status: 404, body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "cluster gone not found", reason: "NotFound", code: 404 } };

const NEW_CLUSTER: CreateCceCluster = {
  metadata: { name: "kcp-abc" },
  spec: {
    type: "VirtualMachine",
    flavor: "cce.s1.small",
    version: "v1.31",
    hostNetwork: { vpc: "v1", subnet: "n1" },
    containerNetwork: { mode: "vpc-router", cidr: "10.0.0.0/16" },
    authentication: { mode: "rbac" },
    masters: [{ availabilityZone: "eu-de-01" }],
  },
};
const CLUSTER = {
  kind: "Cluster",
  apiVersion: "v3",
  metadata: { uid: "c1", name: "kcp-abc", creationTimestamp: "2025-05-06 07:00:00.000 +0000 UTC" },
  spec: NEW_CLUSTER.spec,
  status: { phase: "Creating", endpoints: [{ url: "https://192.168.0.10:5443", type: "Internal" }] },
};
const NEW_POOL: CreateCceNodePool = {
  metadata: { name: "kcp-abc-pool" },
  spec: {
    type: "vm",
    initialNodeCount: 2,
    nodeTemplate: {
      flavor: "s3.xlarge.4",
      az: "random",
      os: "HCE OS 2.0",
      login: { sshKey: "kcp-abc" },
      rootVolume: { size: 50, volumetype: "SSD" },
      dataVolumes: [{ size: 100, volumetype: "SSD" }],
      runtime: { name: "containerd" },
    },
  },
};
const POOL = { kind: "NodePool", apiVersion: "v3", metadata: { uid: "np1", name: "kcp-abc-pool" }, spec: NEW_POOL.spec, status: { phase: "", currentNode: 2 } };

describe("CCE", () => {
  const env = useLoopback();

  const sent = () => env.loopback.requests.map((r) => [r.method, r.url, r.body === "" ? undefined : (JSON.parse(r.body) as unknown)]);

  it("creates a cluster as a Kubernetes-style v3 object", async () => {
    env.loopback.reset(() => ({ status: 201, body: CLUSTER }));
    expect(await createCceCluster(env.client, NEW_CLUSTER)).toEqual(CLUSTER);
    expect(sent()).toEqual([["POST", CLUSTERS, { kind: "Cluster", apiVersion: "v3", ...NEW_CLUSTER }]]);
  });

  it("gets a cluster, undefined once gone", async () => {
    env.loopback.reset((r) => (r.path === `${CLUSTERS}/c1` ? { body: { ...CLUSTER, status: { phase: "Available" } } } : NOT_FOUND));
    expect(await getCceCluster(env.client, "c1")).toMatchObject({ status: { phase: "Available" } });
    expect(await getCceCluster(env.client, "gone")).toBeUndefined();
    expect(sent()).toEqual([
      ["GET", `${CLUSTERS}/c1`, undefined],
      ["GET", `${CLUSTERS}/gone`, undefined],
    ]);
  });

  it("deletes a cluster with the delete options given, false once gone", async () => {
    env.loopback.reset((r) => (r.path === `${CLUSTERS}/c1` ? { body: { ...CLUSTER, status: { phase: "Deleting" } } } : NOT_FOUND));
    expect(await deleteCceCluster(env.client, "c1", { deleteEvs: "try", deleteNet: "true", deleteObs: "false", deleteSfs: "try", deleteEfs: "try" })).toBe(true);
    expect(await deleteCceCluster(env.client, "gone")).toBe(false);
    expect(sent()).toEqual([
      ["DELETE", `${CLUSTERS}/c1?delete_evs=try&delete_net=true&delete_obs=false&delete_sfs=try&delete_efs=try`, undefined],
      ["DELETE", `${CLUSTERS}/gone`, undefined],
    ]);
  });

  it("binds and unbinds the master EIP", async () => {
    env.loopback.reset(() => ({ body: { spec: { action: "bind", spec: { id: "e1" }, elasticIp: "80.158.1.1" } } }));
    await bindCceMasterEip(env.client, "c1", "e1");
    await unbindCceMasterEip(env.client, "c1", "e1");
    expect(sent()).toEqual([
      ["PUT", `${CLUSTERS}/c1/mastereip`, { spec: { action: "bind", spec: { id: "e1" } } }],
      ["PUT", `${CLUSTERS}/c1/mastereip`, { spec: { action: "unbind", spec: { id: "e1" } } }],
    ]);
  });

  describe("cluster certificate", () => {
    const key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAcce-test-client-key\n-----END RSA PRIVATE KEY-----\n";
    const cert = "-----BEGIN CERTIFICATE-----\nMIIDcce-test-client-certificate\n-----END CERTIFICATE-----\n";
    const base64 = (text: string): string => Buffer.from(text, "utf8").toString("base64");
    const kubeconfig = {
      kind: "Config",
      apiVersion: "v1",
      preferences: {},
      clusters: [
        { name: "internalCluster", cluster: { server: "https://192.168.0.10:5443", "certificate-authority-data": base64("ca") } },
        { name: "externalCluster", cluster: { server: "https://80.158.1.1:5443", "insecure-skip-tls-verify": true } },
      ],
      users: [{ name: "user", user: { "client-certificate-data": base64(cert), "client-key-data": base64(key) } }],
      contexts: [
        { name: "internal", context: { cluster: "internalCluster", user: "user" } },
        { name: "external", context: { cluster: "externalCluster", user: "user" } },
      ],
      "current-context": "external",
    };

    it("asks for a duration and registers the client key and certificate, base64 and decoded, before returning", async () => {
      env.loopback.reset(() => ({ body: kubeconfig }));
      expect(await getCceClusterCert(env.client, "c1", 30)).toEqual(kubeconfig);
      expect(sent()).toEqual([["POST", `${CLUSTERS}/c1/clustercert`, { duration: 30 }]]);
      expect(scrubText(base64(key))).toBe(REDACTED);
      expect(scrubText(key)).toBe(REDACTED);
      expect(scrubText(`client-certificate-data: ${base64(cert)}`)).toBe(`client-certificate-data: ${REDACTED}`);
    });

    it("holds the key material by the holder given, which lets it go", async () => {
      // Not PEM: a PEM private key is hidden by its shape, held or not.
      const holderKey = "cce-held-client-key-material-0001";
      env.loopback.reset(() => ({ body: { ...kubeconfig, users: [{ name: "user", user: { "client-certificate-data": base64(cert), "client-key-data": base64(holderKey) } }] } }));
      const holder = { tenant: "cce-test-tenant", name: "clustercert/default/c1" };
      await getCceClusterCert(env.client, "c1", 30, { secretHolder: holder });
      expect(scrubText(holderKey)).toBe(REDACTED);
      jest.useFakeTimers({ doNotFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "clearImmediate", "nextTick", "queueMicrotask", "hrtime", "performance"] });
      try {
        releaseSecrets(holder);
        jest.setSystemTime(Date.now() + RELEASE_GRACE_MS);
        expect(scrubText(holderKey)).toBe(holderKey);
      } finally {
        jest.useRealTimers();
      }
    });

    it("never quotes a broken answer, which may hold a key", async () => {
      const truncated = JSON.stringify(kubeconfig).slice(0, 500).replace(base64(key).slice(0, 20), "KEYSTART-do-not-show");
      env.loopback.reset(() => ({ body: truncated }));
      const error = await getCceClusterCert(env.client, "c1", 30).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OtcApiError);
      expect((error as OtcApiError).message).toBe(`POST ${CLUSTERS}/c1/clustercert: HTTP 200: answer is not JSON`);
      expect(JSON.stringify([String(error), (error as Error).stack, JSON.stringify(error)])).not.toContain("KEYSTART");
    });

    it("reports CCE's refusal while the cluster is not Available", async () => {
      env.loopback.reset(() => ({ status: 400, body: { kind: "Status", apiVersion: "v1", status: "Failure", message: "cluster is not available", reason: "BadRequest", code: 400 } }));
      await expect(getCceClusterCert(env.client, "c1", 30)).rejects.toMatchObject({ status: 400, code: "BadRequest", otcMessage: "cluster is not available" });
    });
  });

  it("creates, gets and deletes node pools of a cluster, tolerating 404", async () => {
    const pools = `${CLUSTERS}/c1/nodepools`;
    env.loopback.reset((r) => {
      if (r.method === "POST") return { status: 201, body: { ...POOL, status: { phase: "Synchronizing", currentNode: 0 } } };
      return r.path === `${pools}/np1` ? { body: POOL } : NOT_FOUND;
    });
    expect(await createCceNodePool(env.client, "c1", NEW_POOL)).toMatchObject({ status: { phase: "Synchronizing" } });
    expect(await getCceNodePool(env.client, "c1", "np1")).toEqual(POOL);
    expect(await getCceNodePool(env.client, "c1", "gone")).toBeUndefined();
    expect(await deleteCceNodePool(env.client, "c1", "np1")).toBe(true);
    expect(await deleteCceNodePool(env.client, "c1", "gone")).toBe(false);
    expect(sent()).toEqual([
      ["POST", pools, { kind: "NodePool", apiVersion: "v3", ...NEW_POOL }],
      ["GET", `${pools}/np1`, undefined],
      ["GET", `${pools}/gone`, undefined],
      ["DELETE", `${pools}/np1`, undefined],
      ["DELETE", `${pools}/gone`, undefined],
    ]);
  });

  it("scales a node pool by sending it back with the new count", async () => {
    const pools = `${CLUSTERS}/c1/nodepools`;
    env.loopback.reset((r) => (r.method === "GET" ? { body: POOL } : { body: { ...POOL, spec: { ...POOL.spec, initialNodeCount: 5 } } }));
    expect(await updateCceNodePool(env.client, "c1", "np1", { initialNodeCount: 5 })).toMatchObject({ spec: { initialNodeCount: 5 } });
    expect(sent()).toEqual([
      ["GET", `${pools}/np1`, undefined],
      ["PUT", `${pools}/np1`, { kind: "NodePool", apiVersion: "v3", metadata: { name: "kcp-abc-pool" }, spec: { ...NEW_POOL.spec, initialNodeCount: 5 } }],
    ]);
  });

  it("takes only CCE's own 404 for gone: the API gateway's unpublished route is retried, then reported", async () => {
    env.loopback.reset(() => ({ status: 404, body: { error_code: "APIGW.0101", error_msg: "The API does not exist or has not been published in the environment" } }));
    await expect(getCceNodePool(env.client, "c1", "p1")).rejects.toMatchObject({ status: 404, code: "APIGW.0101", notFound: false, retryable: true });
    await expect(deleteCceNodePool(env.client, "c1", "p1")).rejects.toMatchObject({ status: 404, notFound: false });
    expect(env.loopback.requests.length).toBeGreaterThan(2);
    env.loopback.reset(() => NOT_FOUND);
    expect(await getCceNodePool(env.client, "c1", "p1")).toBeUndefined();
    expect(await deleteCceNodePool(env.client, "c1", "p1")).toBe(false);
  });

  it("fails to scale a node pool that is gone with a 404", async () => {
    env.loopback.reset(() => NOT_FOUND);
    await expect(updateCceNodePool(env.client, "c1", "gone", { initialNodeCount: 1 })).rejects.toMatchObject({ status: 404, notFound: true });
    expect(env.loopback.requests).toHaveLength(1);
  });

  it("authenticates CCE calls with a password's token and the token's project", async () => {
    env.loopback.reset((r) => (isTokenRequest(r) ? tokenAnswer("cce-token-value-1", new Date()) : { body: CLUSTER }));
    const client = env.loopback.client({ credentials: TEST_PASSWORD, projectId: undefined });
    await client.authenticate();
    await getCceCluster(client, "c1");
    client.close();
    const [, call] = env.loopback.requests;
    expect(call?.path).toBe(`/api/v3/projects/${client.projectId}/clusters/c1`);
    expect(call?.headers["x-auth-token"]).toBe("cce-token-value-1");
  });

  it("ends a call CCE never answers at once, with the signal's reason", async () => {
    const silent = await SilentServer.start();
    const client = testClient(silent.baseUrl);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    const error = await getCceCluster(client, "c1", { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBe(controller.signal.reason);
    expect(performance.now() - started).toBeLessThan(1000);
    await silent.allClosed();
    client.close();
    await silent.stop();
  });
});
