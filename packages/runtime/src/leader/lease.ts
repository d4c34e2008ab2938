/**
 * A `coordination.k8s.io/v1` Lease as a lock record: read it, create it, and
 * replace it only if nobody changed it since we read it (the resourceVersion
 * rides along, so a concurrent writer makes ours fail with 409). Every call
 * takes the signal that bounds the attempt it belongs to.
 */
import { getIfPresent, HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** metav1.MicroTime: RFC 3339 with microseconds. */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

/** What a lease lock needs of a client. */
export type LeaseClient = Pick<RestClient, "get" | "create" | "replace" | "list">;

/** metav1.MicroTime's wire form. */
export function microTime(date: Date): string {
  return date.toISOString().replace("Z", "000Z");
}

export class LeaseLock {
  constructor(
    private readonly client: LeaseClient,
    readonly namespace: string,
    readonly name: string,
    /** Labels put on the Lease when it is created (membership queries use them). */
    private readonly labels: Record<string, string> = {},
  ) {}

  private get path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.namespace}/leases/${this.name}`;
  }

  /** The current Lease, or undefined if there is none. */
  async get(signal?: AbortSignal): Promise<Lease | undefined> {
    return getIfPresent<Lease>(this.client, this.path, { signal });
  }

  /** Creates the Lease; undefined if someone else created it first. */
  async create(spec: LeaseSpec, signal?: AbortSignal): Promise<Lease | undefined> {
    try {
      return await this.client.create<Lease>(
        `/apis/coordination.k8s.io/v1/namespaces/${this.namespace}/leases`,
        {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name: this.name, namespace: this.namespace, labels: this.labels },
          spec,
        },
        { signal },
      );
    } catch (err) {
      if (err instanceof HttpStatusError && err.status === 409) return undefined;
      throw err;
    }
  }

  /** Replaces the spec of `current`; undefined if the Lease changed since it was read. */
  async update(current: Lease, spec: LeaseSpec, signal?: AbortSignal): Promise<Lease | undefined> {
    try {
      return await this.client.replace<Lease>(this.path, { ...current, spec }, { signal });
    } catch (err) {
      if (err instanceof HttpStatusError && err.status === 409) return undefined;
      throw err;
    }
  }
}
