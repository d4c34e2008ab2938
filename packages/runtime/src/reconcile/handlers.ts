/**
 * From watch events to requests. Handlers are what a reflector calls; they
 * turn each event into zero or more requests on a controller's queue and
 * carry no state, so a restart loses nothing: the initial list re-enqueues
 * everything.
 */
import { clusterOf, type KubeObject } from "@edgeconnect/kcp-ts";
import type { Keyable } from "../reflector/object-key.js";
import type { DeepReadonly } from "../reflector/store.js";
import type { Request } from "./request.js";

/** The callbacks a reflector invokes with the store's read-only objects; each may be absent. Plain functions: they are passed around detached. */
export interface EventHandlers<T extends KubeObject = KubeObject> {
  readonly added?: (obj: DeepReadonly<T>) => void;
  readonly updated?: (old: DeepReadonly<T>, current: DeepReadonly<T>) => void;
  readonly deleted?: (obj: DeepReadonly<T>) => void;
}

/** Something requests can be sent to: a controller. */
export interface RequestSink {
  enqueue(request: Request): void;
}

/** The request for the object itself. */
export function requestFor(obj: Keyable): Request {
  return {
    cluster: clusterOf(obj) ?? "",
    namespace: obj.metadata?.namespace ?? "",
    name: obj.metadata?.name ?? "",
  };
}

/**
 * Handlers for a controller's primary kind. `updated` enqueues only when
 * something but the status changed: the generation moved, or labels,
 * annotations, finalizers or the deletion timestamp did. Status writes of the
 * controller itself would otherwise trigger a reconcile each.
 */
export function enqueueObject<T extends KubeObject>(sink: RequestSink): EventHandlers<T> {
  return {
    added: (obj) => sink.enqueue(requestFor(obj)),
    updated: (old, current) => {
      if (changedBeyondStatus(old, current)) sink.enqueue(requestFor(current));
    },
    deleted: (obj) => sink.enqueue(requestFor(obj)),
  };
}

/**
 * Handlers for a secondary kind: `map` names the primary objects an event
 * concerns (an owner, the users of a Secret, ...). Every event counts, since
 * a secondary object's status is often what the primary reconciler reads;
 * with `ignoreStatus`, an update counts only when something but the status
 * changed, as for enqueueObject, for reconcilers that read only the spec.
 */
export function enqueueMapped<T extends KubeObject>(
  sink: RequestSink,
  map: (obj: DeepReadonly<T>) => readonly Request[],
  options: { readonly ignoreStatus?: boolean } = {},
): EventHandlers<T> {
  const send = (obj: DeepReadonly<T>): void => {
    for (const request of map(obj)) sink.enqueue(request);
  };
  return {
    added: send,
    updated: (old, current) => {
      if (options.ignoreStatus === true && !changedBeyondStatus(old, current)) return;
      send(old);
      send(current);
    },
    deleted: send,
  };
}

/** One set of handlers that calls each of `handlers` in turn: several controllers fed by one reflector. */
export function combineHandlers<T extends KubeObject>(...handlers: readonly EventHandlers<T>[]): EventHandlers<T> {
  return {
    added: (obj) => handlers.forEach((h) => h.added?.(obj)),
    updated: (old, current) => handlers.forEach((h) => h.updated?.(old, current)),
    deleted: (obj) => handlers.forEach((h) => h.deleted?.(obj)),
  };
}

/** What `changedBeyondStatus` reads; a DeepReadonly of any KubeObject type is assignable to it. */
interface ObjectHead {
  readonly metadata?: {
    readonly generation?: number;
    readonly deletionTimestamp?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly finalizers?: readonly string[];
  };
}

function changedBeyondStatus(old: ObjectHead, current: ObjectHead): boolean {
  const a = old.metadata ?? {};
  const b = current.metadata ?? {};
  if (a.generation === undefined || b.generation === undefined) return true;
  return (
    a.generation !== b.generation ||
    a.deletionTimestamp !== b.deletionTimestamp ||
    !sameJson(a.labels, b.labels) ||
    !sameJson(a.annotations, b.annotations) ||
    !sameJson(a.finalizers, b.finalizers)
  );
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
