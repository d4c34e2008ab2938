/**
 * The object metadata our types carry: the fields the platform reads and
 * writes. Our own definition, so that the package depends on no client
 * library; a type alias (not an interface), so that objects of our types are
 * assignable to clients' index-signature object types.
 */
export type ObjectMeta = {
  name?: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  /** RFC 3339 time the object was marked for deletion; set by the server. */
  deletionTimestamp?: string;
  /** RFC 3339 time the object was created; set by the server. */
  creationTimestamp?: string;
};
