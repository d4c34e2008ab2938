/**
 * Which tenant object an infrastructure object serves, read back from the
 * labels and annotations it was made with: how a Crossplane status change
 * finds the KubernetesCluster to reconcile.
 */
import { LOGICAL_CLUSTER_ANNOTATION, NAME_LABEL, NAMESPACE_LABEL } from "@edgeconnect/provisioning";
import type { Request } from "@edgeconnect/runtime";

interface Labelled {
  readonly metadata?: {
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
}

/** The full value: the annotation when the label had to be shortened, else the label. */
function ownerValue(obj: Labelled, key: string): string | undefined {
  return obj.metadata?.annotations?.[key] ?? obj.metadata?.labels?.[key];
}

/** The KubernetesCluster `obj` was made for, or undefined for an object without our owner marks. */
export function ownerRequest(obj: Labelled): Request | undefined {
  const cluster = obj.metadata?.annotations?.[LOGICAL_CLUSTER_ANNOTATION];
  const namespace = ownerValue(obj, NAMESPACE_LABEL);
  const name = ownerValue(obj, NAME_LABEL);
  if (cluster === undefined || namespace === undefined || name === undefined) return undefined;
  return { cluster, namespace, name };
}

/**
 * Whether `obj` was made for the tenant object `request` names. Not by uid:
 * names are derived from namespace and name, so an object recreated under
 * the same name (only possible once the old one's teardown finished) owns
 * the same infrastructure names.
 */
export function ownedBy(obj: Labelled, request: Request): boolean {
  const owner = ownerRequest(obj);
  return owner !== undefined && owner.cluster === request.cluster && owner.namespace === request.namespace && owner.name === request.name;
}
