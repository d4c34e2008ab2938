/**
 * Dedicated ELB (v3) driver. A dedicated LB takes its EIP at creation
 * (`publicip_ids`): the CCM allocates an auto EIP through the VPC API with
 * its ownership alias first, so the same rules as for shared LBs find,
 * deduplicate and release it. The LB update API has no EIP field and the
 * VPC v1 API does not detach an EIP from a dedicated LB, so the EIP plan of
 * a live dedicated LB cannot change: listeners, pools and members are still
 * reconciled, then `EipPlanChangeError` tells the user to recreate the
 * Service. (The simulator would accept a v1 bind to the VIP port; real OTC
 * routes dedicated LBs through EIP v3 associate-instance, which the client
 * does not have.)
 *
 * Availability zones: `options.availabilityZones`, default `<region>-01`
 * (the controller passes cloud.conf's). Deleting the LB unbinds its EIPs;
 * the CCM-owned one is then released, a BYO one stays.
 */
import { createLoadBalancerV3, getPublicIp, type OtcClient } from "@edgeconnect/otc";
import type { EipPlan } from "../load-balancer-intent.js";
import type { DesiredLoadBalancer } from "../load-balancer.js";
import { dedicatedElbApi } from "./dedicated-api.js";
import type { LoadBalancerView } from "./elb-api.js";
import { ElbDriver, type LoadBalancerDriverOptions } from "./elb-driver.js";
import { eipAlias, plannedEip, releaseOwnedEips } from "./eips.js";
import { EipPlanChangeError } from "./errors.js";

export interface DedicatedLoadBalancerDriverOptions extends LoadBalancerDriverOptions {
  /** Where new dedicated LBs are placed; default `[<region>-01]`. */
  readonly availabilityZones?: readonly string[];
}

export class DedicatedLoadBalancerDriver extends ElbDriver {
  readonly elbClass = "dedicated";
  private readonly availabilityZones: readonly string[];

  constructor(
    client: OtcClient,
    private readonly options: DedicatedLoadBalancerDriverOptions = {},
  ) {
    super(client, dedicatedElbApi, options);
    this.availabilityZones = options.availabilityZones?.length ? options.availabilityZones : [`${client.region}-01`];
  }

  withSignal(signal: AbortSignal): DedicatedLoadBalancerDriver {
    return new DedicatedLoadBalancerDriver(this.client.withSignal(signal), this.options);
  }

  protected async createLoadBalancer(desired: DesiredLoadBalancer): Promise<LoadBalancerView> {
    if (desired.networkId === undefined) throw new Error("a dedicated load balancer needs network-id in the [LoadBalancer] section of cloud.conf");
    const eip = await plannedEip(this.client, this.poller, desired.eip, desired.serviceUid, undefined);
    return createLoadBalancerV3(this.client, {
      name: desired.name,
      description: desired.description,
      availability_zone_list: this.availabilityZones,
      vip_subnet_cidr_id: desired.subnetId,
      elb_virsubnet_ids: [desired.networkId],
      ...(eip === undefined ? {} : { publicip_ids: [eip.id] }),
    });
  }

  protected async reconcileEip(desired: DesiredLoadBalancer, lb: LoadBalancerView): Promise<string> {
    const attached = lb.publicips ?? [];
    if (!(await this.fits(desired.eip, desired.serviceUid, attached))) {
      const has = attached.length === 0 ? "no EIP" : `EIP ${attached.map((eip) => eip.publicip_address).join(", ")}`;
      throw new EipPlanChangeError(
        `dedicated load balancer ${desired.name} has ${has}, but the Service asks for ${describe(desired.eip)}; ` +
          "a dedicated ELB gets its EIP only at creation: delete and recreate the Service to change it",
      );
    }
    const [current] = attached;
    await releaseOwnedEips(this.client, desired.serviceUid, { keepId: current?.publicip_id, ports: new Set() });
    return current?.publicip_address ?? lb.vip_address;
  }

  protected ingressOf(lb: LoadBalancerView): Promise<string> {
    return Promise.resolve(lb.publicips?.[0]?.publicip_address ?? lb.vip_address);
  }

  protected detachEips(): Promise<void> {
    return Promise.resolve();
  }

  private async fits(plan: EipPlan, serviceUid: string, attached: NonNullable<LoadBalancerView["publicips"]>): Promise<boolean> {
    const [only, ...more] = attached;
    if (only === undefined) return plan.kind === "none";
    if (more.length > 0) return false;
    switch (plan.kind) {
      case "none":
        return false;
      case "byo-id":
        return only.publicip_id === plan.id;
      case "byo-address":
        return only.publicip_address === plan.address;
      case "auto":
        return (await getPublicIp(this.client, only.publicip_id))?.alias === eipAlias(serviceUid);
    }
  }
}

function describe(plan: EipPlan): string {
  switch (plan.kind) {
    case "none":
      return "no EIP (internal)";
    case "auto":
      return "an EIP allocated by the CCM";
    case "byo-id":
      return `EIP ${plan.id}`;
    case "byo-address":
      return `the EIP with address ${plan.address}`;
  }
}
