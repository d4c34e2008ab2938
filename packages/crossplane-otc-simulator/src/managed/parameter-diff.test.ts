import { describe, expect, it } from "@jest/globals";
import { matchesArgument } from "./external.js";
import { forceNewMessage, parameterChanges, snakeCase } from "./parameter-diff.js";

describe("parameterChanges", () => {
  it("compares only what both sides name, numbers and strings as Terraform does", () => {
    expect(parameterChanges({ name: "a", cidr: "10.0.0.0/16", description: undefined }, { name: "a", cidr: "10.0.0.0/16", description: "set by OTC", region: "eu-de" })).toEqual(
      [],
    );
    expect(parameterChanges({ initialNodeCount: 2 }, { initialNodeCount: "2" })).toEqual([]);
  });

  it("names the Terraform argument of a changed scalar, list element or list length", () => {
    const changes = parameterChanges(
      { flavor: "s3.xlarge.4", rootVolume: [{ size: 50, volumetype: "SSD" }], dataVolumes: [{ size: 100 }, { size: 100 }], initialNodeCount: 3 },
      { flavor: "s3.large.2", rootVolume: [{ size: 40, volumetype: "SSD" }], dataVolumes: [{ size: 100, volumetype: "SSD" }], initialNodeCount: 2 },
    );
    expect(changes).toEqual([
      { argument: "flavor", field: "flavor", from: "s3.large.2", to: "s3.xlarge.4" },
      { argument: "root_volume.0.size", field: "rootVolume", from: 40, to: 50 },
      { argument: "data_volumes.#", field: "dataVolumes", from: 1, to: 2 },
      { argument: "initial_node_count", field: "initialNodeCount", from: 2, to: 3 },
    ]);
  });

  it("compares objects by the keys forProvider gives", () => {
    expect(parameterChanges({ publicip: [{ type: "5_bgp", name: "api" }] }, { publicip: [{ type: "5_bgp", ipAddress: "80.158.1.2" }] })).toEqual([]);
  });
});

describe("forceNew matching and message", () => {
  const forceNew = new Set(["cluster_id", "root_volume", "publicip.*.type"]);

  it("matches an argument under a listed one, list indexes as *", () => {
    expect(matchesArgument(forceNew, "root_volume.0.size")).toBe(true);
    expect(matchesArgument(forceNew, "root_volume.#")).toBe(true);
    expect(matchesArgument(forceNew, "publicip.0.type")).toBe(true);
    expect(matchesArgument(forceNew, "publicip.0.name")).toBe(false);
    expect(matchesArgument(forceNew, "initial_node_count")).toBe(false);
  });

  it("speaks Terraform's words", () => {
    expect(forceNewMessage({ argument: "name", field: "name", from: "kcp-a", to: "kcp-b" })).toBe('cannot change the value of the argument "name" from "kcp-a" to "kcp-b"');
    expect(forceNewMessage({ argument: "root_volume.0.size", field: "rootVolume", from: 40, to: 50 })).toBe(
      'cannot change the value of the argument "root_volume.0.size" from "40" to "50"',
    );
    expect(snakeCase("ignoreCertificateUsersData")).toBe("ignore_certificate_users_data");
  });
});
