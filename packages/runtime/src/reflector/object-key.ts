/**
 * The one format of object keys: `cluster|namespace/name`, or `cluster|name`
 * for cluster-scoped objects; cluster "" outside kcp. Stores file objects
 * under it and work queues deduplicate requests by it, so both must compute
 * it here: two formats would silently miss each other's entries.
 *
 * Unambiguous because neither a logical cluster name nor a Kubernetes name
 * or namespace can contain `|` or `/`.
 */
import { clusterOf } from "@edgeconnect/kcp-ts";
import { ObjectKeyError } from "./errors.js";

/** What a key is made of; the same shape as a reconcile Request. */
export interface KeyParts {
  /** Logical cluster (kcp); "" on a plain Kubernetes API server. */
  readonly cluster: string;
  /** "" for cluster-scoped objects. */
  readonly namespace: string;
  readonly name: string;
}

/** What keying needs of an object; any KubeObject, read-only or not, has it. */
export type Keyable = {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly annotations?: Readonly<Record<string, string>>;
  };
};

export function joinKey(parts: KeyParts): string {
  return parts.namespace === "" ? `${parts.cluster}|${parts.name}` : `${parts.cluster}|${parts.namespace}/${parts.name}`;
}

/** The parts of a key. A key without `|` is read as cluster "". */
export function splitKey(key: string): KeyParts {
  const bar = key.indexOf("|");
  const cluster = bar === -1 ? "" : key.slice(0, bar);
  const local = key.slice(bar + 1);
  const slash = local.indexOf("/");
  return slash === -1
    ? { cluster, namespace: "", name: local }
    : { cluster, namespace: local.slice(0, slash), name: local.slice(slash + 1) };
}

/** The key of an object; throws ObjectKeyError when it has no name. */
export function objectKey(obj: Keyable): string {
  const name = obj.metadata?.name;
  if (name === undefined || name === "") throw new ObjectKeyError(obj);
  return joinKey({ cluster: clusterOf(obj) ?? "", namespace: obj.metadata?.namespace ?? "", name });
}
