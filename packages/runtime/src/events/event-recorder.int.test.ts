/**
 * Events on the real kube-apiserver of the test environment: what
 * `kubectl describe` would show, repeats folded into one Event with a count,
 * cluster-scoped objects' Events in `default`, and the per-object spam limit.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import { connectFromEnv } from "@edgeconnect/testenv";
import { randomBytes } from "node:crypto";
import { ManualClock } from "../queue/clock.js";
import { EventRecorder } from "./event-recorder.js";

const { infra } = connectFromEnv();
const describeInfra = "skipped" in infra ? describe.skip : describe;

interface CoreEvent extends KubeObject {
  involvedObject: { kind: string; name: string; uid: string; namespace?: string };
  reason: string;
  message: string;
  type: string;
  count: number;
  source: { component: string; host?: string };
}

describeInfra("EventRecorder on a real API server", () => {
  const client = infra as RestClient;
  const namespace = `events-${randomBytes(3).toString("hex")}`;
  let configMap: KubeObject;

  beforeAll(async () => {
    await client.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    configMap = await client.create(`/api/v1/namespaces/${namespace}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "subject" } });
  });

  afterAll(async () => {
    await client.delete(`/api/v1/namespaces/${namespace}`);
  });

  async function eventsAbout(ns: string, uid: string): Promise<CoreEvent[]> {
    const list = await client.list<CoreEvent>(`/api/v1/namespaces/${ns}/events`, { query: { fieldSelector: `involvedObject.uid=${uid}` } });
    return list.items;
  }

  it("records an event on the object and folds repeats into one Event with a count", async () => {
    const recorder = new EventRecorder({ client, component: "test-controller", instance: "host-1" });
    recorder.event(configMap, "Warning", "SyncFailed", "could not sync: quota exceeded");
    recorder.event(configMap, "Warning", "SyncFailed", "could not sync: quota exceeded");
    recorder.event(configMap, "Warning", "SyncFailed", "could not sync: quota exceeded");
    recorder.event(configMap, "Normal", "Synced", "synced");
    await recorder.flush();

    const events = await eventsAbout(namespace, configMap.metadata?.uid ?? "");
    const failed = events.filter((event) => event.reason === "SyncFailed");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      type: "Warning",
      message: "could not sync: quota exceeded",
      count: 3,
      involvedObject: { kind: "ConfigMap", name: "subject", namespace },
      source: { component: "test-controller", host: "host-1" },
    });
    expect(events.filter((event) => event.reason === "Synced")).toHaveLength(1);
  });

  it("puts events of cluster-scoped objects in the default namespace", async () => {
    const ns = await client.get(`/api/v1/namespaces/${namespace}`);
    const recorder = new EventRecorder({ client, component: "test-controller" });
    recorder.event(ns, "Normal", "Checked", "namespace checked");
    await recorder.flush();
    expect((await eventsAbout("default", ns.metadata?.uid ?? "")).map((event) => event.reason)).toEqual(["Checked"]);
  });

  it("drops events beyond the per-object burst until the bucket refills", async () => {
    const clock = new ManualClock();
    const other = await client.create(`/api/v1/namespaces/${namespace}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "noisy" } });
    const recorder = new EventRecorder({ client, component: "test-controller", clock, burst: 2, refillIntervalMs: 1_000 });
    for (const n of [1, 2, 3, 4]) recorder.event(other, "Normal", "Step", `step ${n}`);
    await recorder.flush();
    clock.advance(1_000);
    recorder.event(other, "Normal", "Step", "step 5");
    await recorder.flush();
    const messages = (await eventsAbout(namespace, other.metadata?.uid ?? "")).map((event) => event.message).sort();
    expect(messages).toEqual(["step 1", "step 2", "step 5"]);
  });

  it("never fails the caller when the API server refuses the Event", async () => {
    const warnings: string[] = [];
    const recorder = new EventRecorder({ client, component: "test-controller", logger: { warn: (_obj, msg) => warnings.push(msg) } });
    recorder.event({ kind: "Widget", metadata: { name: "x", namespace: "does-not-exist-ns", uid: "u" } }, "Normal", "R", "m");
    await recorder.flush();
    expect(warnings).toEqual(["could not record event"]);
    const list = await client.list<KubeObject>(`/api/v1/namespaces/default/events`, { query: { fieldSelector: "involvedObject.uid=u" } });
    expect(list.items).toHaveLength(0);
  });
});
