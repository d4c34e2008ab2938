/**
 * OIDC access against a real kube-apiserver that trusts a test issuer the
 * way a template set makes a workload API server trust one: a structured
 * authentication configuration whose claim mappings carry the provider's
 * prefixes (`corp:` for the provider `corp`, openMCP's default). The RBAC
 * objects `renderOidcAccess` makes are applied as they are, and tokens the
 * issuer mints prove what they grant: exactly the granted verbs on the
 * granted resources, to the named user and to members of the named group,
 * and nothing to tokens of another audience or another issuer.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { HttpStatusError, Kubeconfig, RestClient } from "@edgeconnect/kcp-ts";
import { applyManifests, connectFromEnv, eventually, holds, httpStatus, KubeApiServer, OidcIssuer, Reaper, renderKubeconfig, resolveControlPlaneBinaries } from "@edgeconnect/testenv";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { oidcKubeconfig } from "./oidc-kubeconfig.js";
import { renderOidcAccess, type OidcSpec } from "./oidc-access.js";
import { accessObjects, type AccessRequestIdentity } from "./token-access.js";

const { state } = connectFromEnv();
// Only where the environment runs a local kube-apiserver (not kind, not skipped) is there a binary to start another.
const ownCluster = state.infra.mode === "kube-apiserver" && !("skipped" in state.infra);
const describeInfra = ownCluster ? describe : describe.skip;

const CLIENT_ID = "mcp-workload";
const REQUEST: AccessRequestIdentity = { environment: "test", providerName: "capi", namespace: "project-a", name: "mcp-oidc-corp", uid: "uid-1" };
const CONFIGMAPS = "/api/v1/namespaces/apps/configmaps";

interface SelfSubjectReview {
  status?: { userInfo?: { username?: string; groups?: string[] } };
}

describeInfra("OIDC access on a kube-apiserver that trusts the issuer", () => {
  let reaper: Reaper;
  let issuer: OidcIssuer;
  let stranger: OidcIssuer;
  let server: KubeApiServer;
  let caPem: string;
  const clients: RestClient[] = [];

  const clientFor = (token: string): RestClient => {
    const client = RestClient.fromKubeconfigText(renderKubeconfig({ name: "oidc", server: server.url, caPem, token }));
    clients.push(client);
    return client;
  };
  const alice = (): RestClient => clientFor(issuer.mint({ subject: "alice", audience: CLIENT_ID }));
  const bob = (): RestClient => clientFor(issuer.mint({ subject: "bob", audience: CLIENT_ID, groups: ["auditors"] }));
  const status = async (client: RestClient, method: "GET" | "POST", path: string, body?: unknown): Promise<number> => {
    if (method === "GET") return httpStatus(client, path);
    try {
      await client.request("POST", path, { body });
      return 201;
    } catch (err) {
      if (err instanceof HttpStatusError) return err.status;
      throw err;
    }
  };
  const whoAmI = async (client: RestClient): Promise<{ username: string | undefined; groups: string[] | undefined }> => {
    const review = await client.request<SelfSubjectReview>("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
      body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
    });
    // Leaves out `extra`: the server adds the token's jti there.
    const { username, groups } = review.status?.userInfo ?? {};
    return { username, groups };
  };

  beforeAll(async () => {
    reaper = Reaper.start();
    [issuer, stranger] = await Promise.all([OidcIssuer.start({ reaper }), OidcIssuer.start({ reaper })]);
    // What the template set writes: the provider's issuer, its client ID as audience, its default prefixes.
    const trust = issuer.jwtAuthenticator({ audiences: [CLIENT_ID], usernamePrefix: "corp:", groupsPrefix: "corp:" });
    server = await KubeApiServer.start({ ...(await resolveControlPlaneBinaries()), reaper, authenticationConfiguration: { jwt: [trust] } });
    caPem = readFileSync(join(server.dir, "certs", "apiserver.crt"), "utf8");
    const provider = { name: "corp", issuer: issuer.url, clientID: CLIENT_ID };
    const roles = [
      { name: "configmap-reader", namespace: "apps", rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }] },
      { rules: [{ apiGroups: [""], resources: ["namespaces"], verbs: ["get", "list"] }] },
    ];
    // The group is bound to the second role by the name generated for it: names with colons are fine for RBAC.
    const generated = renderOidcAccess({ ...provider, roles }, REQUEST).roles[1]?.metadata.name ?? "";
    const spec: OidcSpec = {
      ...provider,
      roles,
      roleBindings: [
        { subjects: [{ kind: "User", name: "alice" }], roleRefs: [{ kind: "Role", name: "configmap-reader", namespace: "apps" }] },
        { subjects: [{ kind: "Group", name: "auditors" }], roleRefs: [{ kind: "ClusterRole", name: generated }] },
      ],
    };
    const admin = server.adminClient();
    clients.push(admin);
    const namespaces = ["apps", "other"].map((name) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } }));
    const settings = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "apps" }, data: { mode: "test" } };
    await applyManifests(admin, [...namespaces, settings, ...accessObjects(renderOidcAccess(spec, REQUEST))]);
    // The authenticator fetches the issuer's keys in the background once the server runs.
    await eventually(
      async () => {
        const answer = await httpStatus(alice(), CONFIGMAPS);
        return holds(answer === 200, `alice's list of configmaps gets ${answer}`);
      },
      { description: "kube-apiserver trusting the issuer" },
    );
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await server?.stop();
    await Promise.all([issuer?.stop(), stranger?.stop()]);
    await reaper?.close();
  });

  it("authenticates the issuer's tokens as the prefixed user and groups the bindings name", async () => {
    expect(await whoAmI(alice())).toEqual({ username: "corp:alice", groups: ["system:authenticated"] });
    expect(await whoAmI(bob())).toEqual({ username: "corp:bob", groups: ["corp:auditors", "system:authenticated"] });
  });

  it("lets the user do exactly what her Role grants", async () => {
    const client = alice();
    expect(await status(client, "GET", CONFIGMAPS)).toBe(200);
    expect(await status(client, "GET", `${CONFIGMAPS}/settings`)).toBe(200);
    expect(await status(client, "GET", "/api/v1/namespaces/other/configmaps")).toBe(403);
    expect(await status(client, "GET", "/api/v1/namespaces/apps/secrets")).toBe(403);
    expect(await status(client, "POST", CONFIGMAPS, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "by-alice" } })).toBe(403);
    expect(await status(client, "GET", "/api/v1/namespaces")).toBe(403);
  });

  it("gives a member of the group the group's ClusterRole and nothing of the user's", async () => {
    const client = bob();
    expect(await status(client, "GET", "/api/v1/namespaces")).toBe(200);
    expect(await status(client, "GET", "/api/v1/namespaces/other")).toBe(200);
    expect(await status(client, "GET", CONFIGMAPS)).toBe(403);
  });

  it.each<[string, () => string]>([
    ["a token for another audience", () => issuer.mint({ subject: "alice", audience: "another-client" })],
    ["a token of an issuer the server does not trust", () => stranger.mint({ subject: "alice", audience: CLIENT_ID })],
    ["an expired token", () => issuer.mint({ subject: "alice", audience: CLIENT_ID, expiresInSeconds: -600 })],
  ])("refuses %s as unauthenticated", async (_case, token) => {
    expect(await status(clientFor(token()), "GET", CONFIGMAPS)).toBe(401);
  });

  it("reaches the server as the user through the kubeconfig the Secret holds, its plugin standing in for kubectl oidc-login", async () => {
    const kubeconfig = parse(oidcKubeconfig({ server: server.url, caCrt: caPem, issuer: issuer.url, clientID: CLIENT_ID, providerName: "corp", cluster: { namespace: "project-a", name: "workload" } })) as {
      users: { user: { exec: Record<string, unknown> } }[];
    };
    const exec = kubeconfig.users[0]?.user.exec ?? {};
    expect(exec.command).toBe("kubectl");
    const credential = { apiVersion: exec.apiVersion, kind: "ExecCredential", status: { token: issuer.mint({ subject: "alice", audience: CLIENT_ID }) } };
    exec.command = process.execPath;
    exec.args = ["-e", `process.stdout.write(${JSON.stringify(JSON.stringify(credential))})`];
    // The user's own kubeconfig, as kubectl reads it: its plugin runs (text read as data, a Secret's, may not run one).
    const client = RestClient.fromKubeconfig(Kubeconfig.fromText(stringify(kubeconfig)));
    clients.push(client);
    expect(await whoAmI(client)).toEqual({ username: "corp:alice", groups: ["system:authenticated"] });
  });
});
