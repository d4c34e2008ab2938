/**
 * The bounded `tenant` label. Every distinct label value is a time series
 * Prometheus keeps forever, and a provider serves an open-ended number of
 * tenants, so per-tenant metrics name at most `capacity` tenants and lump
 * the rest together as "other".
 *
 * The scheme: the first `capacity` distinct tenants seen are admitted and
 * keep their own label for the life of the process; every later tenant is
 * "other". It needs no counting, so memory is bounded too, and a tenant's
 * series never disappears or changes meaning mid-run. Tenants with traffic
 * tend to show up first, which makes the tracked set a cheap stand-in for
 * the busiest ones; a restart re-picks it.
 */

/** The label value shared by all tenants that are not tracked individually. */
export const OTHER_TENANT = "other";

/** How many tenants get a label of their own unless configured otherwise. */
export const DEFAULT_TRACKED_TENANTS = 20;

export class TenantLabels {
  readonly #tracked = new Set<string>();

  /** @param capacity tenants that get their own label; default 20. */
  constructor(readonly capacity: number = DEFAULT_TRACKED_TENANTS) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(`tenant label capacity must be a non-negative integer, got ${capacity}`);
    }
  }

  /** The label value for `tenant`: itself when tracked (or admitted now), else "other". */
  label(tenant: string): string {
    if (this.#tracked.has(tenant)) return tenant;
    if (tenant === OTHER_TENANT || this.#tracked.size >= this.capacity) return OTHER_TENANT;
    this.#tracked.add(tenant);
    return tenant;
  }
}
