import { describe, expect, it } from "@jest/globals";
import { isDnsSubdomain, isLabelValue } from "@edgeconnect/provisioning";
import { clusterProfileName, ProfileNameError, type ProfileNamePart } from "./profile-naming.js";

const L63 = "a".repeat(63);

describe("clusterProfileName", () => {
  it.each([
    ["short parts", "dev", "capi", "aws", "dev.capi.aws"],
    ["a dotted config name", "prod", "capi", "eu.aws", "prod.capi.eu.aws"],
    ["digits and hyphens", "1-env", "cp-2", "gcp-01", "1-env.cp-2.gcp-01"],
    ["every part at its limit", L63, L63, L63, `${L63}.${L63}.${L63}`],
  ])("joins %s", (_case, environment, provider, config, expected) => {
    const name = clusterProfileName(environment, provider, config);
    expect(name).toBe(expected);
    expect(isDnsSubdomain(name)).toBe(true);
    expect(isLabelValue(config)).toBe(true);
  });

  it.each<[string, string, string, string, ProfileNamePart, RegExp]>([
    ["empty environment", "", "capi", "aws", "environment", /^environment must not be empty$/],
    ["empty provider name", "dev", "", "aws", "providerName", /^providerName must not be empty$/],
    ["empty config name", "dev", "capi", "", "configName", /^configName must not be empty$/],
    ["uppercase environment", "Dev", "capi", "aws", "environment", /environment "Dev" must be a DNS-1123 label/],
    ["dotted environment", "dev.eu", "capi", "aws", "environment", /environment "dev.eu" must be a DNS-1123 label/],
    ["dotted provider name", "dev", "capi.v2", "aws", "providerName", /providerName "capi.v2" must be a DNS-1123 label/],
    ["provider name ending in a hyphen", "dev", "capi-", "aws", "providerName", /DNS-1123 label/],
    ["environment over 63", "a".repeat(64), "capi", "aws", "environment", /at most 63/],
    ["config name over 63", "dev", "capi", "a".repeat(64), "configName", /configName "a{64}" must be a DNS-1123 subdomain of at most 63 characters.*label value/],
    ["config name with an underscore", "dev", "capi", "aws_eu", "configName", /DNS-1123 subdomain/],
    ["config name with an empty label", "dev", "capi", "eu..aws", "configName", /DNS-1123 subdomain/],
    ["uppercase config name", "dev", "capi", "AWS", "configName", /DNS-1123 subdomain/],
  ])("refuses %s", (_case, environment, provider, config, part, message) => {
    let thrown: unknown;
    try {
      clusterProfileName(environment, provider, config);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ProfileNameError);
    expect((thrown as ProfileNameError).part).toBe(part);
    expect((thrown as ProfileNameError).message).toMatch(message);
    expect((thrown as ProfileNameError).name).toBe("ProfileNameError");
  });
});
