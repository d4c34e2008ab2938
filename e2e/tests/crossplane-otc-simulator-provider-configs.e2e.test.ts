/**
 * The Crossplane OTC provider simulator (provider-configs): bad credentials show OTC's 401 without any credential; a
 * ClusterProviderConfig reads its Secret where it says; crossplane-runtime
 * v2.0.0's defects, usages counted by name across namespaces and MRs stuck in
 * a Terminating namespace, hold as they do for the real provider; OTC ends empty.
 * The processes and helpers are e2e/src/crossplane-otc-scenarios.ts's.
 */
import { expect, it } from "@jest/globals";
import { deleteKeypair } from "@edgeconnect/otc";
import { eventually, holds } from "@edgeconnect/testenv";
import {
  condition,
  crossplaneOtcScenarios,
  describeConditions,
  describeCrossplaneOtc,
  FIELD_MANAGER,
  IN_USE_FINALIZER,
  itLeavesOtcEmpty,
  KEYPAIR,
  MR_FINALIZER,
  mrPath,
  namespacePath,
  PAUSED,
  PROVIDER_API,
  providerConfigPath,
  SECRET_VALUES,
  sshPublicKey,
  TEST_TIMEOUT_MS,
  WRONG,
  type Namespace,
  type ProviderConfigObject,
} from "../src/crossplane-otc-scenarios.js";

describeCrossplaneOtc("crossplane-otc-simulator (provider-configs)", () => {
  const s = crossplaneOtcScenarios();
  const { kube, run, namespace, apply, find, get, ready, until, gone, deleteMr, createNamespace, akskCredentials, passwordCredentials, secret, secretAndConfig, providerConfigUntil, usages, liveKeypair } = s;

  it("reports OTC's 401 for bad credentials, AK/SK or password, with no credential in the status", async () => {
    await secretAndConfig(namespace, "bad-aksk", akskCredentials(WRONG.secretKey));
    await secretAndConfig(namespace, "bad-password", passwordCredentials(WRONG.password));
    for (const name of ["bad-aksk", "bad-password"]) {
      await apply(KEYPAIR, name, { providerConfigRef: { kind: "ProviderConfig", name }, forProvider: { name: `${name}-${run}`, publicKey: sshPublicKey() } });
    }
    for (const [name, words] of [
      ["bad-aksk", "the request signature does not match"],
      ["bad-password", "The request you have made requires authentication."],
    ] as const) {
      const mr = await until(KEYPAIR, name, (current) => condition(current, "Synced").status === "False");
      expect(condition(mr, "Synced")).toMatchObject({ reason: "ReconcileError", message: expect.stringMatching(/^connect failed: cannot get terraform setup: .*HTTP 401/) });
      expect(condition(mr, "Synced").message).toContain(words);
      const text = JSON.stringify(mr);
      for (const value of SECRET_VALUES) expect(text).not.toContain(value);
    }

    // Corrected Secrets take effect at the next reconcile.
    await secret(namespace, "bad-password", passwordCredentials());
    await ready(KEYPAIR, "bad-password");
    await secret(namespace, "bad-aksk", akskCredentials());
    await ready(KEYPAIR, "bad-aksk");
    for (const name of ["bad-aksk", "bad-password"]) await deleteMr(KEYPAIR, name);
  }, TEST_TIMEOUT_MS);

  it("reads a ClusterProviderConfig's Secret from the namespace it names, and keeps failing while a Secret is missing", async () => {
    const elsewhere = await createNamespace(`xp-otc-${run}-credentials`);
    await secret(elsewhere, "cluster-credentials", akskCredentials());
    const clusterConfig = `xp-otc-${run}`;
    const clusterConfigPath = `/apis/${PROVIDER_API}/clusterproviderconfigs/${clusterConfig}`;
    await kube.apply(
      clusterConfigPath,
      {
        apiVersion: PROVIDER_API,
        kind: "ClusterProviderConfig",
        metadata: { name: clusterConfig },
        spec: { credentials: { source: "Secret", secretRef: { namespace: elsewhere, name: "cluster-credentials", key: "credentials" } } },
      },
      FIELD_MANAGER,
      { fieldValidation: "Strict" },
    );
    // The MR's namespace has no such Secret: it is read where the config says.
    await apply(KEYPAIR, "cluster-config", { providerConfigRef: { kind: "ClusterProviderConfig", name: clusterConfig }, forProvider: { name: `cpc-${run}`, publicKey: sshPublicKey() } });
    await ready(KEYPAIR, "cluster-config");
    await deleteMr(KEYPAIR, "cluster-config");
    await kube.delete(clusterConfigPath);
    await gone(clusterConfigPath);

    // The Secret goes while an MR still uses it: Connect fails on every reconcile, deletion included.
    await secretAndConfig(namespace, "no-secret", akskCredentials());
    await apply(KEYPAIR, "no-secret", { providerConfigRef: { kind: "ProviderConfig", name: "no-secret" }, forProvider: { name: `no-secret-${run}`, publicKey: sshPublicKey() } });
    await ready(KEYPAIR, "no-secret");
    await kube.delete(`/api/v1/namespaces/${namespace}/secrets/no-secret`);
    await kube.delete(mrPath(KEYPAIR, namespace, "no-secret"));
    const stuck = await until(KEYPAIR, "no-secret", (mr) => condition(mr, "Synced").status === "False");
    expect(condition(stuck, "Synced").message).toBe('connect failed: cannot get terraform setup: cannot extract credentials: cannot get credentials secret: Secret "no-secret" not found');
    expect(stuck.metadata?.finalizers).toContain(MR_FINALIZER);
    expect(liveKeypair(`no-secret-${run}`)).toBe(true);
    await secret(namespace, "no-secret", akskCredentials());
    await gone(mrPath(KEYPAIR, namespace, "no-secret"));
    expect(liveKeypair(`no-secret-${run}`)).toBe(false);
  }, TEST_TIMEOUT_MS);

  it("counts a namespaced ProviderConfig's usages by name across namespaces, as crossplane-runtime v2.0.0 does (crossplane issues 6856, 7154)", async () => {
    const a = await createNamespace(`xp-otc-${run}-a`);
    const b = await createNamespace(`xp-otc-${run}-b`);
    const shared = `shared-${run}`;
    for (const ns of [a, b]) {
      await secretAndConfig(ns, shared, akskCredentials());
      await apply(KEYPAIR, "user", { providerConfigRef: { kind: "ProviderConfig", name: shared }, forProvider: { name: ns, publicKey: sshPublicKey() } }, ns);
      await ready(KEYPAIR, "user", ns);
    }
    // One MR uses each config, yet B's, counted after A's usage exists, counts both.
    await providerConfigUntil(b, shared, (pc) => pc?.status?.users === 2, "counting both namespaces' usages");

    await deleteMr(KEYPAIR, "user", a);
    await eventually(async () => holds((await usages(a)).length === 0, "A's usage not garbage collected yet"), { timeoutMs: 120_000, description: `no usage left in ${a}` });
    await providerConfigUntil(a, shared, (pc) => pc?.status?.users === 1, "counting B's usage");

    await kube.delete(providerConfigPath(a, shared));
    const held = await providerConfigUntil(a, shared, (pc) => condition(pc, "Terminating").status === "True", "held in use");
    expect(held.metadata?.deletionTimestamp).toBeDefined();
    expect(held.metadata?.finalizers).toEqual([IN_USE_FINALIZER]);
    expect(held.status?.users).toBeGreaterThanOrEqual(1);
    expect(condition(held, "Terminating")).toMatchObject({ reason: "InUse", message: "Blocking deletion while usages still exist" });

    // kube-controller-manager empties the namespace but for the held config, and waits.
    await kube.delete(namespacePath(a));
    const terminating = await eventually(
      async () => {
        const ns = await find<Namespace>(namespacePath(a));
        const finalizers = condition(ns, "NamespaceFinalizersRemaining");
        return holds(ns?.status?.phase === "Terminating" && finalizers.status === "True", `namespace ${a}: ${ns?.status?.phase}, ${describeConditions(ns)}`, ns);
      },
      { timeoutMs: 120_000, description: `namespace ${a} Terminating on a finalizer` },
    );
    expect(condition(terminating, "NamespaceFinalizersRemaining").message).toContain(IN_USE_FINALIZER);
    expect(await find(providerConfigPath(a, shared))).toBeDefined();

    await deleteMr(KEYPAIR, "user", b);
    // B's config sees its usage go; A's is not told: crossplane-runtime v2.0.0 enqueues the
    // config of the usage's own namespace, so A's is reconciled again only at the cache's
    // resync (the real provider's --sync, an hour by default). Any other event
    // for A's config (an informer's relist reconciles every config) recounts it
    // too, and once in a CI run one came first: then A's config counted no
    // users and is gone. What it may never show is a count other than 1.
    await providerConfigUntil(b, shared, (pc) => (pc?.status?.users ?? 0) === 0, "counting no users");
    const stale = await find<ProviderConfigObject>(providerConfigPath(a, shared));
    if (stale !== undefined) expect(stale.status?.users).toBe(1);
    // A change to A's config stands in for that resync.
    await kube.request("PATCH", providerConfigPath(a, shared), {
      body: { metadata: { annotations: { "e2e.edgeconnect.eu/resync": "now" } } },
      contentType: "application/merge-patch+json",
    });
    await providerConfigUntil(a, shared, (pc) => pc === undefined, "gone");
    await gone(namespacePath(a));
    expect(liveKeypair(a) || liveKeypair(b)).toBe(false);
  }, TEST_TIMEOUT_MS);

  it("cannot delete an MR in a Terminating namespace, whose ProviderConfigUsage it cannot create again (reference §2.5.1)", async () => {
    const doomed = await createNamespace(`xp-otc-${run}-doomed`);
    const doomedConfig = `doomed-${run}`;
    await secretAndConfig(doomed, doomedConfig, akskCredentials());
    await apply(KEYPAIR, "doomed", { providerConfigRef: { kind: "ProviderConfig", name: doomedConfig }, forProvider: { name: doomed, publicKey: sshPublicKey() } }, doomed);
    const mr = await ready(KEYPAIR, "doomed", doomed);
    const path = mrPath(KEYPAIR, doomed, "doomed");

    // A keypair's destroy takes one reconcile and could end before kube-controller-manager
    // deletes the usage; paused, the MR waits until the usage is gone, as a cluster whose
    // destroy takes minutes would.
    await kube.request("PATCH", path, { body: { metadata: { annotations: { [PAUSED]: "true" } } }, contentType: "application/merge-patch+json" });
    await until(KEYPAIR, "doomed", (current) => condition(current, "Synced").reason === "ReconcilePaused", doomed);
    await kube.delete(namespacePath(doomed));
    await eventually(
      async () => {
        const current = await get(KEYPAIR, "doomed", doomed);
        const left = await usages(doomed);
        return holds(current?.metadata?.deletionTimestamp !== undefined && left.length === 0, `deletionTimestamp ${current?.metadata?.deletionTimestamp}, ${left.length} usages`);
      },
      { timeoutMs: 120_000, description: `namespace ${doomed} emptied but for the MR` },
    );
    await kube.request("PATCH", path, { body: { metadata: { annotations: { [PAUSED]: null } } }, contentType: "application/merge-patch+json" });

    const stuck = await until(KEYPAIR, "doomed", (current) => condition(current, "Synced").reason === "ReconcileError", doomed);
    expect(condition(stuck, "Synced").message).toBe(
      `connect failed: cannot get terraform setup: cannot track ProviderConfig usage: cannot apply ProviderConfigUsage: cannot create object: providerconfigusages.opentelekomcloud.m.crossplane.io "${mr.metadata?.uid}" is forbidden: unable to create new content in namespace ${doomed} because it is being terminated`,
    );
    expect(stuck.metadata?.finalizers).toEqual([MR_FINALIZER]);
    expect(liveKeypair(doomed)).toBe(true);
    const ns = await find<Namespace>(namespacePath(doomed));
    expect(ns?.status?.phase).toBe("Terminating");

    // By hand, as an operator would: delete the keypair in OTC and release the MR.
    await deleteKeypair(s.otc, doomed);
    await kube.request("PATCH", path, { body: { metadata: { finalizers: null } }, contentType: "application/merge-patch+json" });
    await gone(namespacePath(doomed));
  }, TEST_TIMEOUT_MS);

  itLeavesOtcEmpty(s);
});
