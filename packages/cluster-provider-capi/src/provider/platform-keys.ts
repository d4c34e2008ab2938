/**
 * Store keys on the platform cluster, a plain API server: the runtime's
 * keys carry a logical cluster, which is empty here.
 */
import { joinKey } from "@edgeconnect/runtime";

/** The store key of `name` (cluster-scoped when `namespace` is empty). */
export function platformKey(name: string, namespace = ""): string {
  return joinKey({ cluster: "", namespace, name });
}
