/**
 * The access-request controller in the provider's `run`, against a real
 * platform cluster and a real workload cluster: a second kube-apiserver,
 * which issues TokenRequests, authenticates ServiceAccount tokens and
 * enforces RBAC, so every grant is proven by using the issued kubeconfig.
 * Covered: the grant and its limits, a changed request, denials, waits for
 * the Cluster, responsibility, renewal, revocation on deletion, a stalled
 * workload cluster, and no token in status, Events or the provider's log.
 *
 * The test plays the components that do not run here: Cluster API's
 * control plane (it writes `<cluster>-kubeconfig` with the workload
 * server's admin kubeconfig), the cluster controller (Cluster status), and
 * openMCP's generic AccessRequest controller (labels, clusterRef, `Pending`).
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ACCESS_REQUEST, CAPI_CLUSTER, collectionPath, objectPath, OPENMCP_CLUSTER, type AccessRequestV1alpha1Spec } from "@edgeconnect/capi-provider-api";
import { HttpStatusError, RestClient, type KubeObject } from "@edgeconnect/kcp-ts";
import { connectFromEnv, E2E_LOG_DIR_ENV_VAR, eventually, holds, KubeApiServer, OidcIssuer, renderKubeconfig, resolveControlPlaneBinaries } from "@edgeconnect/testenv";
import { readFileSync } from "node:fs";
import { connect as connectTcp, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { ACCESS_REQUEST_NAME_LABEL, ACCESS_REQUEST_NAMESPACE_LABEL } from "../access/token-access.js";
import type { OpenMcpCluster } from "../config/provider-config-reconciler.js";
import { OPERATION_ANNOTATION, PROFILE_LABEL, PROVIDER_LABEL } from "../openmcp/constants.js";
import { MANAGED_BY_LABEL, OPENMCP_CLUSTER_NAME_LABEL, OPENMCP_CLUSTER_NAMESPACE_LABEL, providerKeys } from "../provider/provider-identity.js";
import { PROVIDER_NAME, runProvider, startPlatform, type Platform, type RunningProvider } from "../testing/platform.fixture.js";
import type { AccessRequest } from "./access-request-reconciler.js";

/** The keys the provider under test (PROVIDER_NAME) marks its own objects with. */
const KEYS = providerKeys({ providerName: PROVIDER_NAME });

const { state } = connectFromEnv();
// Only where the environment runs a local kube-apiserver (not kind, not skipped) is there a binary to start another.
const ownCluster = state.infra.mode === "kube-apiserver" && !("skipped" in state.infra);
const describeInfra = ownCluster ? describe : describe.skip;

const NAMESPACE = "access";
const ACCESS_NAMESPACE = "openmcp-access";
/**
 * Outside `test.capi.`: our own cluster controller also runs, and for a
 * profile in our namespace of names that has no ClusterProfile it would set
 * ProfileNotFound and phase Progressing over the status this test writes.
 */
const PROFILE = "elsewhere.profile";
const RESPONSIBLE = { [PROVIDER_LABEL]: PROVIDER_NAME, [PROFILE_LABEL]: PROFILE };
const MERGE = "application/merge-patch+json";
const RBAC = "/apis/rbac.authorization.k8s.io/v1";
const DAY_SECONDS = 24 * 3600;
const LOG_NAME = "cluster-provider-capi-access-requests";
const OIDC_CLIENT_ID = "mcp";

interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

interface CoreEvent extends KubeObject {
  type: string;
  reason: string;
  message: string;
}

interface Binding extends KubeObject {
  roleRef: { kind: string; name: string };
  subjects: { kind: string; name: string; namespace: string }[];
}

interface KubeconfigDocument {
  clusters: { cluster: { server: string; "certificate-authority-data"?: string } }[];
  users: { user: { token?: string } }[];
}

const base64 = (text: string): string => Buffer.from(text, "utf8").toString("base64");

/**
 * A TCP relay that can stall: accepted connections get no bytes through in
 * either direction until `resume`. StallingProxy speaks plain HTTP to its
 * clients, and a token kubeconfig must name an https server; through this
 * relay TLS runs end to end, and the workload server's certificate (issued
 * for 127.0.0.1, whatever the port) still matches its CA.
 */
class StallingRelay {
  private stalled = false;
  private held: (() => void)[] = [];
  private readonly sockets = new Set<Socket>();
  /** When each client connection arrived, in ms since the epoch. */
  readonly connectedAt: number[] = [];

  private constructor(
    private readonly server: Server,
    upstream: URL,
  ) {
    server.on("connection", (client) => {
      this.connectedAt.push(Date.now());
      const target = connectTcp(Number(upstream.port), upstream.hostname);
      for (const socket of [client, target]) {
        this.sockets.add(socket);
        socket.on("close", () => {
          this.sockets.delete(socket);
          client.destroy();
          target.destroy();
        });
        socket.on("error", () => socket.destroy());
      }
      this.relay(client, target);
      this.relay(target, client);
    });
  }

  static async start(upstream: string): Promise<StallingRelay> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return new StallingRelay(server, new URL(upstream));
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stall(): void {
    this.stalled = true;
  }

  resume(): void {
    this.stalled = false;
    const held = this.held;
    this.held = [];
    for (const send of held) send();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(from: Socket, to: Socket): void {
    from.on("data", (chunk: Buffer) => {
      const send = (): void => {
        if (!to.destroyed) to.write(chunk);
      };
      if (this.stalled) this.held.push(send);
      else send();
    });
  }
}

/** `ok`, or the HTTP status the call failed with. */
async function outcome(call: Promise<unknown>): Promise<"ok" | number> {
  try {
    await call;
    return "ok";
  } catch (err) {
    if (err instanceof HttpStatusError) return err.status;
    throw err;
  }
}

/** Waits for `call` to succeed: RBAC objects reach the authorizer through its informers, a moment after they are written. */
async function allowed(call: () => Promise<unknown>, what: string): Promise<void> {
  await eventually(
    async () => {
      const result = await outcome(call());
      return holds(result === "ok", `HTTP ${result}`);
    },
    { description: what, timeoutMs: 10_000 },
  );
}

describeInfra("access-request controller on a real platform and workload cluster", () => {
  let platform: Platform;
  let kube: RestClient;
  let workload: KubeApiServer;
  let issuer: OidcIssuer;
  let admin: RestClient;
  let adminKubeconfig: string;
  let workloadCa: string;
  let provider: RunningProvider | undefined;
  let relay: StallingRelay | undefined;
  const relays: StallingRelay[] = [];
  const clients: RestClient[] = [];
  /** Every token the test saw, for the leak check at the end. */
  const tokens: string[] = [];

  beforeAll(async () => {
    platform = await startPlatform();
    kube = platform.client;
    issuer = await OidcIssuer.start({ reaper: platform.reaper });
    // As a template set makes a workload API server trust an OIDC provider: its issuer, its client ID as audience, its default prefixes.
    const trust = issuer.jwtAuthenticator({ audiences: [OIDC_CLIENT_ID], usernamePrefix: "corp:", groupsPrefix: "corp:" });
    workload = await KubeApiServer.start({ ...(await resolveControlPlaneBinaries()), reaper: platform.reaper, authenticationConfiguration: { jwt: [trust] } });
    admin = workload.adminClient();
    adminKubeconfig = readFileSync(workload.kubeconfigPath, "utf8");
    workloadCa = Buffer.from((parse(adminKubeconfig) as KubeconfigDocument).clusters[0]?.cluster["certificate-authority-data"] ?? "", "base64").toString("utf8");

    // kube-apiserver bootstraps `view` with an aggregationRule only; kube-controller-manager's aggregation controller fills its rules.
    await eventually(
      async () => holds(((await admin.get<KubeObject & { rules?: unknown[] }>(`${RBAC}/clusterroles/view`)).rules ?? []).length > 0, "ClusterRole view has no rules yet"),
      { description: "ClusterRole view aggregated" },
    );
    await admin.create("/api/v1/namespaces/default/pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "visible" },
      spec: { containers: [{ name: "main", image: "registry.k8s.io/pause:3.10" }] },
    });

    await kube.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } });
    await createCluster("healthy", "Ready", adminKubeconfig);
    // A log of its own: the leak check below reads what this suite's provider wrote, not other suites'.
    provider = runProvider(platform, { logName: LOG_NAME });
  }, 300_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await provider?.stop();
    await relay?.close();
    for (const own of relays) await own.close();
    admin?.close();
    await workload?.stop();
    // Its server would keep the test process alive.
    await issuer?.stop();
    await platform?.stop();
  }, 120_000);

  const arPath = (name: string): string => objectPath(ACCESS_REQUEST, NAMESPACE, name);
  const clusterPath = (name: string): string => objectPath(OPENMCP_CLUSTER, NAMESPACE, name);
  const secretPath = (name: string): string => `/api/v1/namespaces/${NAMESPACE}/secrets/${name}`;
  const getAr = (name: string): Promise<AccessRequest> => kube.get<AccessRequest>(arPath(name));

  /** As Cluster API's control plane provider writes it. */
  async function writeCapiKubeconfig(cluster: string, kubeconfig: string): Promise<void> {
    await kube.create(`/api/v1/namespaces/${NAMESPACE}/secrets`, {
      apiVersion: "v1",
      kind: "Secret",
      type: "cluster.x-k8s.io/secret",
      metadata: { name: `${cluster}-kubeconfig`, namespace: NAMESPACE, labels: { "cluster.x-k8s.io/cluster-name": cluster } },
      data: { value: base64(kubeconfig) },
    });
  }

  /** The Cluster and, playing the cluster controller, its status; with `kubeconfig`, first Cluster API's Secret. */
  async function createCluster(name: string, phase: "Ready" | "Progressing", kubeconfig?: string): Promise<void> {
    if (kubeconfig !== undefined) await writeCapiKubeconfig(name, kubeconfig);
    const cluster = await kube.create<OpenMcpCluster>(collectionPath(OPENMCP_CLUSTER, NAMESPACE), {
      apiVersion: OPENMCP_CLUSTER.apiVersion,
      kind: OPENMCP_CLUSTER.kind,
      metadata: { name, namespace: NAMESPACE },
      spec: { profile: PROFILE, tenancy: "Exclusive", purposes: ["test"] },
    });
    await kube.request("PATCH", `${clusterPath(name)}/status`, {
      body: { status: { observedGeneration: cluster.metadata.generation ?? 1, phase } },
      contentType: MERGE,
    });
  }

  /** Phase `Pending`, as openMCP's generic controller sets it once it has labelled and resolved the request. */
  async function markPending(name: string): Promise<void> {
    const ar = await getAr(name);
    await kube.request("PATCH", `${arPath(name)}/status`, { body: { status: { observedGeneration: ar.metadata.generation ?? 0, phase: "Pending" } }, contentType: MERGE });
  }

  async function requestAccess(name: string, spec: AccessRequestV1alpha1Spec, options: { labels?: Record<string, string>; pending?: boolean } = {}): Promise<void> {
    await kube.create(collectionPath(ACCESS_REQUEST, NAMESPACE), {
      apiVersion: ACCESS_REQUEST.apiVersion,
      kind: ACCESS_REQUEST.kind,
      metadata: { name, namespace: NAMESPACE, labels: options.labels ?? RESPONSIBLE },
      spec,
    });
    if (options.pending ?? true) await markPending(name);
  }

  /** The request in `phase` for its current generation, with a condition of `reason` when given. */
  async function waitFor(name: string, phase: "Pending" | "Granted" | "Denied", reason?: string, timeoutMs?: number): Promise<AccessRequest> {
    return eventually(
      async () => {
        const ar = await getAr(name);
        const reasons = (ar.status?.conditions ?? []).map((condition) => condition.reason);
        const ok = ar.status?.phase === phase && ar.status.observedGeneration === ar.metadata.generation && (reason === undefined || reasons.includes(reason));
        return holds(ok, `phase ${ar.status?.phase}, generation ${ar.metadata.generation} observed ${ar.status?.observedGeneration}, reasons ${reasons.join(",")}`, ar);
      },
      { description: `${name} ${phase}${reason === undefined ? "" : ` (${reason})`}`, ...(timeoutMs === undefined ? {} : { timeoutMs }) },
    );
  }

  /** The decoded data of the request's Secret. */
  async function issued(name: string): Promise<Record<string, string>> {
    const secret = await kube.get<Secret>(secretPath(`${name}.kubeconfig`));
    const data = Object.fromEntries(Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, "base64").toString("utf8")]));
    if (data.token !== undefined) tokens.push(data.token);
    return data;
  }

  /** A client with the issued kubeconfig, as the requester uses it. */
  function clientOf(data: Record<string, string>): RestClient {
    const client = RestClient.fromKubeconfigText(data.kubeconfig ?? "");
    clients.push(client);
    return client;
  }

  /** Every object in the workload cluster labelled for the request, as `Kind [namespace/]name`. */
  async function workloadObjectsOf(name: string): Promise<string[]> {
    const labelSelector = `${ACCESS_REQUEST_NAMESPACE_LABEL}=${NAMESPACE},${ACCESS_REQUEST_NAME_LABEL}=${name}`;
    const kinds = [
      ["ServiceAccount", "/api/v1/serviceaccounts"],
      ["Role", `${RBAC}/roles`],
      ["RoleBinding", `${RBAC}/rolebindings`],
      ["ClusterRole", `${RBAC}/clusterroles`],
      ["ClusterRoleBinding", `${RBAC}/clusterrolebindings`],
    ] as const;
    const found = await Promise.all(
      kinds.map(async ([kind, path]) => {
        const list = await admin.list(path, { query: { labelSelector } });
        return list.items.map((item) => `${kind} ${item.metadata?.namespace === undefined ? "" : `${item.metadata.namespace}/`}${item.metadata?.name}`);
      }),
    );
    return found.flat().sort();
  }

  async function serviceAccountOf(name: string): Promise<KubeObject> {
    const list = await admin.list(`/api/v1/namespaces/${ACCESS_NAMESPACE}/serviceaccounts`, { query: { labelSelector: `${ACCESS_REQUEST_NAME_LABEL}=${name}` } });
    expect(list.items).toHaveLength(1);
    return list.items[0] as KubeObject;
  }

  async function eventsOf(name: string): Promise<CoreEvent[]> {
    return (await kube.list<CoreEvent>(`/api/v1/namespaces/${NAMESPACE}/events`, { query: { fieldSelector: `involvedObject.name=${name}` } })).items;
  }

  const lifetimeOf = (data: Record<string, string>): number => Number(data.expirationTimestamp) - Number(data.creationTimestamp);
  const conditionOf = (ar: AccessRequest, type: string): { status?: string; reason?: string; message?: string; observedGeneration?: number } | undefined =>
    ar.status?.conditions?.find((condition) => condition.type === type);

  /** The request still Granted with its Secret, and condition `type` as given, for its current generation. */
  async function waitForCondition(name: string, type: string, status: "True" | "False", reason: string): Promise<AccessRequest> {
    return eventually(
      async () => {
        const ar = await getAr(name);
        const condition = conditionOf(ar, type);
        const ok = condition?.status === status && condition.reason === reason && ar.status?.observedGeneration === ar.metadata.generation;
        return holds(ok, `${type} ${condition?.status} ${condition?.reason}`, ar);
      },
      { description: `${name} ${type}=${status} (${reason})`, timeoutMs: 40_000 },
    );
  }

  /** A Cluster reached through a relay of its own, which counts the provider's connections to the workload cluster. */
  async function clusterThroughRelay(name: string): Promise<StallingRelay> {
    const own = await StallingRelay.start(workload.url);
    relays.push(own);
    const throughRelay = parse(adminKubeconfig) as KubeconfigDocument;
    for (const entry of throughRelay.clusters) entry.cluster.server = own.url;
    await createCluster(name, "Ready", stringify(throughRelay));
    return own;
  }

  const teamConfigMaps = { namespace: "team-a", rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "create"] }] };
  const listNamespaces = { rules: [{ apiGroups: [""], resources: ["namespaces"], verbs: ["get", "list"] }] };
  const healthy = { namespace: NAMESPACE, name: "healthy" };

  it("grants a token with exactly the requested permissions, in a Secret owned by the request", async () => {
    await requestAccess("grant", { clusterRef: healthy, token: { permissions: [teamConfigMaps, listNamespaces], roleRefs: [{ kind: "ClusterRole", name: "view" }] } });
    const ar = await waitFor("grant", "Granted");
    expect(ar.status?.secretRef?.name).toBe("grant.kubeconfig");
    expect(ar.metadata.finalizers).toContain(KEYS.finalizers.accessRequest);
    expect(ar.status?.conditions?.find((condition) => condition.type === "AccessGranted")).toMatchObject({ status: "True", reason: "TokenIssued" });

    const secret = await kube.get<Secret>(secretPath("grant.kubeconfig"));
    expect(Object.keys(secret.data ?? {}).sort()).toEqual(["ca.crt", "creationTimestamp", "expirationTimestamp", "host", "kubeconfig", "token"]);
    expect(secret.metadata?.ownerReferences).toEqual([
      { apiVersion: ACCESS_REQUEST.apiVersion, kind: "AccessRequest", name: "grant", uid: ar.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    const data = await issued("grant");
    expect(data.host).toBe(workload.url);
    expect(data["ca.crt"]).toBe(workloadCa);
    // Thirty days, as openMCP's kind and Gardener providers issue them.
    expect(Math.abs(lifetimeOf(data) - 30 * DAY_SECONDS)).toBeLessThan(60);
    const kubeconfig = parse(data.kubeconfig ?? "") as KubeconfigDocument;
    expect(kubeconfig.clusters[0]?.cluster.server).toBe(workload.url);
    expect(kubeconfig.users[0]?.user.token).toBe(data.token);

    const sa = (await serviceAccountOf("grant")).metadata?.name ?? "";
    expect(await workloadObjectsOf("grant")).toEqual(
      [
        `ServiceAccount ${ACCESS_NAMESPACE}/${sa}`,
        `Role team-a/openmcp:${sa}:permission:0`,
        `RoleBinding team-a/openmcp:${sa}:permission:0`,
        `ClusterRole openmcp:${sa}:permission:1`,
        `ClusterRoleBinding openmcp:${sa}:permission:1`,
        `ClusterRoleBinding openmcp:${sa}:roleref:0`,
      ].sort(),
    );
    const viewBinding = await admin.get<Binding>(`${RBAC}/clusterrolebindings/openmcp:${sa}:roleref:0`);
    expect(viewBinding.metadata?.labels?.[MANAGED_BY_LABEL]).toBe("cluster-provider-capi");
    expect(viewBinding.roleRef).toMatchObject({ kind: "ClusterRole", name: "view" });
    expect(viewBinding.subjects).toEqual([{ kind: "ServiceAccount", name: sa, namespace: ACCESS_NAMESPACE }]);
    // Created for the request, but not labelled: it may hold others' objects, so no cleanup may take it.
    const teamA = await admin.get("/api/v1/namespaces/team-a");
    expect(teamA.metadata?.labels?.[ACCESS_REQUEST_NAME_LABEL]).toBeUndefined();

    const user = clientOf(data);
    const review = await user.create<{ status: { userInfo: { username: string } } }>("/apis/authentication.k8s.io/v1/selfsubjectreviews", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    });
    expect(review.status.userInfo.username).toBe(`system:serviceaccount:${ACCESS_NAMESPACE}:${sa}`);
    await allowed(() => user.list("/api/v1/namespaces/team-a/configmaps"), "ConfigMaps of team-a readable");
    await user.create("/api/v1/namespaces/team-a/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "made-with-the-token" }, data: { by: "requester" } });
    const configMaps = await user.list("/api/v1/namespaces/team-a/configmaps");
    expect(configMaps.items.map((item) => item.metadata?.name)).toContain("made-with-the-token");
    expect((await user.list("/api/v1/namespaces")).items.map((item) => item.metadata?.name)).toContain("team-a");
    expect((await user.get("/api/v1/namespaces/default/pods/visible")).metadata?.name).toBe("visible");

    expect(await outcome(user.list("/api/v1/namespaces/kube-system/secrets"))).toBe(403);
    expect(await outcome(user.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "not-allowed" } }))).toBe(403);
    expect(await outcome(user.create("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "not-allowed" } }))).toBe(403);
  });

  it("follows a changed spec.token: deletes what is no longer asked for and issues a new token", async () => {
    await requestAccess("change", { clusterRef: healthy, token: { permissions: [teamConfigMaps, listNamespaces] } });
    await waitFor("change", "Granted");
    const before = await issued("change");
    const sa = (await serviceAccountOf("change")).metadata?.name ?? "";
    expect(await workloadObjectsOf("change")).toContain(`ClusterRole openmcp:${sa}:permission:1`);

    await kube.request("PATCH", arPath("change"), { body: { spec: { token: { permissions: [teamConfigMaps] } } }, contentType: MERGE });
    // A changed spec goes back through openMCP's generic controller, which resets the phase.
    await markPending("change");
    const ar = await waitFor("change", "Granted");
    expect(ar.metadata.generation).toBe(2);

    expect(await workloadObjectsOf("change")).toEqual(
      [`ServiceAccount ${ACCESS_NAMESPACE}/${sa}`, `Role team-a/openmcp:${sa}:permission:0`, `RoleBinding team-a/openmcp:${sa}:permission:0`].sort(),
    );
    expect(await outcome(admin.get(`${RBAC}/clusterroles/openmcp:${sa}:permission:1`))).toBe(404);
    expect(await outcome(admin.get(`${RBAC}/clusterrolebindings/openmcp:${sa}:permission:1`))).toBe(404);
    const after = await issued("change");
    expect(after.token).not.toBe(before.token);
    const user = clientOf(after);
    await allowed(() => user.list("/api/v1/namespaces/team-a/configmaps"), "ConfigMaps of team-a still readable");
    await eventually(async () => holds((await outcome(user.list("/api/v1/namespaces"))) === 403, "may still list namespaces"), { description: "namespace permission revoked" });
  });

  it("denies invalid rules, OIDC subjects and TTLs with a reason, an Event and no Secret", async () => {
    await Promise.all([
      requestAccess("oidc", {
        clusterRef: healthy,
        oidc: { name: "portal", issuer: "https://issuer.example.com", clientID: "portal", roleBindings: [{ subjects: [{ kind: "Robot", name: "r2" }], roleRefs: [{ kind: "ClusterRole", name: "view" }] }] },
      }),
      requestAccess("no-verbs", { clusterRef: healthy, token: { permissions: [{ rules: [{ apiGroups: [""], resources: ["pods"], verbs: [] }] }] } }),
      requestAccess("bad-ttl", { clusterRef: healthy, ttl: "forever", token: { permissions: [listNamespaces] } }),
    ]);

    const oidc = await waitFor("oidc", "Denied", "InvalidRequest");
    const noVerbs = await waitFor("no-verbs", "Denied", "InvalidRequest");
    const badTtl = await waitFor("bad-ttl", "Denied", "InvalidRequest");
    const message = (ar: AccessRequest): string => ar.status?.conditions?.find((condition) => condition.type === "AccessGranted")?.message ?? "";
    expect(message(oidc)).toContain("spec.oidc.roleBindings[0].subjects[0].kind");
    expect(message(noVerbs)).toContain("spec.token.permissions[0].rules[0].verbs");
    expect(message(badTtl)).toContain('"forever"');

    for (const [name, reason] of [["oidc", "InvalidRequest"], ["no-verbs", "InvalidRequest"], ["bad-ttl", "InvalidRequest"]] as const) {
      const ar = await getAr(name);
      expect(ar.status?.secretRef).toBeUndefined();
      // Nothing was made for it, so nothing holds its deletion.
      expect(ar.metadata.finalizers ?? []).toEqual([]);
      expect(await outcome(kube.get(secretPath(`${name}.kubeconfig`)))).toBe(404);
      expect(await workloadObjectsOf(name)).toEqual([]);
      await eventually(async () => holds((await eventsOf(name)).some((event) => event.type === "Warning" && event.reason === reason), "no Warning event yet"), {
        description: `${name} Event ${reason}`,
      });
    }
  });

  it("deletes a denied request at once, even when its workload cluster cannot be reached", async () => {
    const unreachable = parse(adminKubeconfig) as KubeconfigDocument;
    // Port 1 on loopback: refused at once, as a workload whose API server is gone.
    for (const entry of unreachable.clusters) entry.cluster.server = "https://127.0.0.1:1";
    await createCluster("gone-workload", "Ready", stringify(unreachable));
    await requestAccess("denied-gone", { clusterRef: { namespace: NAMESPACE, name: "gone-workload" }, token: { permissions: [{ rules: [{ apiGroups: [""], resources: ["pods"], verbs: [] }] }] } });
    await waitFor("denied-gone", "Denied", "InvalidRequest");
    await kube.delete(arPath("denied-gone"));
    await eventually(async () => holds((await outcome(getAr("denied-gone"))) === 404, "AccessRequest still there"), { description: "denied request gone", timeoutMs: 10_000 });
  });

  it("waits for a missing Cluster, an unready one and Cluster API's kubeconfig, creating nothing in the meantime", async () => {
    await createCluster("booting", "Progressing", adminKubeconfig);
    await createCluster("headless", "Ready");
    await Promise.all([
      requestAccess("early", { clusterRef: { namespace: NAMESPACE, name: "late" }, token: { permissions: [listNamespaces] } }),
      requestAccess("unready", { clusterRef: { namespace: NAMESPACE, name: "booting" }, token: { permissions: [listNamespaces] } }),
      requestAccess("no-kubeconfig", { clusterRef: { namespace: NAMESPACE, name: "headless" }, token: { permissions: [listNamespaces] } }),
    ]);

    await waitFor("early", "Pending", "ClusterNotFound");
    await waitFor("unready", "Pending", "ClusterNotReady");
    await waitFor("no-kubeconfig", "Pending", "KubeconfigNotFound");
    // Waiting on the Cluster, not yet on a workload: no finalizer.
    for (const name of ["early", "unready"]) expect((await getAr(name)).metadata.finalizers ?? []).toEqual([]);
    for (const name of ["early", "unready", "no-kubeconfig"]) {
      expect(await workloadObjectsOf(name)).toEqual([]);
      expect(await outcome(kube.get(secretPath(`${name}.kubeconfig`)))).toBe(404);
    }

    await createCluster("late", "Ready", adminKubeconfig);
    await writeCapiKubeconfig("headless", adminKubeconfig);
    await waitFor("early", "Granted");
    // Nothing watches Cluster API's Secrets: the controller looks for the kubeconfig again on its own.
    await waitFor("no-kubeconfig", "Granted");
    expect(await workloadObjectsOf("early")).not.toEqual([]);
    expect((await getAr("unready")).status?.phase).toBe("Pending");
  });

  it("leaves requests of other providers, without a profile label or without a phase untouched", async () => {
    await requestAccess("foreign", { clusterRef: healthy, token: { permissions: [listNamespaces] } }, { labels: { ...RESPONSIBLE, [PROVIDER_LABEL]: "gardener" } });
    await requestAccess("unprofiled", { clusterRef: healthy, token: { permissions: [listNamespaces] } }, { labels: { [PROVIDER_LABEL]: PROVIDER_NAME } });
    await requestAccess("brand-new", { clusterRef: healthy, token: { permissions: [listNamespaces] } }, { pending: false });
    // Created after the others, and far more work: once it is granted, the others have had their turn.
    await requestAccess("control", { clusterRef: healthy, token: { permissions: [listNamespaces] } });
    await waitFor("control", "Granted");

    for (const name of ["foreign", "unprofiled", "brand-new"]) {
      const ar = await getAr(name);
      expect(ar.metadata.finalizers ?? []).toEqual([]);
      expect(ar.status?.conditions ?? []).toEqual([]);
      expect(ar.status?.phase).toBe(name === "brand-new" ? undefined : "Pending");
      expect(await workloadObjectsOf(name)).toEqual([]);
    }

    // Each was held back by exactly the missing piece of openMCP's contract.
    await kube.request("PATCH", arPath("foreign"), { body: { metadata: { labels: { [PROVIDER_LABEL]: PROVIDER_NAME } } }, contentType: MERGE });
    await kube.request("PATCH", arPath("unprofiled"), { body: { metadata: { labels: { [PROFILE_LABEL]: PROFILE } } }, contentType: MERGE });
    await markPending("brand-new");
    await Promise.all(["foreign", "unprofiled", "brand-new"].map((name) => waitFor(name, "Granted")));
  });

  it("renews a token after 80 % of its lifetime on the next reconcile, and removes the reconcile annotation", async () => {
    await requestAccess("renew", { clusterRef: healthy, token: { permissions: [listNamespaces] } });
    await waitFor("renew", "Granted");
    const first = await issued("renew");

    const reconcileNow = async (): Promise<void> => {
      await kube.request("PATCH", arPath("renew"), { body: { metadata: { annotations: { [OPERATION_ANNOTATION]: "reconcile" } } }, contentType: MERGE });
      await eventually(async () => holds((await getAr("renew")).metadata.annotations?.[OPERATION_ANNOTATION] === undefined, "annotation still there"), {
        description: "reconcile annotation removed",
      });
    };
    await reconcileNow();
    expect(await issued("renew")).toEqual(first);
    // The Secret decides, not the request's status, which a lagging cache or openMCP's reset of the phase may show as Pending.
    await markPending("renew");
    await waitFor("renew", "Granted");
    expect(await issued("renew")).toEqual(first);

    const lifetime = Number(first.expirationTimestamp) - Number(first.creationTimestamp);
    const agedCreation = Math.floor(Date.now() / 1000) - Math.ceil(lifetime * 0.85);
    await kube.request("PATCH", secretPath("renew.kubeconfig"), {
      body: { data: { creationTimestamp: base64(String(agedCreation)), expirationTimestamp: base64(String(agedCreation + lifetime)) } },
      contentType: MERGE,
    });
    await reconcileNow();
    const renewed = await issued("renew");
    expect(renewed.token).not.toBe(first.token);
    expect(Number(renewed.creationTimestamp)).toBeGreaterThanOrEqual(Number(first.creationTimestamp));
    expect(Number(renewed.expirationTimestamp)).toBeGreaterThan(agedCreation + lifetime);
    const user = clientOf(renewed);
    await allowed(() => user.list("/api/v1/namespaces"), "namespaces listable with the new token");
  });

  it("revokes on deletion: ServiceAccount, RBAC objects and Secret go, the token stops working, the request disappears", async () => {
    await requestAccess("revoke", { clusterRef: healthy, token: { permissions: [teamConfigMaps, listNamespaces] } });
    await waitFor("revoke", "Granted");
    const user = clientOf(await issued("revoke"));
    await allowed(() => user.list("/api/v1/namespaces"), "namespaces listable");
    expect(await workloadObjectsOf("revoke")).toHaveLength(5);

    await kube.delete(arPath("revoke"));
    await eventually(async () => holds((await outcome(getAr("revoke"))) === 404, "AccessRequest still there"), { description: "revoke gone" });
    expect(await workloadObjectsOf("revoke")).toEqual([]);
    expect(await outcome(kube.get(secretPath("revoke.kubeconfig")))).toBe(404);
    // kube-apiserver caches a successful authentication for ten seconds.
    await eventually(async () => holds((await outcome(user.list("/api/v1/namespaces"))) === 401, "token still accepted"), { description: "token rejected" });
  });

  it("gives up on a stalled workload cluster at the call deadline, serves other requests meanwhile, and grants once it answers", async () => {
    relay = await StallingRelay.start(workload.url);
    const throughRelay = parse(adminKubeconfig) as KubeconfigDocument;
    for (const entry of throughRelay.clusters) entry.cluster.server = relay.url;
    relay.stall();
    await createCluster("stalled", "Ready", stringify(throughRelay));
    await requestAccess("stalled", { clusterRef: { namespace: NAMESPACE, name: "stalled" }, token: { permissions: [listNamespaces] } });
    const stalledRelay = relay;
    await eventually(() => holds(stalledRelay.connectedAt.length > 0, "the workload cluster was not called yet"), { description: "first call stalled" });

    await requestAccess("meanwhile", { clusterRef: healthy, token: { permissions: [listNamespaces] } });
    await waitFor("meanwhile", "Granted");

    // A second connection means the first call was given up on, at the 15 s deadline of workload calls.
    await eventually(() => holds(stalledRelay.connectedAt.length > 1, "no second attempt yet"), { description: "retry after the deadline", timeoutMs: 40_000 });
    const [first = 0, second = 0] = stalledRelay.connectedAt;
    expect(second - first).toBeGreaterThanOrEqual(14_000);
    expect(second - first).toBeLessThan(20_000);
    const waiting = await getAr("stalled");
    expect(waiting.status?.phase).toBe("Pending");
    expect(waiting.status?.secretRef).toBeUndefined();
    const unreachable = waiting.status?.conditions?.find((condition) => condition.type === "AccessGranted");
    expect(unreachable).toMatchObject({ status: "False", reason: "WorkloadClusterUnreachable" });
    // The call and its deadline, so that whoever reads it knows which endpoint hung.
    expect(unreachable?.message).toMatch(/: (?:GET|POST|PATCH) https:\/\/\S+: no answer within 15000 ms$/);

    stalledRelay.resume();
    await waitFor("stalled", "Granted");
    const data = await issued("stalled");
    expect(data.host).toBe(stalledRelay.url);
    const user = clientOf(data);
    await allowed(() => user.list("/api/v1/namespaces"), "namespaces listable through the relay");
  });

  it("grants OIDC access: roles and bindings for the issuer's users and groups, and a kubeconfig that logs in there", async () => {
    await requestAccess("oidc-corp", {
      clusterRef: healthy,
      oidc: {
        name: "corp",
        issuer: issuer.url,
        clientID: OIDC_CLIENT_ID,
        roles: [{ name: "corp-configmaps", namespace: "team-b", rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }] }],
        roleBindings: [
          { subjects: [{ kind: "User", name: "alice" }], roleRefs: [{ kind: "Role", name: "corp-configmaps", namespace: "team-b" }] },
          { subjects: [{ kind: "Group", name: "auditors" }], roleRefs: [{ kind: "ClusterRole", name: "view" }] },
        ],
      },
    });
    const ar = await waitFor("oidc-corp", "Granted", "OIDCAccessGranted");
    expect(ar.status?.secretRef?.name).toBe("oidc-corp.kubeconfig");
    const data = await issued("oidc-corp");
    expect(Object.keys(data).sort()).toEqual(["ca.crt", "clientID", "host", "kubeconfig"]);
    expect(data.clientID).toBe(OIDC_CLIENT_ID);
    expect(data.kubeconfig).toContain(`--oidc-issuer-url=${issuer.url}`);
    expect(data.kubeconfig).toContain(`--oidc-client-id=${OIDC_CLIENT_ID}`);

    const as = (subject: string, groups: string[] = []): RestClient => {
      const token = issuer.mint({ subject, audience: OIDC_CLIENT_ID, groups });
      const client = RestClient.fromKubeconfigText(renderKubeconfig({ name: "oidc", server: workload.url, caPem: workloadCa, token }));
      clients.push(client);
      return client;
    };
    await allowed(() => as("alice").list("/api/v1/namespaces/team-b/configmaps"), "alice reads team-b's ConfigMaps");
    expect(await outcome(as("alice").list("/api/v1/namespaces/default/configmaps"))).toBe(403);
    expect(await outcome(as("alice").create("/api/v1/namespaces/team-b/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "not-allowed" } }))).toBe(403);
    await allowed(() => as("carol", ["auditors"]).get("/api/v1/namespaces/default/pods/visible"), "an auditor views pods");
    expect(await outcome(as("carol", ["auditors"]).list("/api/v1/namespaces/kube-system/secrets"))).toBe(403);
    expect(await outcome(as("mallory").list("/api/v1/namespaces/team-b/configmaps"))).toBe(403);

    await kube.delete(arPath("oidc-corp"));
    await eventually(async () => holds((await outcome(getAr("oidc-corp"))) === 404, "AccessRequest still there"), { description: "oidc-corp gone" });
    expect(await workloadObjectsOf("oidc-corp")).toEqual([]);
    await eventually(async () => holds((await outcome(as("alice").list("/api/v1/namespaces/team-b/configmaps"))) === 403, "alice still reads"), { description: "OIDC grant revoked" });
  });

  it("caps the token's lifetime at spec.ttl", async () => {
    await requestAccess("short", { clusterRef: healthy, ttl: "2h", token: { permissions: [listNamespaces] } });
    await waitFor("short", "Granted");
    expect(Math.abs(lifetimeOf(await issued("short")) - 2 * 3600)).toBeLessThan(60);
  });

  it("never takes over a ClusterRole or Secret it did not make: both stay as they were, and the request says which and why", async () => {
    const foreignRules = [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }];
    await admin.create(`${RBAC}/clusterroles`, { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "team-reader" }, rules: foreignRules });
    await kube.create(`/api/v1/namespaces/${NAMESPACE}/secrets`, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "secret-taken.kubeconfig", namespace: NAMESPACE },
      data: { kubeconfig: base64("someone else's") },
    });
    await Promise.all([
      requestAccess("takeover", { clusterRef: healthy, token: { permissions: [{ name: "team-reader", rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }] }] } }),
      requestAccess("secret-taken", { clusterRef: healthy, token: { permissions: [listNamespaces] } }),
    ]);

    const takeover = await waitFor("takeover", "Pending", "ResourceNotManaged");
    expect(conditionOf(takeover, "AccessGranted")?.message).toContain('ClusterRole "team-reader" on the workload cluster exists and was not made for this request');
    const secretTaken = await waitFor("secret-taken", "Pending", "ResourceNotManaged");
    expect(conditionOf(secretTaken, "AccessGranted")?.message).toContain('Secret "secret-taken.kubeconfig"');
    // Every object is checked before any is written: not even the ServiceAccount was made.
    expect(await workloadObjectsOf("takeover")).toEqual([]);
    expect(await workloadObjectsOf("secret-taken")).toEqual([]);
    expect(await outcome(kube.get(secretPath("takeover.kubeconfig")))).toBe(404);

    await kube.delete(arPath("takeover"));
    await kube.delete(arPath("secret-taken"));
    for (const name of ["takeover", "secret-taken"]) {
      await eventually(async () => holds((await outcome(getAr(name))) === 404, "AccessRequest still there"), { description: `${name} gone` });
    }
    const role = await admin.get<KubeObject & { rules?: unknown }>(`${RBAC}/clusterroles/team-reader`);
    expect(role.rules).toEqual(foreignRules);
    expect(role.metadata?.labels).toBeUndefined();
    expect((await kube.get<Secret>(secretPath("secret-taken.kubeconfig"))).data).toEqual({ kubeconfig: base64("someone else's") });
  });

  it("keeps a granted request Granted while its Cluster is Progressing or its workload cluster away, and asks that cluster nothing while the Secret is current", async () => {
    const counted = await clusterThroughRelay("steady");
    await requestAccess("steady", { clusterRef: { namespace: NAMESPACE, name: "steady" }, token: { permissions: [listNamespaces] } });
    await waitForCondition("steady", "AccessUpToDate", "True", "UpToDate");
    const token = (await issued("steady")).token;

    await kube.request("PATCH", `${clusterPath("steady")}/status`, { body: { status: { phase: "Progressing" } }, contentType: MERGE });
    const progressing = await waitForCondition("steady", "ClusterReady", "False", "ClusterNotReady");
    // Counted from here: passes of one request run one after another, so a pass queued before the grant's
    // status write (whose cached request may not show Granted yet, and which reads objects again) is over.
    const connections = counted.connectedAt.length;
    expect(progressing.status?.phase).toBe("Granted");
    expect(progressing.status?.secretRef?.name).toBe("steady.kubeconfig");
    expect(conditionOf(progressing, "AccessGranted")).toMatchObject({ status: "True", reason: "TokenIssued" });
    await kube.request("PATCH", `${clusterPath("steady")}/status`, { body: { status: { phase: "Ready" } }, contentType: MERGE });
    await waitForCondition("steady", "ClusterReady", "True", "Ready");
    expect(counted.connectedAt.length).toBe(connections);
    expect((await issued("steady")).token).toBe(token);

    // A full pass (openMCP's reconcile annotation) while the workload cluster does not answer.
    counted.stall();
    await kube.request("PATCH", arPath("steady"), { body: { metadata: { annotations: { [OPERATION_ANNOTATION]: "reconcile" } } }, contentType: MERGE });
    const away = await waitForCondition("steady", "AccessUpToDate", "False", "WorkloadClusterUnreachable");
    expect(away.status?.phase).toBe("Granted");
    expect(away.status?.secretRef?.name).toBe("steady.kubeconfig");
    counted.resume();
    await waitForCondition("steady", "AccessUpToDate", "True", "UpToDate");
    expect((await issued("steady")).token).toBe(token);
  });

  it("replaces bindings whose role changed (roleRef is immutable) and deletes the role no longer asked for", async () => {
    const readNamespaces = listNamespaces.rules;
    await requestAccess("rebind", { clusterRef: healthy, token: { permissions: [{ name: "rebind-a", rules: readNamespaces }], roleRefs: [{ kind: "ClusterRole", name: "view" }] } });
    await waitFor("rebind", "Granted");
    const sa = (await serviceAccountOf("rebind")).metadata?.name ?? "";

    await kube.request("PATCH", arPath("rebind"), {
      body: { spec: { token: { permissions: [{ name: "rebind-b", rules: readNamespaces }], roleRefs: [{ kind: "ClusterRole", name: "edit" }] } } },
      contentType: MERGE,
    });
    await markPending("rebind");
    const ar = await waitFor("rebind", "Granted");
    expect(ar.metadata.generation).toBe(2);
    expect((await admin.get<Binding>(`${RBAC}/clusterrolebindings/openmcp:${sa}:roleref:0`)).roleRef).toMatchObject({ kind: "ClusterRole", name: "edit" });
    expect((await admin.get<Binding>(`${RBAC}/clusterrolebindings/openmcp:${sa}:permission:0`)).roleRef).toMatchObject({ kind: "ClusterRole", name: "rebind-b" });
    expect(await outcome(admin.get(`${RBAC}/clusterroles/rebind-a`))).toBe(404);
    const rebound = await issued("rebind");
    expect(ar.status?.secretRef?.name).toBe("rebind.kubeconfig");
    await allowed(() => clientOf(rebound).list("/api/v1/namespaces"), "namespaces listable");
  });

  it("gives a refusal by the workload cluster a reason of its own, with the API server's message", async () => {
    const policy = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
    await admin.create(policy, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "no-refused-roles" },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: { resourceRules: [{ apiGroups: ["rbac.authorization.k8s.io"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["clusterroles"] }] },
        validations: [{ expression: "object.metadata.name != 'refused-by-policy'", message: "this cluster refuses ClusterRoles named refused-by-policy" }],
      },
    });
    await admin.create("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: "no-refused-roles" },
      spec: { policyName: "no-refused-roles", validationActions: ["Deny"] },
    });
    const refusedRole = { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "refused-by-policy" }, rules: listNamespaces.rules };
    // The policy reaches admission through an informer, a moment after it is written.
    await eventually(
      async () => {
        const result = await outcome(admin.request("POST", `${RBAC}/clusterroles`, { body: refusedRole, query: { dryRun: "All" } }));
        return holds(result !== "ok", "the policy does not refuse yet");
      },
      { description: "admission policy in force" },
    );

    await requestAccess("refused", { clusterRef: healthy, token: { permissions: [{ name: "refused-by-policy", rules: listNamespaces.rules }] } });
    const refused = await waitFor("refused", "Pending", "WorkloadClusterRejected");
    expect(conditionOf(refused, "AccessGranted")?.message).toContain("this cluster refuses ClusterRoles named refused-by-policy");
    expect(refused.status?.secretRef).toBeUndefined();
  });

  it("restores a deleted or edited access Secret at once, with a new token", async () => {
    await requestAccess("restore", { clusterRef: healthy, token: { permissions: [listNamespaces] } });
    await waitFor("restore", "Granted");
    const first = (await issued("restore")).token;

    await kube.delete(secretPath("restore.kubeconfig"));
    const restored = await eventually(
      async () => {
        const result = await outcome(kube.get(secretPath("restore.kubeconfig")));
        return holds(result === "ok", `Secret: ${result}`);
      },
      { description: "deleted Secret restored" },
    );
    expect(restored).toBeUndefined();
    const second = (await issued("restore")).token;
    expect(second).not.toBe(first);

    await kube.request("PATCH", secretPath("restore.kubeconfig"), { body: { data: { token: base64("tampered") } }, contentType: MERGE });
    const third = await eventually(
      async () => {
        const data = await issued("restore");
        return holds(data.token !== "tampered" && data.token !== second, "Secret still edited", data);
      },
      { description: "edited Secret restored" },
    );
    await allowed(() => clientOf(third).list("/api/v1/namespaces"), "namespaces listable with the restored Secret");
  });

  it("keeps the grants of a Cluster that foreign finalizers hold, and denies them once Cluster API deletes it", async () => {
    const hold = "test.openmcp.cloud/hold";
    await createCluster("held", "Ready", adminKubeconfig);
    await kube.request("PATCH", clusterPath("held"), { body: { metadata: { finalizers: [hold] } }, contentType: MERGE });
    // Playing the cluster controller: the Cluster API Cluster it made, with Cluster API's finalizer.
    const capiPath = objectPath(CAPI_CLUSTER, NAMESPACE, "held");
    await kube.create(collectionPath(CAPI_CLUSTER, NAMESPACE), {
      apiVersion: CAPI_CLUSTER.apiVersion,
      kind: CAPI_CLUSTER.kind,
      metadata: {
        name: "held",
        namespace: NAMESPACE,
        labels: { ...KEYS.labels, [OPENMCP_CLUSTER_NAME_LABEL]: "held", [OPENMCP_CLUSTER_NAMESPACE_LABEL]: NAMESPACE },
        finalizers: ["cluster.cluster.x-k8s.io"],
      },
      spec: { paused: true },
    });
    await requestAccess("held-access", { clusterRef: { namespace: NAMESPACE, name: "held" }, token: { permissions: [listNamespaces] } });
    await waitFor("held-access", "Granted");
    const user = clientOf(await issued("held-access"));

    await kube.delete(clusterPath("held"));
    await kube.request("PATCH", `${clusterPath("held")}/status`, { body: { status: { phase: "Terminating" } }, contentType: MERGE });
    const held = await waitForCondition("held-access", "ClusterReady", "False", "ClusterNotReady");
    expect(held.status?.phase).toBe("Granted");
    expect(held.status?.secretRef?.name).toBe("held-access.kubeconfig");
    await allowed(() => user.list("/api/v1/namespaces"), "the grant still works");

    await kube.delete(capiPath);
    await waitFor("held-access", "Denied", "ClusterDeleting");
    await eventually(async () => holds((await outcome(kube.get(secretPath("held-access.kubeconfig")))) === 404, "Secret still there"), { description: "Secret revoked" });

    await kube.request("PATCH", capiPath, { body: { metadata: { finalizers: null } }, contentType: MERGE });
    await kube.request("PATCH", clusterPath("held"), { body: { metadata: { finalizers: null } }, contentType: MERGE });
  });

  it("never shows a token in an AccessRequest's status, an Event or the provider's log", async () => {
    await requestAccess("quiet", { clusterRef: healthy, token: { permissions: [listNamespaces] } });
    await waitFor("quiet", "Granted");
    // Never turned into a client: that would register it for redaction in this process, and the logger would hide a leak.
    const quiet = (await issued("quiet")).token ?? "";
    expect(quiet).not.toBe("");
    const adminToken = (parse(adminKubeconfig) as KubeconfigDocument).users[0]?.user.token ?? "";
    const forms = (secret: string): string[] => [secret, base64(secret)];
    const credentials = [...tokens, adminToken].flatMap(forms);

    const logDir = process.env[E2E_LOG_DIR_ENV_VAR] ?? "";
    expect(logDir).not.toBe("");
    const logFile = join(logDir, `${LOG_NAME}.log`);
    const log = await eventually(
      () => {
        const text = readFileSync(logFile, "utf8");
        // The e2e global setup empties the directory: another run started meanwhile would have unlinked this one's file.
        return holds(text.includes('"name":"quiet"'), `no log line of quiet's reconcile in ${logFile} yet`, text);
      },
      { description: "provider log written" },
    );
    const statuses = JSON.stringify((await kube.list<AccessRequest>(collectionPath(ACCESS_REQUEST, NAMESPACE))).items.map((ar) => ar.status));
    const events = JSON.stringify((await kube.list<CoreEvent>(`/api/v1/namespaces/${NAMESPACE}/events`)).items);
    expect(events).toContain("TokenIssued");
    // Booleans, so that a failure does not print the credential.
    for (const credential of credentials) {
      expect(statuses.includes(credential)).toBe(false);
      expect(events.includes(credential)).toBe(false);
      expect(log.includes(credential)).toBe(false);
    }
    expect((await issued("quiet")).kubeconfig?.includes(adminToken)).toBe(false);
  });
});
