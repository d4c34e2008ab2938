/**
 * The ClusterProfile name for one provider config, by openMCP's
 * convention `<environment>.<providerName>.<configName>`: unique per
 * environment and provider, and it tells which config produced it.
 */
import { isDnsLabel, isDnsSubdomain } from "@edgeconnect/provisioning";
import { PROFILE_LABEL } from "./constants.js";

export type ProfileNamePart = "environment" | "providerName" | "configName";

/** A part of a profile name that would not give a valid, unambiguous name. */
export class ProfileNameError extends Error {
  override readonly name = "ProfileNameError";

  constructor(
    readonly part: ProfileNamePart,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Label values hold at most 63 characters, and openMCP's AccessRequest
 * controller writes the whole profile name into the label
 * `clusters.openmcp.cloud/profile` of every request for a Cluster of the
 * profile (openmcp-operator internal/controllers/accessrequest/controller.go):
 * a longer name would make every AccessRequest fail.
 */
export const MAX_PROFILE_NAME = 63;

/**
 * How many characters are left for a config name after
 * `<environment>.<providerName>.`; below 1 no config of this provider can
 * have a profile.
 */
export function configNameRoom(environment: string, providerName: string): number {
  return MAX_PROFILE_NAME - environment.length - providerName.length - 2;
}

/**
 * Environment and provider name must be DNS-1123 labels: without dots the
 * profile name splits back into its parts, and both also appear as label
 * values elsewhere. The config name is a cluster-scoped object name, so it
 * may contain dots (it comes last, which keeps the split unambiguous). The
 * whole name is a label value (see MAX_PROFILE_NAME), so the three parts
 * together hold at most 63 characters.
 */
export function clusterProfileName(environment: string, providerName: string, configName: string): string {
  requireLabel("environment", environment);
  requireLabel("providerName", providerName);
  if (configName === "") throw new ProfileNameError("configName", "configName must not be empty");
  if (!isDnsSubdomain(configName)) {
    throw new ProfileNameError(
      "configName",
      `configName ${JSON.stringify(configName)} must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')`,
    );
  }
  const name = `${environment}.${providerName}.${configName}`;
  if (name.length > MAX_PROFILE_NAME) throw tooLong(name, environment, providerName);
  return name;
}

function tooLong(name: string, environment: string, providerName: string): ProfileNameError {
  const room = configNameRoom(environment, providerName);
  const problem = `the ClusterProfile name ${JSON.stringify(name)} has ${name.length} characters, but openMCP writes it into the label ${PROFILE_LABEL} of AccessRequests, whose values hold at most ${MAX_PROFILE_NAME}`;
  if (room < 1) {
    return new ProfileNameError("providerName", `${problem}: shorten the environment ${JSON.stringify(environment)} or the provider name ${JSON.stringify(providerName)} to at most ${MAX_PROFILE_NAME - 3} characters together`);
  }
  return new ProfileNameError("configName", `${problem}: rename the ProviderConfig to at most ${room} characters`);
}

function requireLabel(part: ProfileNamePart, value: string): void {
  if (value === "") throw new ProfileNameError(part, `${part} must not be empty`);
  if (!isDnsLabel(value)) {
    throw new ProfileNameError(
      part,
      `${part} ${JSON.stringify(value)} must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit`,
    );
  }
}
