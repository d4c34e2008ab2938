/**
 * The unit of work: which object to reconcile, never what happened to it.
 * The runtime stamps the logical cluster onto every request; reconcilers use
 * it only to pick a client or store and as a log field.
 */
import { fingerprint } from "@edgeconnect/kcp-ts";

export interface Request {
  /** Logical cluster (kcp); "" on a plain Kubernetes API server. */
  readonly cluster: string;
  /** "" for cluster-scoped objects. */
  readonly namespace: string;
  readonly name: string;
}

/** `cluster|namespace/name`, the same key the store uses. */
export function requestKey(request: Request): string {
  const local = request.namespace === "" ? request.name : `${request.namespace}/${request.name}`;
  return `${request.cluster}|${local}`;
}

/** The request an object key (`cluster|namespace/name` or `cluster|name`) stands for. */
export function requestFromKey(key: string): Request {
  const bar = key.indexOf("|");
  const cluster = bar === -1 ? "" : key.slice(0, bar);
  const local = key.slice(bar + 1);
  const slash = local.indexOf("/");
  return slash === -1
    ? { cluster, namespace: "", name: local }
    : { cluster, namespace: local.slice(0, slash), name: local.slice(slash + 1) };
}

/** The tenant a request belongs to: the fingerprint of its logical cluster. */
export function tenantOf(request: Request): string {
  return fingerprint(request.cluster);
}

/** `cluster://<cluster>/<namespace>/<name>`, for messages. */
export function describeRequest(request: Request): string {
  return `cluster://${request.cluster}/${request.namespace === "" ? "" : `${request.namespace}/`}${request.name}`;
}
