import { describe, expect, it } from "@jest/globals";
import { refusedChanges, type DesiredInfrastructure, type ObservedInfrastructure } from "./in-place-changes.js";

const DESIRED: DesiredInfrastructure = { kubernetesVersion: "v1.31", nodeAvailableZone: "random", nodeDiskGiB: 100 };
const OBSERVED: ObservedInfrastructure = { clusterVersion: "v1.31", masterZone: null, nodePoolZone: "random", nodeDiskGiB: 100 };

describe("refusedChanges", () => {
  it.each<[string, Partial<DesiredInfrastructure>, Partial<ObservedInfrastructure>]>([
    ["an unchanged spec", {}, {}],
    ["a version without v", { kubernetesVersion: "1.31" }, {}],
    ["the patch CCE installed", {}, { clusterVersion: "v1.31.10-r12" }],
    ["an unknown infrastructure", { kubernetesVersion: "v1.40", availableZone: "eu-de-01" }, { clusterVersion: undefined, masterZone: undefined, nodePoolZone: undefined, nodeDiskGiB: undefined }],
    ["the same control-plane zone", { availableZone: "eu-de-01" }, { masterZone: "eu-de-01" }],
    ["the same VPC and subnet", { vpcID: "v", subnetID: "s" }, { vpcId: "v", subnetId: "s" }],
    ["our own VPC when the tenant brings none", {}, { vpcId: "ours", subnetId: "ours" }],
  ])("refuses nothing for %s", (_case, desired, observed) => {
    expect(refusedChanges({ ...DESIRED, ...desired }, { ...OBSERVED, ...observed })).toEqual([]);
  });

  it.each<[string, Partial<DesiredInfrastructure>, Partial<ObservedInfrastructure>, string]>([
    ["a minor upgrade", { kubernetesVersion: "1.32" }, { clusterVersion: "1.31" }, "kubernetes.version cannot change from v1.31 to v1.32 in place; set it back to v1.31"],
    ["a patch change", { kubernetesVersion: "v1.31.9" }, { clusterVersion: "v1.31.10-r12" }, "kubernetes.version cannot change from v1.31.10-r12 to v1.31.9 in place; set it back to v1.31.10-r12"],
    ["another control-plane zone", { availableZone: "eu-de-02" }, { masterZone: "eu-de-01" }, "availableZone cannot change from eu-de-01 to eu-de-02 in place; set it back to eu-de-01"],
    ["a removed control-plane zone", {}, { masterZone: "eu-de-01" }, "availableZone cannot be removed in place; set it back to eu-de-01"],
    ["an added control-plane zone", { availableZone: "eu-de-01" }, { masterZone: null }, "availableZone cannot be set in place; remove it"],
    ["another node zone", { nodeAvailableZone: "eu-de-03" }, {}, "nodeAvailableZone cannot change from random to eu-de-03 in place; set it back to random"],
    ["a larger disk", { nodeDiskGiB: 200 }, {}, "nodeDiskSize cannot change from 100Gi to 200Gi in place; set it back to 100Gi"],
    ["another VPC", { vpcID: "v2", subnetID: "s" }, { vpcId: "v1", subnetId: "s" }, "vpcID cannot change from v1 to v2 in place; set it back to v1"],
    ["another subnet", { vpcID: "v", subnetID: "s2" }, { vpcId: "v", subnetId: "s1" }, "subnetID cannot change from s1 to s2 in place; set it back to s1"],
  ])("refuses %s", (_case, desired, observed, message) => {
    expect(refusedChanges({ ...DESIRED, ...desired }, { ...OBSERVED, ...observed })).toEqual([message]);
  });

  it("lists every refused change", () => {
    expect(refusedChanges({ ...DESIRED, kubernetesVersion: "v1.32", nodeDiskGiB: 50 }, OBSERVED)).toHaveLength(2);
  });
});
