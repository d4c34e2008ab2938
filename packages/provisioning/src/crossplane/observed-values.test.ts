import { describe, expect, it } from "@jest/globals";
import { eipAddress, externalStatus, observedId, subnetNetworkId, type ObservedManagedResource } from "./observed-values.js";

const withAtProvider = (atProvider: Record<string, unknown>, annotations?: Record<string, string>): ObservedManagedResource => ({
  metadata: annotations === undefined ? {} : { annotations },
  status: { atProvider },
});

describe("observed values", () => {
  it.each<[string, ObservedManagedResource | undefined, string | undefined]>([
    ["atProvider.id", withAtProvider({ id: "a" }, { "crossplane.io/external-name": "b" }), "a"],
    ["the external name without atProvider.id", withAtProvider({}, { "crossplane.io/external-name": "b" }), "b"],
    ["an empty id as none", withAtProvider({ id: "" }), undefined],
    ["nothing", undefined, undefined],
  ])("observedId from %s", (_case, mr, id) => {
    expect(observedId(mr)).toBe(id);
  });

  it.each<[string, ObservedManagedResource, string | undefined]>([
    ["networkId", withAtProvider({ id: "id", networkId: "net", subnetId: "neutron-subnet" }), "net"],
    ["id when networkId is missing", withAtProvider({ id: "id", subnetId: "neutron-subnet" }), "id"],
  ])("subnetNetworkId takes %s, never the neutron subnet id", (_case, mr, id) => {
    expect(subnetNetworkId(mr)).toBe(id);
  });

  it.each<[string, ObservedManagedResource, string | undefined]>([
    ["publicip[0].ipAddress, never an address field (the provider has none)", withAtProvider({ address: "1.2.3.4", publicip: [{ ipAddress: "5.6.7.8" }] }), "5.6.7.8"],
    ["publicip[0].ipAddress", withAtProvider({ publicip: [{ ipAddress: "5.6.7.8" }] }), "5.6.7.8"],
    ["a malformed publicip", withAtProvider({ publicip: ["x"] }), undefined],
    ["nothing", withAtProvider({}), undefined],
  ])("eipAddress from %s", (_case, mr, address) => {
    expect(eipAddress(mr)).toBe(address);
  });

  it.each<[unknown, string | undefined]>([
    ["OK", "OK"],
    ["", ""],
    [7, undefined],
    [undefined, undefined],
  ])("externalStatus of %j", (status, expected) => {
    expect(externalStatus(withAtProvider(status === undefined ? {} : { status }))).toBe(expected);
  });
});
