import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { containedFailures, REDACTED, registerSecret } from "@edgeconnect/redaction";
import { ManualClock } from "../queue/clock.js";
import { EventRecorder, type EventClient } from "./event-recorder.js";

/** Records what would be sent; every write succeeds. */
function fakeClient(): { client: EventClient; sent: { path: string; body: unknown }[] } {
  const sent: { path: string; body: unknown }[] = [];
  const client: EventClient = {
    create: async <T>(path: string, body: unknown) => {
      sent.push({ path, body });
      return body as T;
    },
    request: async <T>(method: string, path: string, options?: { body?: unknown }) => {
      sent.push({ path: `${method} ${path}`, body: options?.body });
      return undefined as T;
    },
  };
  return { client, sent };
}

const SUBJECT: KubeObject = { apiVersion: "v1", kind: "Service", metadata: { name: "web", namespace: "shop", uid: "u-1" } };

describe("EventRecorder", () => {
  it("scrubs registered credentials and bearer tokens from messages before sending", async () => {
    const token = "event-fake-token-0001";
    registerSecret(token);
    const { client, sent } = fakeClient();
    const recorder = new EventRecorder({ client, component: "test", clock: new ManualClock() });
    recorder.event(SUBJECT, "Warning", "SyncFailed", `GET /api: HTTP 401: token ${token} rejected (Authorization: Bearer unregistered-0001)`);
    await recorder.flush();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toMatchObject({ message: `GET /api: HTTP 401: token ${REDACTED} rejected (Authorization: Bearer ${REDACTED})` });
    expect(JSON.stringify(sent)).not.toMatch(/event-fake-token-0001|unregistered-0001/);
  });

  it("never throws into the reconcile that records an Event, and counts what it contained", async () => {
    const { client, sent } = fakeClient();
    const recorder = new EventRecorder({ client, component: "test", clock: new ManualClock() });
    const before = containedFailures().get("event") ?? 0;
    const hostile = {
      ...SUBJECT,
      get metadata(): never {
        throw new Error("metadata-getter-hostile-0001");
      },
    } as KubeObject;
    expect(() => recorder.event(hostile, "Warning", "SyncFailed", "message")).not.toThrow();
    const clientThrows = new EventRecorder({
      client: () => {
        throw new Error("client-lookup-hostile-0002");
      },
      component: "test",
      clock: new ManualClock(),
    });
    clientThrows.event(SUBJECT, "Warning", "SyncFailed", "message");
    await Promise.all([recorder.flush(), clientThrows.flush()]);
    expect(sent).toHaveLength(0);
    expect(containedFailures().get("event")).toBe(before + 1);
  });

  it("folds messages that differ only in a credential into one Event", async () => {
    registerSecret("event-fake-token-0002");
    registerSecret("event-fake-token-0003");
    const { client, sent } = fakeClient();
    const recorder = new EventRecorder({ client, component: "test", clock: new ManualClock() });
    recorder.event(SUBJECT, "Warning", "SyncFailed", "rejected event-fake-token-0002");
    recorder.event(SUBJECT, "Warning", "SyncFailed", "rejected event-fake-token-0003");
    await recorder.flush();
    expect(sent.map((write) => write.path)).toEqual([
      "/api/v1/namespaces/shop/events",
      expect.stringMatching(/^PATCH \/api\/v1\/namespaces\/shop\/events\/web\./),
    ]);
    expect(sent[1]?.body).toMatchObject({ count: 2 });
  });

  it("tells a tenant what happened without infrastructure details when its audience is tenants", async () => {
    registerSecret("event-fake-token-0004");
    const { client, sent } = fakeClient();
    const recorder = new EventRecorder({ client, component: "provider-controller", clock: new ManualClock(), audience: "tenant" });
    recorder.event(
      SUBJECT,
      "Warning",
      "ProvisioningFailed",
      "PUT https://infra.internal:6443/api/v1/namespaces/kcp-0123456789ab/secrets/x failed with event-fake-token-0004",
    );
    await recorder.flush();
    const message = (sent[0]?.body as { message?: string } | undefined)?.message ?? "";
    expect(message).not.toMatch(/infra\.internal|6443|kcp-0123456789ab|event-fake-token-0004/);
    expect(message).not.toBe("");
  });

  it("sends each Event through the client of its subject's cluster, and drops it when no client serves that cluster", async () => {
    const a = fakeClient();
    const b = fakeClient();
    const warnings: object[] = [];
    const clients = new Map([["tenant-a", a.client], ["tenant-b", b.client]]);
    const recorder = new EventRecorder({
      client: (regarding) => clients.get(regarding.metadata?.annotations?.["kcp.io/cluster"] ?? ""),
      component: "test",
      clock: new ManualClock(),
      logger: { warn: (obj) => warnings.push(obj) },
    });
    const inCluster = (cluster: string, uid: string): KubeObject => ({ ...SUBJECT, metadata: { ...SUBJECT.metadata, uid, annotations: { "kcp.io/cluster": cluster } } });
    recorder.event(inCluster("tenant-a", "a-1"), "Normal", "Created", "made");
    recorder.event(inCluster("tenant-b", "b-1"), "Normal", "Created", "made");
    recorder.event(inCluster("gone", "c-1"), "Normal", "Created", "made");
    await recorder.flush();
    expect(a.sent).toHaveLength(1);
    expect(b.sent).toHaveLength(1);
    expect(warnings).toEqual([expect.objectContaining({ reason: "Created" })]);
  });
});
