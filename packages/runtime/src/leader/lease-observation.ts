/**
 * When a Lease counts as expired, judged by local observation as client-go
 * does: a record's clock starts when we first see that record (by
 * resourceVersion) and runs for its leaseDurationSeconds by *our* clock.
 * Remote timestamps are never compared, so clock skew between replicas cannot
 * make two holders. Used for Leases we contend for and for Leases we only
 * watch (other replicas' memberships).
 */
import type { Lease, LeaseSpec } from "./lease.js";

export class LeaseObservation {
  private seen: { readonly resourceVersion: string | undefined; readonly spec: LeaseSpec; readonly at: number } | undefined;

  /** Notes `lease` as seen at `now`; the clock restarts only if the record changed. */
  observe(lease: Lease, now: number): void {
    if (this.seen !== undefined && this.seen.resourceVersion === lease.metadata?.resourceVersion) return;
    this.seen = { resourceVersion: lease.metadata?.resourceVersion, spec: lease.spec ?? {}, at: now };
  }

  /** The holder as last seen ("" if released), whether or not still valid. */
  get holder(): string | undefined {
    return this.seen?.spec.holderIdentity;
  }

  /** How long the record has been expired at `now` (0 while valid or never seen); a released one counts from when it was seen. */
  expiredFor(now: number): number {
    if (this.seen === undefined) return 0;
    const released = (this.seen.spec.holderIdentity ?? "") === "";
    const expiry = this.seen.at + (released ? 0 : (this.seen.spec.leaseDurationSeconds ?? 0) * 1000);
    return Math.max(0, now - expiry);
  }

  /** The holder whose Lease is still valid at `now`; undefined if released or expired. */
  validHolder(now: number): string | undefined {
    const holder = this.seen?.spec.holderIdentity ?? "";
    if (this.seen === undefined || holder === "") return undefined;
    return this.seen.at + (this.seen.spec.leaseDurationSeconds ?? 0) * 1000 > now ? holder : undefined;
  }
}
