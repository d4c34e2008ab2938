/**
 * The unit of work: which object to reconcile, never what happened to it.
 * The runtime stamps the logical cluster onto every request; reconcilers use
 * it only to pick a client or store and as a log field.
 */
import { fingerprint } from "@edgeconnect/kcp-ts";
import { joinKey, type KeyParts } from "../reflector/object-key.js";

/** A request names its object by exactly the parts of the object's key. */
export type Request = KeyParts;

/** The request's object key (`cluster|namespace/name`), the one the store files the object under. */
export function requestKey(request: Request): string {
  return joinKey(request);
}

/** The tenant a request belongs to: the fingerprint of its logical cluster. */
export function tenantOf(request: Request): string {
  return fingerprint(request.cluster);
}

/** `cluster://<cluster>/<namespace>/<name>`, for messages. */
export function describeRequest(request: Request): string {
  return `cluster://${request.cluster}/${request.namespace === "" ? "" : `${request.namespace}/`}${request.name}`;
}
