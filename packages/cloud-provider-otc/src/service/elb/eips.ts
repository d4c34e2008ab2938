/**
 * The EIP side of an ELB, shared by both products. Ownership is uniform:
 * an EIP the CCM allocates carries the alias `k8s-svc-<serviceUid>`, which
 * is how it is found again after a crash between allocating and binding
 * (instead of allocating a second one), and the only EIPs the CCM ever
 * releases. A BYO EIP (by id or address) is bound and, once the plan no
 * longer names it, unbound, but never released.
 *
 * The client retries a POST whose answer was lost, so one allocation can
 * leave several alias-owned EIPs; `releaseOwnedEips` releases the spares.
 */
import {
  createPublicIp,
  getPublicIp,
  listPublicIps,
  releasePublicIp,
  unbindPublicIp,
  type OtcClient,
  type PublicIp,
} from "@edgeconnect/otc";
import type { EipPlan } from "../load-balancer-intent.js";
import { EipUnavailableError } from "../load-balancer.js";
import { waitEipUsable, type Poller } from "./poll.js";

/** Both the EIP alias and its bandwidth name: 1–64 characters of [A-Za-z0-9_.-]. */
export function eipAlias(serviceUid: string): string {
  return `k8s-svc-${serviceUid}`.replace(/[^A-Za-z0-9_.-]/g, "-").slice(0, 64);
}

export async function ownedEips(client: OtcClient, serviceUid: string): Promise<PublicIp[]> {
  const alias = eipAlias(serviceUid);
  return (await listPublicIps(client)).filter((eip) => eip.alias === alias);
}

/**
 * The EIP the plan names, usable for binding to `portId` (undefined: a port
 * that does not exist yet), or undefined for an internal LB.
 */
export async function plannedEip(
  client: OtcClient,
  poller: Poller,
  plan: EipPlan,
  serviceUid: string,
  portId: string | undefined,
): Promise<PublicIp | undefined> {
  switch (plan.kind) {
    case "none":
      return undefined;
    case "auto":
      return waitEipUsable(client, poller, await ownedEip(client, serviceUid, plan.bandwidthMbit, portId));
    case "byo-id":
    case "byo-address":
      return waitEipUsable(client, poller, await byoEip(client, plan, portId));
  }
}

/**
 * The alias-owned EIP, preferring one already on `portId`; allocated only if
 * there is none to use. Spares are left to `releaseOwnedEips`.
 */
async function ownedEip(client: OtcClient, serviceUid: string, bandwidthMbit: number, portId: string | undefined): Promise<PublicIp> {
  const owned = await ownedEips(client, serviceUid);
  const usable = owned.find((eip) => portId !== undefined && eip.port_id === portId) ?? owned.find((eip) => !eip.port_id);
  if (usable !== undefined) return usable;
  const alias = eipAlias(serviceUid);
  return createPublicIp(client, { alias, bandwidth: { name: alias, size: bandwidthMbit, share_type: "PER" } });
}

async function byoEip(client: OtcClient, plan: Extract<EipPlan, { kind: "byo-id" | "byo-address" }>, portId: string | undefined): Promise<PublicIp> {
  const eip =
    plan.kind === "byo-id"
      ? await getPublicIp(client, plan.id)
      : (await listPublicIps(client)).find((candidate) => candidate.public_ip_address === plan.address);
  if (eip === undefined) {
    throw new EipUnavailableError(plan.kind === "byo-id" ? `EIP ${plan.id} does not exist` : `no EIP has the address ${plan.address}`);
  }
  if (eip.port_id && eip.port_id !== portId) {
    throw new EipUnavailableError(`EIP ${eip.public_ip_address} (${eip.id}) is bound to another port; unbind it first`);
  }
  return eip;
}

/**
 * Releases the Service's alias-owned EIPs except `keepId`: unbound ones, and
 * ones on `ports` (the Service's own VIP ports) after unbinding. One bound
 * anywhere else is left alone: someone moved it on purpose.
 */
export async function releaseOwnedEips(
  client: OtcClient,
  serviceUid: string,
  options: { readonly keepId?: string; readonly ports: ReadonlySet<string> },
): Promise<void> {
  for (const eip of await ownedEips(client, serviceUid)) {
    if (eip.id === options.keepId) continue;
    if (eip.port_id) {
      if (!options.ports.has(eip.port_id)) continue;
      await unbindPublicIp(client, eip.id);
    }
    await releasePublicIp(client, eip.id);
  }
}
