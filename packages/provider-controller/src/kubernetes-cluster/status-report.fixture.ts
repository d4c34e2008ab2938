/**
 * What a StatusReport talks to, in memory: a status subresource that
 * answers with the object as written, and a tenant Events sink.
 */
import { expect } from "@jest/globals";
import type { KubernetesCluster, KubernetesClusterStatus } from "@edgeconnect/api";
import type { KubeObject, RequestOptionsLite } from "@edgeconnect/kcp-ts";
import { EventRecorder, ManualClock, type ClusterScope, type EventClient } from "@edgeconnect/runtime";

export type Cluster = KubernetesCluster & KubeObject;

export const REQUEST = { cluster: "tenant-a", namespace: "default", name: "my-cluster" };

export function cluster(status?: KubernetesClusterStatus, spec?: KubernetesCluster["spec"]): Cluster {
  return {
    apiVersion: "platform.edgeconnect.eu/v1alpha1",
    kind: "KubernetesCluster",
    metadata: { name: "my-cluster", namespace: "default", uid: "uid-1", generation: 3, annotations: { "kcp.io/cluster": "tenant-a" } },
    ...(spec ? { spec } : {}),
    ...(status ? { status } : {}),
  };
}

export interface StatusHarness {
  readonly scope: ClusterScope;
  readonly written: () => KubernetesClusterStatus | undefined;
  readonly recorder: EventRecorder;
  readonly events: { reason?: string; type?: string }[];
}

export function statusHarness(kc: Cluster): StatusHarness {
  let status: KubernetesClusterStatus | undefined;
  const client = {
    request: async <T>(method: string, path: string, options?: RequestOptionsLite): Promise<T> => {
      expect(method).toBe("PATCH");
      expect(path).toBe("/apis/platform.edgeconnect.eu/v1alpha1/namespaces/default/kubernetesclusters/my-cluster/status");
      status = (options?.body as { status: KubernetesClusterStatus }).status;
      return { ...kc, status } as T;
    },
  };
  const events: { reason?: string; type?: string }[] = [];
  const eventClient: EventClient = {
    create: async <T>(_path: string, body: unknown) => {
      events.push(body as { reason?: string; type?: string });
      return body as T;
    },
    request: async <T>() => undefined as T,
  };
  const recorder = new EventRecorder({ client: eventClient, component: "test", clock: new ManualClock(), audience: "tenant" });
  const scope = { cluster: "tenant-a", client, lister: () => ({ get: () => undefined, list: () => [] }) } as unknown as ClusterScope;
  return { scope, written: () => status, recorder, events };
}
