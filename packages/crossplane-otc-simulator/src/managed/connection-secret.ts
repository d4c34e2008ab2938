/**
 * crossplane-runtime's connection publishing for an MR with
 * `writeConnectionSecretToRef`: a Secret of that name in the MR's
 * namespace, owned by the MR, of type `connection.crossplane.io/v1alpha1`.
 * Upjet puts only sensitive Terraform attributes into it and none of our
 * kinds has one that we fill, so the Secret carries no data (reference §1.6).
 */
import { deleteIfPresent, type RestClient } from "@edgeconnect/kcp-ts";
import { apiVersionOf, type ManagedKind, type ManagedResource } from "./resource.js";

export const CONNECTION_SECRET_TYPE = "connection.crossplane.io/v1alpha1";

export interface PublishContext {
  readonly client: Pick<RestClient, "apply" | "delete">;
  readonly fieldManager: string;
  readonly signal: AbortSignal;
}

function secretPath(mr: ManagedResource, name: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(mr.metadata?.namespace ?? "")}/secrets/${encodeURIComponent(name)}`;
}

export async function publishConnection(mr: ManagedResource, kind: ManagedKind, context: PublishContext): Promise<void> {
  const name = mr.spec?.writeConnectionSecretToRef?.name;
  if (name === undefined || name === "") return;
  const owner = { apiVersion: apiVersionOf(kind), kind: kind.kind, name: mr.metadata?.name ?? "", uid: mr.metadata?.uid ?? "", controller: true, blockOwnerDeletion: true };
  const secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace: mr.metadata?.namespace, ownerReferences: [owner] },
    type: CONNECTION_SECRET_TYPE,
    data: {},
  };
  await context.client.apply(secretPath(mr, name), secret, context.fieldManager, { signal: context.signal });
}

/**
 * Deletes the connection Secret of a released MR: what the garbage collector
 * does through the owner reference, done here because a bare kube-apiserver
 * (the test clusters) has no garbage collector.
 */
export async function unpublishConnection(mr: ManagedResource, context: Pick<PublishContext, "client" | "signal">): Promise<void> {
  const name = mr.spec?.writeConnectionSecretToRef?.name;
  if (name === undefined || name === "") return;
  await deleteIfPresent(context.client, secretPath(mr, name), { signal: context.signal });
}
