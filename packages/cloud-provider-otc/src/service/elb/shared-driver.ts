/**
 * Shared ELB (v2) driver. A shared LB is private; its public address is an
 * EIP bound to the VIP port through the VPC API, so the EIP can follow the
 * plan on a live LB:
 *
 * - auto → none (internal), or auto → BYO: the CCM-owned EIP is unbound and
 *   released. (The seed CCM's v1 kept it, a documented limitation; the
 *   alias marks it as ours, so releasing it is safe.)
 * - BYO → anything else: the BYO EIP is unbound, never released.
 * - none → auto/BYO: the EIP is allocated or looked up and bound.
 *
 * Deleting unbinds every EIP from the VIP port before the LB goes.
 */
import {
  bindPublicIp,
  createLoadBalancerV2,
  listPublicIps,
  unbindPublicIp,
  type OtcClient,
  type PublicIp,
} from "@edgeconnect/otc";
import type { DesiredLoadBalancer } from "../load-balancer.js";
import type { LoadBalancerView } from "./elb-api.js";
import { ElbDriver, type LoadBalancerDriverOptions } from "./elb-driver.js";
import { plannedEip, releaseOwnedEips } from "./eips.js";
import { sharedElbApi } from "./shared-api.js";

export class SharedLoadBalancerDriver extends ElbDriver {
  readonly elbClass = "shared";

  constructor(
    client: OtcClient,
    private readonly options: LoadBalancerDriverOptions = {},
  ) {
    super(client, sharedElbApi, options);
  }

  withSignal(signal: AbortSignal): SharedLoadBalancerDriver {
    return new SharedLoadBalancerDriver(this.client.withSignal(signal), this.options);
  }

  protected createLoadBalancer(desired: DesiredLoadBalancer): Promise<LoadBalancerView> {
    return createLoadBalancerV2(this.client, { name: desired.name, description: desired.description, vip_subnet_id: desired.subnetId });
  }

  protected async reconcileEip(desired: DesiredLoadBalancer, lb: LoadBalancerView): Promise<string> {
    const port = lb.vip_port_id;
    const target = await plannedEip(this.client, this.poller, desired.eip, desired.serviceUid, port);
    // A port holds one EIP: the old one must go before the new one binds.
    for (const eip of await this.boundTo(port)) if (eip.id !== target?.id) await unbindPublicIp(this.client, eip.id);
    await releaseOwnedEips(this.client, desired.serviceUid, { keepId: target?.id, ports: new Set([port]) });
    if (target !== undefined && target.port_id !== port) await bindPublicIp(this.client, target.id, port);
    return target?.public_ip_address ?? lb.vip_address;
  }

  protected async ingressOf(lb: LoadBalancerView): Promise<string> {
    const [eip] = await this.boundTo(lb.vip_port_id);
    return eip?.public_ip_address ?? lb.vip_address;
  }

  protected async detachEips(lb: LoadBalancerView): Promise<void> {
    for (const eip of await this.boundTo(lb.vip_port_id)) await unbindPublicIp(this.client, eip.id);
  }

  private async boundTo(portId: string): Promise<PublicIp[]> {
    return (await listPublicIps(this.client)).filter((eip) => eip.port_id === portId);
  }
}
