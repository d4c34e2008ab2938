/**
 * The ClusterProfile name for one provider config, by openMCP's
 * convention `<environment>.<providerName>.<configName>`: unique per
 * environment and provider, and it tells which config produced it.
 */
import { isDnsLabel, isDnsSubdomain } from "@edgeconnect/provisioning";

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

const MAX_LABEL_VALUE = 63;

/**
 * Environment and provider name must be DNS-1123 labels: without dots the
 * profile name splits back into its parts, and both also appear as label
 * values elsewhere. The config name is a cluster-scoped object name, so it
 * may contain dots (it comes last, which keeps the split unambiguous), but
 * openMCP uses it as a label value, hence at most 63 characters. Three
 * such parts make at most 191 characters, always a valid DNS subdomain.
 */
export function clusterProfileName(environment: string, providerName: string, configName: string): string {
  requireLabel("environment", environment);
  requireLabel("providerName", providerName);
  if (configName === "") throw new ProfileNameError("configName", "configName must not be empty");
  if (configName.length > MAX_LABEL_VALUE || !isDnsSubdomain(configName)) {
    throw new ProfileNameError(
      "configName",
      `configName ${JSON.stringify(configName)} must be a DNS-1123 subdomain of at most ${MAX_LABEL_VALUE} characters (lowercase letters, digits, '-' and '.'), since it is used as a label value`,
    );
  }
  return `${environment}.${providerName}.${configName}`;
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
