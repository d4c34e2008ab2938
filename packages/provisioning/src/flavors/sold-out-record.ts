/**
 * The (flavor, zone) pairs a cluster's node pool was found sold out in,
 * remembered on the cluster's ClusterV3 managed resource on the
 * infrastructure cluster, where tenants cannot write: the controller's
 * memory of what not to try again. The tenant's status shows the same
 * list, but status is the tenant's to write, so it is never read back.
 */
import type { FlavorZone } from "./flavor-matching.js";
import { annotationRecord } from "../records/annotation-record.js";

export const SOLD_OUT_ANNOTATION = "platform.edgeconnect.eu/sold-out";
/** The most pairs remembered, oldest dropped: as many as the status shows. */
export const MAX_SOLD_OUT = 20;

export function soldOutAnnotation(soldOut: readonly FlavorZone[]): Record<string, string> {
  return soldOut.length === 0 ? {} : { [SOLD_OUT_ANNOTATION]: JSON.stringify(soldOut.slice(-MAX_SOLD_OUT).map(({ flavor, zone }) => ({ flavor, zone }))) };
}

/** The pairs recorded in `annotations`; an unreadable record counts as none (the next SoldOut writes it anew). */
export function recordedSoldOut(annotations: Readonly<Record<string, string>> | undefined): FlavorZone[] {
  return annotationRecord(annotations, SOLD_OUT_ANNOTATION)
    .filter((entry): entry is FlavorZone => typeof (entry as Partial<FlavorZone> | null)?.flavor === "string" && typeof (entry as Partial<FlavorZone> | null)?.zone === "string")
    .slice(-MAX_SOLD_OUT)
    .map(({ flavor, zone }) => ({ flavor, zone }));
}
