/**
 * The infrastructure cluster is a real API server: @kubernetes/client-node
 * creates, lists and watches objects on it with the kubeconfig the test
 * environment wrote. Runs against the local kube-apiserver, or kind when
 * EDGECONNECT_E2E_INFRA=kind and Docker is there; skipped with the reason
 * otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { CoreV1Api, KubeConfig, Watch, type V1ConfigMap } from "@kubernetes/client-node";
import { randomBytes } from "node:crypto";
import { connectFromEnv, eventually } from "@edgeconnect/testenv";

const { state } = connectFromEnv();
const infra = state.infra;
const describeInfra = "skipped" in infra ? describe.skip : describe;
if ("skipped" in infra) console.warn(`infrastructure cluster tests skipped: ${infra.skipped}`);

describeInfra(`infrastructure cluster (${infra.mode})`, () => {
  const kubeConfig = new KubeConfig();
  let core: CoreV1Api;
  const namespace = `smoke-${randomBytes(3).toString("hex")}`;

  beforeAll(async () => {
    if ("skipped" in infra) return;
    kubeConfig.loadFromFile(infra.kubeconfig);
    core = kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
  });

  afterAll(async () => {
    await core?.deleteNamespace({ name: namespace });
  });

  it("round-trips create, list and watch of a ConfigMap", async () => {
    const created = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: "round-trip" }, data: { step: "created" } },
    });
    const listed = await core.listNamespacedConfigMap({ namespace });
    expect(listed.items.map((cm) => cm.metadata?.name)).toContain("round-trip");

    const events: { phase: string; step: string | undefined }[] = [];
    const request = await new Watch(kubeConfig).watch(
      `/api/v1/namespaces/${namespace}/configmaps`,
      { resourceVersion: created.metadata?.resourceVersion ?? "" },
      // Only ours: kube-controller-manager publishes kube-root-ca.crt into every new namespace, whenever it gets to it.
      (phase, obj: V1ConfigMap) => {
        if (obj.metadata?.name === "round-trip") events.push({ phase, step: obj.data?.step });
      },
      () => undefined,
    );
    try {
      await core.patchNamespacedConfigMap({ namespace, name: "round-trip", body: [{ op: "replace", path: "/data/step", value: "updated" }] });
      await core.deleteNamespacedConfigMap({ namespace, name: "round-trip" });
      await eventually(
        () => (events.length >= 2 ? [true, undefined] : [false, `${events.length} events so far`]),
        { timeoutMs: 30_000, description: "watch events" },
      );
    } finally {
      request.abort();
    }
    expect(events.slice(0, 2)).toEqual([
      { phase: "MODIFIED", step: "updated" },
      { phase: "DELETED", step: "updated" },
    ]);
  });
});
