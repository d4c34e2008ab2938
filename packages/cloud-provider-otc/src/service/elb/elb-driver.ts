/**
 * What both ELB products do alike: ownership by description, the order of
 * ensure (LB, then listeners/pools/members/monitors, then EIP) and delete
 * (children bottom-up, LB, then the CCM's EIP). The products supply LB
 * creation and their way of giving an LB a public address.
 *
 * A retried create whose first answer was lost can leave two owned LBs with
 * the Service's name; the spare ones are deleted, so exactly one remains.
 */
import type { OtcClient } from "@edgeconnect/otc";
import { ownedBy, ownershipDescription, type ElbClass } from "../load-balancer-intent.js";
import {
  ForeignLoadBalancerError,
  type DesiredLoadBalancer,
  type LoadBalancerDriver,
  type LoadBalancerStatus,
  type Lookup,
} from "../load-balancer.js";
import { reconcileChildren, removeChildren, type OwnedLoadBalancer } from "./children.js";
import type { ElbApi, LoadBalancerView } from "./elb-api.js";
import { releaseOwnedEips } from "./eips.js";
import { Poller, waitActive, waitSettled, type PollOptions } from "./poll.js";

export type LoadBalancerDriverOptions = PollOptions;

export abstract class ElbDriver implements LoadBalancerDriver {
  abstract readonly elbClass: ElbClass;
  protected readonly poller: Poller;

  constructor(
    protected readonly client: OtcClient,
    private readonly api: ElbApi,
    options: PollOptions = {},
  ) {
    this.poller = new Poller(options);
  }

  /** Creates the Service's LB, which does not exist yet. */
  protected abstract createLoadBalancer(desired: DesiredLoadBalancer): Promise<LoadBalancerView>;
  /** Gives the ACTIVE LB the public address the plan asks for; returns the ingress address. */
  protected abstract reconcileEip(desired: DesiredLoadBalancer, lb: LoadBalancerView): Promise<string>;
  /** The address the LB is reachable on now: its EIP, else its VIP. */
  protected abstract ingressOf(lb: LoadBalancerView): Promise<string>;
  /** Runs before the LB is deleted. */
  protected abstract detachEips(lb: LoadBalancerView): Promise<void>;
  abstract withSignal(signal: AbortSignal): LoadBalancerDriver;

  async find(name: string, serviceUid: string): Promise<Lookup> {
    const found = await this.api.listLoadBalancers(this.client, { name });
    const [owned] = ownedFirstKept(found, serviceUid);
    if (owned !== undefined) return { state: "owned", id: owned.id, status: { ingress: [{ ip: await this.ingressOf(owned) }] } };
    const [foreign] = found;
    return foreign === undefined ? { state: "absent" } : { state: "foreign", id: foreign.id };
  }

  async ensure(desired: DesiredLoadBalancer): Promise<LoadBalancerStatus> {
    const found = await this.api.listLoadBalancers(this.client, { name: desired.name });
    const [kept, ...spares] = ownedFirstKept(found, desired.serviceUid);
    const [foreign] = found;
    if (kept === undefined && foreign !== undefined) {
      throw new ForeignLoadBalancerError(
        `load balancer ${desired.name} (${foreign.id}) exists without the description ${ownershipDescription(desired.serviceUid)}; ` +
          "it is left alone: delete or rename it, or change the cluster name",
      );
    }
    for (const spare of spares) await this.deleteLoadBalancer(spare);
    const { id } = kept ?? (await this.createLoadBalancer(desired));
    const owned = this.owned(id);
    const lb = await waitActive(this.client, this.api, this.poller, id);
    await reconcileChildren(owned, desired);
    return { ingress: [{ ip: await this.reconcileEip(desired, lb) }] };
  }

  async delete(name: string, serviceUid: string): Promise<void> {
    const owned = (await this.api.listLoadBalancers(this.client, { name })).filter((lb) => ownedBy(lb.description, serviceUid));
    for (const lb of owned) await this.deleteLoadBalancer(lb);
    await releaseOwnedEips(this.client, serviceUid, { ports: new Set(owned.map((lb) => lb.vip_port_id)) });
  }

  private async deleteLoadBalancer(found: LoadBalancerView): Promise<void> {
    const lb = await waitSettled(this.client, this.api, this.poller, found.id);
    if (lb === undefined) return;
    await this.detachEips(lb);
    await removeChildren(this.owned(lb.id));
    await this.api.deleteLoadBalancer(this.client, lb.id);
    // Its EIPs are free for release only once it is gone, past PENDING_DELETE.
    await waitSettled(this.client, this.api, this.poller, lb.id);
  }

  private owned(id: string): OwnedLoadBalancer {
    return { client: this.client, api: this.api, poller: this.poller, id };
  }
}

/** The Service's LBs, the one to keep first: the most built-up, so removing the spares costs no traffic. */
function ownedFirstKept(found: readonly LoadBalancerView[], serviceUid: string): LoadBalancerView[] {
  return found.filter((lb) => ownedBy(lb.description, serviceUid)).sort((a, b) => b.listeners.length - a.listeners.length);
}
