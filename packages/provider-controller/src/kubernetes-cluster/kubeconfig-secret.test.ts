import { describe, expect, it } from "@jest/globals";
import { SECRET_LABEL } from "@edgeconnect/api";
import { HttpStatusError, type KubeObject } from "@edgeconnect/kcp-ts";
import { OtcApiError } from "@edgeconnect/otc";
import { MANAGED_BY, MANAGED_BY_LABEL } from "@edgeconnect/provisioning";
import { SILENT, type ClusterScope } from "@edgeconnect/runtime";
import type { Secret } from "../tenant/tenant-resources.js";
import {
  CLUSTER_ID_ANNOTATION,
  deleteKubeconfig,
  ensureKubeconfig,
  EXPIRES_ANNOTATION,
  handBackClusterApiKubeconfig,
  ISSUANCE_WINDOW_MS,
  ISSUED_ANNOTATION,
  ISSUING_ANNOTATION,
  kubeconfigRenewalDue,
  SERVER_ANNOTATION,
} from "./kubeconfig-secret.js";
import type { Pass, ProvisionContext } from "./provision.js";
import { cluster, REQUEST } from "./status-report.fixture.js";

const DAY_MS = 24 * 3_600_000;
const START = Date.parse("2030-01-01T00:00:00Z");
const SECRET = "my-cluster-kubeconfig";
const SECRET_PATH = "/api/v1/namespaces/default/secrets/my-cluster-kubeconfig";
const KC_PATH = "/apis/platform.edgeconnect.eu/v1alpha1/namespaces/default/kubernetesclusters/my-cluster";
const CLUSTER_ID = "cce-1";
const SERVER = "https://80.158.1.2:5443";
const KEY = "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0ta3ViZWNvbmZpZy1zZWNyZXQtdGVzdA==";

/** CCE's `clustercert` answer while an EIP is bound. */
const CLUSTER_CERT = {
  kind: "Config",
  apiVersion: "v1",
  clusters: [
    { name: "internalCluster", cluster: { server: "https://192.168.0.10:5443", "certificate-authority-data": "Q0E=" } },
    { name: "externalCluster", cluster: { server: SERVER, "insecure-skip-tls-verify": true } },
    { name: "externalClusterTLSVerify", cluster: { server: SERVER, "certificate-authority-data": "Q0E=" } },
  ],
  users: [{ name: "user", user: { "client-certificate-data": "Q0VSVA==", "client-key-data": KEY } }],
  contexts: [{ name: "internal", context: { cluster: "internalCluster", user: "user" } }],
  "current-context": "internal",
};

const CAPI_KUBECONFIG = JSON.stringify({
  apiVersion: "v1",
  kind: "Config",
  clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:20123", "certificate-authority-data": "Q0E=" } }],
  users: [{ name: "c-admin", user: { "client-certificate-data": "Q0VSVA==", "client-key-data": KEY } }],
  contexts: [{ name: "c-admin@c", context: { cluster: "c", user: "c-admin" } }],
  "current-context": "c-admin@c",
});

const notFound = (method: string, path: string) => new HttpStatusError(method, path, 404, "");

/**
 * The tenant's workspace: what its API server holds (`live`) and what the
 * controller's informer cache shows (`cached`), which catches up only on
 * `sync()`. A hidden Secret exists but is not shown to us, as the Secrets
 * claim hides one without SECRET_LABEL.
 */
function tenantWorkspace(passSignal: AbortSignal = new AbortController().signal) {
  const live = new Map<string, KubeObject>([[KC_PATH, cluster()]]);
  const writes: { method: string; path: string }[] = [];
  let cached: Secret | undefined;
  let forbidden = false;
  let hidden = false;
  let version = 0;
  // Server-side apply's ownership, for annotations: those a create set belong to that operation, and an apply that
  // leaves one out keeps it (one it sets, it takes over, as with force).
  const createdAnnotations = new Map<string, Set<string>>();
  const store = (path: string, body: KubeObject, uid: string) => {
    live.set(path, { ...body, metadata: { ...body.metadata, uid, resourceVersion: String(++version) } });
  };
  const refuseSecrets = (method: string, path: string) => {
    if (forbidden && path.includes("/secrets")) throw new HttpStatusError(method, path, 403, "");
  };
  // As the scope's clients are: bound to a signal, after whose abort every call fails.
  const bound = (signal: AbortSignal) => ({
    get: async <T>(path: string): Promise<T> => {
      signal.throwIfAborted();
      refuseSecrets("GET", path);
      const found = live.get(path);
      if (found === undefined || (hidden && path === SECRET_PATH)) throw notFound("GET", path);
      return structuredClone(found) as T;
    },
    create: async <T>(path: string, body: KubeObject): Promise<T> => {
      signal.throwIfAborted();
      refuseSecrets("POST", path);
      writes.push({ method: "POST", path });
      const target = `${path}/${body.metadata?.name ?? ""}`;
      if (live.has(target)) throw new HttpStatusError("POST", path, 409, "");
      createdAnnotations.set(target, new Set(Object.keys(body.metadata?.annotations ?? {})));
      store(target, body, `secret-uid-${version}`);
      return live.get(target) as T;
    },
    apply: async <T>(path: string, body: KubeObject): Promise<T> => {
      signal.throwIfAborted();
      refuseSecrets("PATCH", path);
      writes.push({ method: "PATCH", path });
      const current = live.get(path);
      const expected = body.metadata?.resourceVersion;
      if (expected !== undefined && expected !== current?.metadata?.resourceVersion) throw new HttpStatusError("PATCH", path, 409, "");
      const created = createdAnnotations.get(path) ?? new Set<string>();
      const applied = body.metadata?.annotations ?? {};
      for (const key of Object.keys(applied)) created.delete(key);
      const kept = Object.fromEntries([...created].map((key) => [key, current?.metadata?.annotations?.[key] ?? ""]));
      const annotations = { ...kept, ...applied };
      const merged = { ...body, metadata: { ...body.metadata, ...(Object.keys(annotations).length === 0 ? {} : { annotations }) } };
      store(path, merged, current?.metadata?.uid ?? `secret-uid-${version}`);
      return live.get(path) as T;
    },
    delete: async (path: string, options?: { body?: { preconditions?: { uid?: string } } }): Promise<void> => {
      signal.throwIfAborted();
      refuseSecrets("DELETE", path);
      writes.push({ method: "DELETE", path });
      const current = live.get(path);
      if (current === undefined) throw notFound("DELETE", path);
      const uid = options?.body?.preconditions?.uid;
      if (uid !== undefined && uid !== current.metadata?.uid) throw new HttpStatusError("DELETE", path, 409, "");
      live.delete(path);
    },
  });
  const scope = {
    cluster: REQUEST.cluster,
    client: bound(passSignal),
    settlingClient: bound,
    lister: () => ({ get: (_namespace: string, name: string) => (name === SECRET ? cached : undefined), list: () => [] }),
  } as unknown as ClusterScope;
  return {
    scope,
    writes,
    secret: () => live.get(SECRET_PATH),
    putSecret: (secret: Secret, options: { hidden?: boolean } = {}) => {
      store(SECRET_PATH, secret, "their-uid");
      hidden = options.hidden ?? false;
    },
    cache: (secret: Secret | undefined) => {
      cached = secret;
    },
    sync: () => {
      cached = live.get(SECRET_PATH);
    },
    forbidSecrets: () => {
      forbidden = true;
    },
  };
}

/** How CCE answers one `clustercert` call: after issuing (`issue()`), or refusing before it. */
type CceAnswer = (issue: () => void, signal: AbortSignal) => Promise<unknown>;

const answers: Record<"issued" | "lost" | "refused", CceAnswer> = {
  issued: async (issue) => {
    issue();
    return CLUSTER_CERT;
  },
  lost: async (issue) => {
    issue();
    throw new DOMException("The operation was aborted due to timeout", "TimeoutError");
  },
  refused: async () => {
    throw new OtcApiError("POST", "/api/v3/projects/p/clusters/cce-1/clustercert", 400, JSON.stringify({ error_code: "CCE.01400001", error_msg: "cluster is not available" }));
  },
};

function harness(validityDays = 365) {
  const passSignal = new AbortController();
  const tenant = tenantWorkspace(passSignal.signal);
  let now = START;
  let issued = 0;
  const script: CceAnswer[] = [];
  const gateway = {
    clusterCertificate: async (_credentials: unknown, clusterId: string, days: number, _holder: unknown, signal: AbortSignal) => {
      expect([clusterId, days]).toEqual([CLUSTER_ID, validityDays]);
      return (script.shift() ?? answers.issued)(() => void (issued += 1), signal);
    },
  };
  const context = { gateway, kubeconfigValidityDays: validityDays, now: () => new Date(now), resources: { secrets: { name: "secrets", path: "/clusters/*/api/v1/secrets" } } } as unknown as ProvisionContext;
  const capiSource = { data: { value: Buffer.from(CAPI_KUBECONFIG).toString("base64") } };
  const writes = { get: async () => capiSource };
  const pass = { request: REQUEST, scope: tenant.scope, signal: passSignal.signal, writes, log: SILENT } as unknown as Pass;
  const kc = cluster();
  return {
    tenant,
    issued: () => issued,
    /** The next calls' answers, in order; afterwards CCE issues. */
    answer: (...next: CceAnswer[]) => void script.push(...next),
    /** As when the pass's deadline passes, or its tenant's slot moves to another replica. */
    abortPass: () => passSignal.abort(),
    at: (ms: number) => {
      now = START + ms;
    },
    /** Whether the Secret holds a claim of an issuance that may still be under way. */
    claimed: () => Date.parse(tenant.secret()?.metadata?.annotations?.[ISSUING_ANNOTATION] ?? "") > now,
    ensure: () => ensureKubeconfig(context, pass, kc, SECRET, CLUSTER_ID, {} as never),
    handBack: () => handBackClusterApiKubeconfig(context, pass, kc, SECRET, { namespace: "tenant-ns", name: "c-kubeconfig", key: "value" }),
    delete: () => deleteKubeconfig(pass, SECRET),
  };
}

/** A Secret of the kubeconfig's name the tenant made themselves, perhaps copied from one of ours (`ownerUid`). */
function theirSecret(ownerUid?: string): Secret {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: SECRET,
      namespace: "default",
      annotations: { [CLUSTER_ID_ANNOTATION]: CLUSTER_ID, [ISSUED_ANNOTATION]: new Date(START).toISOString(), [EXPIRES_ANNOTATION]: new Date(START + 365 * DAY_MS).toISOString(), [SERVER_ANNOTATION]: SERVER },
      ...(ownerUid === undefined ? {} : { ownerReferences: [{ apiVersion: "platform.edgeconnect.eu/v1alpha1", kind: "KubernetesCluster", name: "my-cluster", uid: ownerUid }] }),
    },
    data: { kubeconfig: "dGhlaXJz" },
  };
}

describe("kubeconfigRenewalDue", () => {
  const annotations = (issuedDaysAgo: number | undefined, expiresInDays: number): Record<string, string> => ({
    ...(issuedDaysAgo === undefined ? {} : { [ISSUED_ANNOTATION]: new Date(START - issuedDaysAgo * DAY_MS).toISOString() }),
    [EXPIRES_ANNOTATION]: new Date(START + expiresInDays * DAY_MS).toISOString(),
  });

  it.each<[string, number, boolean, Record<string, string>]>([
    ["a 30-day kubeconfig an hour old", 30, false, annotations(1 / 24, 30 - 1 / 24)],
    ["a 30-day kubeconfig with 11 of its days left", 30, false, annotations(19, 11)],
    ["a 30-day kubeconfig with 9 of its days left", 30, true, annotations(21, 9)],
    ["a 1-day kubeconfig with 9 of its hours left", 1, false, annotations(15 / 24, 9 / 24)],
    ["a 1-day kubeconfig with 7 of its hours left", 1, true, annotations(17 / 24, 7 / 24)],
    ["a 365-day kubeconfig with 200 days left", 365, false, annotations(165, 200)],
    ["a 365-day kubeconfig with 100 days left", 365, true, annotations(265, 100)],
    ["a 365-day kubeconfig issued when the validity was 30 days, with 11 days left", 365, false, annotations(19, 11)],
    ["a kubeconfig without issue time, 200 of the 365 days of the validity left", 365, false, annotations(undefined, 200)],
    ["a kubeconfig without issue time, 100 of the 365 days of the validity left", 365, true, annotations(undefined, 100)],
    ["an expired kubeconfig", 30, true, annotations(31, -1)],
    ["a kubeconfig without expiry", 30, true, {}],
    ["a kubeconfig with an unreadable expiry", 30, true, { [EXPIRES_ANNOTATION]: "soon" }],
  ])("%s, validity %i days: due %s", (_case, validityDays, due, given) => {
    expect(kubeconfigRenewalDue(given, validityDays, new Date(START))).toBe(due);
  });
});

describe("ensureKubeconfig", () => {
  it("issues a 30-day kubeconfig once and renews it only when less than a third of its lifetime is left", async () => {
    const subject = harness(30);
    expect((await subject.ensure()).condition).toMatchObject({ status: "True", reason: "Issued" });
    expect(subject.issued()).toBe(1);
    subject.tenant.sync();

    for (const days of [1 / 24, 1, 19]) {
      subject.at(days * DAY_MS);
      expect(await subject.ensure()).toMatchObject({ condition: { status: "True" }, server: SERVER });
    }
    expect(subject.issued()).toBe(1);

    subject.at(21 * DAY_MS);
    await subject.ensure();
    expect(subject.issued()).toBe(2);
    expect(subject.tenant.secret()?.metadata?.annotations).toEqual({
      [CLUSTER_ID_ANNOTATION]: CLUSTER_ID,
      [ISSUED_ANNOTATION]: new Date(START + 21 * DAY_MS).toISOString(),
      [EXPIRES_ANNOTATION]: new Date(START + 51 * DAY_MS).toISOString(),
      [SERVER_ANNOTATION]: SERVER,
      // The renewal's claim, ended when its answer was written.
      [ISSUING_ANNOTATION]: new Date(START + 21 * DAY_MS).toISOString(),
    });
  });

  it("labels the Secret so that the Secrets claim and the cache show it to us, and has the KubernetesCluster own it", async () => {
    const subject = harness();
    await subject.ensure();
    const written = subject.tenant.secret();
    expect(written?.metadata?.labels).toMatchObject({ [MANAGED_BY_LABEL]: MANAGED_BY, [SECRET_LABEL.key]: SECRET_LABEL.value });
    expect(written?.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: "KubernetesCluster", name: "my-cluster", uid: "uid-1", controller: true })]);
  });

  it.each<[string, (written: Secret) => Secret | undefined]>([
    ["shows a kubeconfig of ours about to expire", (written) => ({ ...written, metadata: { ...written.metadata, annotations: { ...written.metadata?.annotations, [ISSUED_ANNOTATION]: new Date(START - 360 * DAY_MS).toISOString(), [EXPIRES_ANNOTATION]: new Date(START + 5 * DAY_MS).toISOString() } } })],
    ["does not show our Secret yet", () => undefined],
  ])("issues nothing when the cache %s but the API server holds a fresh one of ours", async (_case, stale) => {
    const subject = harness();
    await subject.ensure();
    const written = subject.tenant.secret() as Secret;
    subject.tenant.cache(stale(written));
    const writes = subject.tenant.writes.length;

    expect(await subject.ensure()).toEqual({ condition: { status: "True", reason: "Issued", message: `Secret "${SECRET}" holds the kubeconfig` }, server: SERVER });
    expect(subject.issued()).toBe(1);
    expect(subject.tenant.writes).toHaveLength(writes);
  });

  it.each<[string, string | undefined]>([
    ["without owner", undefined],
    ["owned by an earlier KubernetesCluster of the name", "uid-0"],
  ])("leaves a Secret of the name that is not ours (%s) alone, asks the tenant to rename or delete it, and issues nothing", async (_case, ownerUid) => {
    const subject = harness();
    subject.tenant.putSecret(theirSecret(ownerUid));
    subject.tenant.sync();
    const theirs = subject.tenant.secret();

    const result = await subject.ensure();
    expect(result.condition).toMatchObject({ status: "False", reason: "KubeconfigSecretConflict" });
    expect(result.condition.message).toContain(`Secret "${SECRET}"`);
    expect(result.condition.message).toMatch(/rename or delete/);
    expect(result.server).toBeUndefined();
    expect(subject.issued()).toBe(0);
    expect(subject.tenant.writes).toEqual([]);
    expect(subject.tenant.secret()).toEqual(theirs);
  });

  it("asks CCE for nothing when a Secret of the name exists that the Secrets claim does not show us", async () => {
    const subject = harness();
    subject.tenant.putSecret(theirSecret(), { hidden: true });
    const theirs = subject.tenant.secret();

    expect((await subject.ensure()).condition).toMatchObject({ status: "False", reason: "KubeconfigSecretConflict" });
    expect(subject.issued()).toBe(0);
    expect(subject.tenant.secret()).toEqual(theirs);
  });

  it("decides from the API server that the Secret is no longer ours, whatever the cache shows", async () => {
    const subject = harness(30);
    await subject.ensure();
    subject.tenant.sync();
    subject.tenant.putSecret(theirSecret());
    const writes = subject.tenant.writes.length;
    subject.at(25 * DAY_MS);

    expect((await subject.ensure()).condition).toMatchObject({ status: "False", reason: "KubeconfigSecretConflict" });
    expect(subject.issued()).toBe(1);
    expect(subject.tenant.writes).toHaveLength(writes);
  });
});

describe("ensureKubeconfig: one certificate per issuance, whatever happens to the answer", () => {
  /** A `clustercert` answer that arrives when the test says so. */
  function slowAnswer(): { answer: CceAnswer; asked: Promise<AbortSignal>; arrive: () => void } {
    let arrive!: () => void;
    let asked!: (signal: AbortSignal) => void;
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    const askedPromise = new Promise<AbortSignal>((resolve) => (asked = resolve));
    return {
      answer: async (issue, signal) => {
        issue();
        asked(signal);
        await arrived;
        return CLUSTER_CERT;
      },
      asked: askedPromise,
      arrive: () => arrive(),
    };
  }

  it("asks once when the answer is lost and tells the tenant; the claim is given up, so the next pass asks again", async () => {
    const subject = harness();
    subject.answer(answers.lost);
    const lost = await subject.ensure();
    expect(lost.condition).toMatchObject({ status: "False", reason: "KubeconfigUnavailable" });
    expect(lost.condition.message).toContain("its answer may have been lost, and another is asked for");
    expect(subject.issued()).toBe(1);
    expect(subject.claimed()).toBe(false);

    expect(await subject.ensure()).toMatchObject({ condition: { status: "True", reason: "Issued" }, server: SERVER });
    expect(subject.issued()).toBe(2);
  });

  it("waits on a claim whose holder never wrote back (it died mid-call) until the claim lapses", async () => {
    const subject = harness();
    const claimed = { ...theirSecret("uid-1"), data: {}, metadata: { ...theirSecret("uid-1").metadata, annotations: { [ISSUING_ANNOTATION]: new Date(START + ISSUANCE_WINDOW_MS).toISOString() } } };
    subject.tenant.putSecret(claimed);
    subject.at(ISSUANCE_WINDOW_MS - 1_000);
    expect((await subject.ensure()).condition).toMatchObject({ status: "Unknown", reason: "Issuing" });
    expect(subject.issued()).toBe(0);

    subject.at(ISSUANCE_WINDOW_MS + 1_000);
    expect((await subject.ensure()).condition).toMatchObject({ status: "True", reason: "Issued" });
    expect(subject.issued()).toBe(1);
    expect(subject.claimed()).toBe(false);
  });

  it("writes a slow answer although the pass was aborted meanwhile (its tenant's slot moved, the process stops)", async () => {
    const subject = harness();
    const slow = slowAnswer();
    subject.answer(slow.answer);
    const first = subject.ensure();
    const signal = await slow.asked;
    subject.abortPass();
    expect(signal.aborted).toBe(false);
    slow.arrive();
    expect((await first).condition).toMatchObject({ status: "True", reason: "Issued" });
    const annotations = subject.tenant.secret()?.metadata?.annotations ?? {};
    expect(annotations[SERVER_ANNOTATION]).toBe(SERVER);
    expect(subject.claimed()).toBe(false);
    expect(subject.issued()).toBe(1);
  });

  it("lets only one of two passes at once (a retry, another replica) ask CCE", async () => {
    const subject = harness();
    const slow = slowAnswer();
    subject.answer(slow.answer);
    const first = subject.ensure();
    await slow.asked;
    expect((await subject.ensure()).condition).toMatchObject({ status: "Unknown", reason: "Issuing" });
    slow.arrive();
    expect((await first).condition).toMatchObject({ status: "True" });
    expect(subject.issued()).toBe(1);
  });

  it.each([false, true])("lets only one of two passes that both found no Secret ask CCE (cache synced: %s)", async (synced) => {
    const subject = harness();
    const slow = slowAnswer();
    subject.answer(slow.answer);
    if (synced) subject.tenant.sync();
    const [a, b] = [subject.ensure(), subject.ensure()];
    await slow.asked;
    slow.arrive();
    const reasons = (await Promise.all([a, b])).map((result) => result.condition.reason).sort();
    expect(reasons).toEqual(["Issued", "Issuing"]);
    expect(subject.issued()).toBe(1);
  });

  it("gives the claim up at once when CCE refuses, so that the next pass asks again", async () => {
    const subject = harness();
    subject.answer(answers.refused);
    const refused = await subject.ensure();
    expect(refused.condition).toMatchObject({ status: "False", reason: "KubeconfigUnavailable" });
    expect(refused.condition.message).toContain("cluster is not available");
    expect(subject.claimed()).toBe(false);

    expect((await subject.ensure()).condition).toMatchObject({ status: "True", reason: "Issued" });
    expect(subject.issued()).toBe(1);
  });

  it("keeps the kubeconfig in use in the Secret while its renewal is being issued", async () => {
    const subject = harness(30);
    await subject.ensure();
    const before = subject.tenant.secret() as Secret;
    subject.at(21 * DAY_MS);
    const slow = slowAnswer();
    subject.answer(slow.answer);
    const renewal = subject.ensure();
    await slow.asked;
    const during = subject.tenant.secret() as Secret;
    expect(during.data).toEqual(before.data);
    expect(during.metadata?.annotations).toEqual({ ...before.metadata?.annotations, [ISSUING_ANNOTATION]: new Date(START + 21 * DAY_MS + ISSUANCE_WINDOW_MS).toISOString() });
    slow.arrive();
    expect((await renewal).condition).toMatchObject({ status: "True" });
    expect(subject.tenant.secret()?.metadata?.annotations?.[ISSUED_ANNOTATION]).toBe(new Date(START + 21 * DAY_MS).toISOString());
  });
});

describe("handBackClusterApiKubeconfig", () => {
  it("copies Cluster API's kubeconfig into a Secret owned by the KubernetesCluster", async () => {
    const subject = harness();
    expect(await subject.handBack()).toMatchObject({ condition: { status: "True" }, server: "https://127.0.0.1:20123" });
    expect(subject.tenant.secret()?.metadata?.ownerReferences).toEqual([expect.objectContaining({ uid: "uid-1" })]);
  });

  it.each([false, true])("leaves a Secret of the name that is not ours alone, deciding from the API server (hidden by the claim: %s)", async (hidden) => {
    const subject = harness();
    subject.tenant.putSecret(theirSecret(), { hidden });
    const theirs = subject.tenant.secret();

    const result = await subject.handBack();
    expect(result.condition).toMatchObject({ status: "False", reason: "KubeconfigSecretConflict" });
    expect(result.condition.message).toContain(`Secret "${SECRET}"`);
    expect(subject.tenant.writes.filter((write) => write.method !== "POST")).toEqual([]);
    expect(subject.tenant.secret()).toEqual(theirs);
  });
});

describe("deleteKubeconfig", () => {
  it("deletes the Secret of ours", async () => {
    const subject = harness();
    await subject.ensure();
    const outcome = await subject.delete();
    expect(subject.tenant.secret()).toBeUndefined();
    expect(outcome).toBe("deleted");
  });

  it.each<[string, string | undefined]>([
    ["without owner", undefined],
    ["owned by an earlier KubernetesCluster of the name", "uid-0"],
  ])("leaves a Secret of the name that is not ours (%s) alone", async (_case, ownerUid) => {
    const subject = harness();
    subject.tenant.putSecret(theirSecret(ownerUid));
    const outcome = await subject.delete();
    expect(subject.tenant.secret()).toBeDefined();
    expect(subject.tenant.writes).toEqual([]);
    expect(outcome).toBe("notOurs");
  });

  it("lets teardown go on when the Secret is gone or the workspace refuses access to Secrets", async () => {
    const refused = harness();
    await refused.ensure();
    refused.tenant.forbidSecrets();
    expect(await refused.delete()).toBe("forbidden");
    expect(await harness().delete()).toBe("absent");
  });
});
