import { describe, expect, it } from "@jest/globals";
import { isDnsSubdomain, isLabelValue } from "@edgeconnect/provisioning";
import { clusterProfileName, configNameRoom, MAX_PROFILE_NAME, ProfileNameError, type ProfileNamePart } from "./profile-naming.js";

// "dev.capi." leaves 54 characters for the config name.
const FITS = "c".repeat(54);

describe("clusterProfileName", () => {
  it.each([
    ["short parts", "dev", "capi", "aws", "dev.capi.aws"],
    ["a dotted config name", "prod", "capi", "eu.aws", "prod.capi.eu.aws"],
    ["digits and hyphens", "1-env", "cp-2", "gcp-01", "1-env.cp-2.gcp-01"],
    ["a name of exactly 63 characters", "dev", "capi", FITS, `dev.capi.${FITS}`],
    ["an environment and provider name leaving one character", "e".repeat(30), "p".repeat(30), "x", `${"e".repeat(30)}.${"p".repeat(30)}.x`],
  ])("joins %s", (_case, environment, provider, config, expected) => {
    const name = clusterProfileName(environment, provider, config);
    expect(name).toBe(expected);
    expect(isDnsSubdomain(name)).toBe(true);
    // openMCP writes the whole name into an AccessRequest label.
    expect(isLabelValue(name)).toBe(true);
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
    ["a profile name of 64 characters", "dev", "capi", `${FITS}d`, "configName", /has 64 characters, but openMCP writes it into the label clusters\.openmcp\.cloud\/profile of AccessRequests, whose values hold at most 63: rename the ProviderConfig to at most 54 characters$/],
    ["a config name of 63 characters", "dev", "capi", "a".repeat(63), "configName", /has 72 characters.*rename the ProviderConfig to at most 54 characters$/],
    ["an environment and provider name leaving no room", "e".repeat(31), "p".repeat(30), "x", "providerName", /has 64 characters.*: shorten the environment "e{31}" or the provider name "p{30}" to at most 60 characters together$/],
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

describe("configNameRoom", () => {
  it("is what a config name may take after the environment, the provider name and two dots", () => {
    expect(configNameRoom("dev", "capi")).toBe(54);
    expect(configNameRoom("e".repeat(30), "p".repeat(31))).toBe(0);
    expect(clusterProfileName("dev", "capi", "c".repeat(configNameRoom("dev", "capi")))).toHaveLength(MAX_PROFILE_NAME);
  });
});
