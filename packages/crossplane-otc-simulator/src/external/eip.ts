/**
 * EIPV1 (opentelekomcloud_vpc_eip_v1): one public IP with its bandwidth
 * (reference §1.6). Terraform waits until the EIP is usable: DOWN while
 * unbound, ACTIVE (or ELB) once bound. The address is in
 * `atProvider.publicip[0].ipAddress` and, as the contract adds,
 * `atProvider.address`.
 */
import { createPublicIp, getPublicIp, releasePublicIp } from "@edgeconnect/otc";
import type { ExternalPhase } from "../managed/conditions.js";
import { defined, firstBlock, numberParameter, requiredString, stringParameter, type ExternalKind } from "../managed/external.js";

const USABLE = new Set(["DOWN", "ACTIVE", "ELB", "VPN"]);
const PENDING = new Set(["PENDING_CREATE", "PENDING_UPDATE", "BINDING", "NOTIFYING"]);

function phaseOf(status: string): ExternalPhase {
  if (USABLE.has(status)) return { kind: "settled" };
  if (PENDING.has(status)) return { kind: "settling" };
  if (status === "PENDING_DELETE" || status === "NOTIFY_DELETE") return { kind: "deleting" };
  return { kind: "failed", message: `unexpected state '${status}', wanted target 'DOWN'` };
}

export const EIP_V1: ExternalKind = {
  group: "vpc.opentelekomcloud.m.crossplane.io",
  version: "v1alpha1",
  kind: "EIPV1",
  plural: "eipv1s",
  scope: "Namespaced",
  // Bandwidth name and size, and the EIP's name and port, change in place in Terraform; the simulator does not do that.
  forceNew: new Set(["publicip.*.type", "publicip.*.ip_address", "bandwidth.*.share_type", "bandwidth.*.charge_mode", "region"]),
  async create({ otc, signal }, parameters) {
    const publicip = firstBlock(parameters, "publicip") ?? {};
    const bandwidth = firstBlock(parameters, "bandwidth") ?? {};
    if (stringParameter(publicip, "ipAddress") !== undefined) throw new Error("the simulator allocates addresses itself: leave publicip[0].ipAddress out");
    const size = numberParameter(bandwidth, "size");
    if (size === undefined) throw new Error('The argument "bandwidth.0.size" is required, but no definition was found.');
    const shareType = stringParameter(bandwidth, "shareType");
    const chargeMode = stringParameter(bandwidth, "chargeMode");
    const alias = stringParameter(publicip, "name");
    const eip = await createPublicIp(
      otc,
      {
        type: stringParameter(publicip, "type") ?? "5_bgp",
        ...(alias === undefined ? {} : { alias }),
        bandwidth: {
          name: requiredString(bandwidth, "name", "bandwidth.0.name"),
          size,
          ...(shareType === "PER" || shareType === "WHOLE" ? { share_type: shareType } : {}),
          ...(chargeMode === "traffic" || chargeMode === "bandwidth" ? { charge_mode: chargeMode } : {}),
        },
      },
      { signal },
    );
    return eip.id;
  },
  async observe({ otc, signal }, id, parameters) {
    const eip = await getPublicIp(otc, id, { signal });
    if (eip === undefined) return undefined;
    const desiredIp = firstBlock(parameters, "publicip") ?? {};
    const desiredBandwidth = firstBlock(parameters, "bandwidth") ?? {};
    const reported = {
      publicip: [defined({ type: eip.type, ipAddress: eip.public_ip_address })],
      bandwidth: [defined({ size: eip.bandwidth_size, shareType: eip.bandwidth_share_type })],
      region: otc.region,
    };
    return {
      phase: phaseOf(eip.status),
      atProvider: {
        ...parameters,
        id: eip.id,
        address: eip.public_ip_address,
        status: eip.status,
        publicip: [defined({ ...desiredIp, type: eip.type, ipAddress: eip.public_ip_address, name: eip.alias, portId: eip.port_id })],
        bandwidth: [defined({ ...desiredBandwidth, size: eip.bandwidth_size, shareType: eip.bandwidth_share_type, id: eip.bandwidth_id })],
        region: otc.region,
      },
      reported,
    };
  },
  async delete({ otc, signal }, id) {
    await releasePublicIp(otc, id, { signal });
  },
};
