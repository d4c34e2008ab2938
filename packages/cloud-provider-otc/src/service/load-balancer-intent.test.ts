import { describe, expect, it } from "@jest/globals";
import { loadBalancerIntent, loadBalancerName, ownedBy, ownershipDescription, type IntentInput } from "./load-balancer-intent.js";

const input = (annotations: Record<string, string> = {}, extra: Partial<IntentInput> = {}): IntentInput => ({
  annotations,
  defaultBandwidthMbit: 100,
  dedicatedAvailable: true,
  ...extra,
});

describe("loadBalancerIntent", () => {
  it("defaults to a shared, internet-facing ELB with an auto-created EIP of the configured bandwidth", () => {
    expect(loadBalancerIntent(input())).toEqual({ intent: { elbClass: "shared", eip: { kind: "auto", bandwidthMbit: 100 } } });
  });

  it("reads class, internal, bring-your-own EIP and bandwidth", () => {
    expect(loadBalancerIntent(input({ "otc.cloud/elb-class": "dedicated", "otc.cloud/elb-bandwidth-mbit": "300" }))).toEqual({
      intent: { elbClass: "dedicated", eip: { kind: "auto", bandwidthMbit: 300 } },
    });
    expect(loadBalancerIntent(input({ "otc.cloud/elb-internal": "true" }))).toEqual({ intent: { elbClass: "shared", eip: { kind: "none" } } });
    expect(loadBalancerIntent(input({ "otc.cloud/elb-eip-id": "eip-1" }))).toEqual({ intent: { elbClass: "shared", eip: { kind: "byo-id", id: "eip-1" } } });
    expect(loadBalancerIntent(input({}, { loadBalancerIP: "80.158.1.2" }))).toEqual({
      intent: { elbClass: "shared", eip: { kind: "byo-address", address: "80.158.1.2" } },
    });
  });

  it("rejects contradictions, saying what to change", () => {
    const cases: Record<string, string>[] = [
      { "otc.cloud/elb-internal": "true", "otc.cloud/elb-eip-id": "eip-1" },
      { "otc.cloud/elb-internal": "true", "otc.cloud/elb-bandwidth-mbit": "50" },
      { "otc.cloud/elb-eip-id": "eip-1", "otc.cloud/elb-bandwidth-mbit": "50" },
    ];
    for (const annotations of cases) {
      expect(loadBalancerIntent(input(annotations))).toMatchObject({ rejected: { reason: "ContradictingAnnotations" } });
    }
    expect(loadBalancerIntent(input({ "otc.cloud/elb-internal": "true" }, { loadBalancerIP: "80.158.1.2" }))).toMatchObject({
      rejected: { reason: "ContradictingAnnotations", message: expect.stringContaining("remove one") as unknown },
    });
  });

  it("rejects values outside the contract", () => {
    const cases: Record<string, string>[] = [
      { "otc.cloud/elb-class": "premium" },
      { "otc.cloud/elb-internal": "yes" },
      { "otc.cloud/elb-bandwidth-mbit": "0" },
      { "otc.cloud/elb-bandwidth-mbit": "1.5" },
      { "otc.cloud/elb-eip-id": "" },
    ];
    for (const annotations of cases) {
      expect(loadBalancerIntent(input(annotations))).toMatchObject({ rejected: { reason: "InvalidAnnotation" } });
    }
  });

  it("refuses dedicated ELBs when cloud.conf has no network-id", () => {
    expect(loadBalancerIntent(input({ "otc.cloud/elb-class": "dedicated" }, { dedicatedAvailable: false }))).toMatchObject({
      rejected: { reason: "DedicatedUnavailable", message: expect.stringContaining("network-id") as unknown },
    });
  });
});

describe("naming and ownership", () => {
  it("names the ELB kube_<cluster>_<namespace>_<service>", () => {
    expect(loadBalancerName("prod-1", "shop", "web")).toBe("kube_prod-1_shop_web");
  });

  it("owns an ELB only if its description carries the Service's UID", () => {
    const uid = "0b8f0c5e-1111-2222-3333-444455556666";
    expect(ownershipDescription(uid)).toBe(`kubernetes.io/service-uid=${uid}`);
    expect(ownedBy(`kubernetes.io/service-uid=${uid}`, uid)).toBe(true);
    expect(ownedBy("kubernetes.io/service-uid=someone-else", uid)).toBe(false);
    expect(ownedBy(undefined, uid)).toBe(false);
  });
});
