/**
 * The provider's credentials Secret value, a JSON object of strings with
 * the OpenStack/Terraform keys (reference §1.9), turned into OTC client
 * options: AK/SK (`access_key`, `secret_key`, optionally `security_token`)
 * or an IAM user's password (`user_name`, `password`, `domain_name`,
 * `tenant_name` or `project_name`). The region is `region`, else the part of
 * the project name before its first `_` (`eu-de_project` → `eu-de`).
 * Endpoints follow `auth_url` unless an override names one base URL for
 * every service.
 *
 * Nothing here ever puts a value into a message: errors name keys only.
 */
import { endpointsFromAuthUrl, SERVICES, type OtcClientOptions, type Service } from "@edgeconnect/otc";
import { isSensitiveKey, registerSecret } from "@edgeconnect/redaction";

export type CredentialValues = Readonly<Record<string, string>>;

/** The Secret value cannot be used; the message names what is wrong, never a value. */
export class CredentialsError extends Error {
  override readonly name = "CredentialsError";
}

/** The keys whose values authenticate, registered for redaction before anything else happens to them. */
const SECRET_KEYS = ["access_key", "secret_key", "security_token", "password", "token", "passcode", "key"];

/**
 * Parses the Secret value as the provider does (a `map[string]string`):
 * anything but a JSON object of strings fails, without echoing the text.
 */
export function parseCredentials(text: string): CredentialValues {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CredentialsError("cannot unmarshal opentelekomcloud credentials as JSON: the value is not valid JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new CredentialsError("cannot unmarshal opentelekomcloud credentials as JSON: the value is not a JSON object");
  }
  const entries = Object.entries(value as Record<string, unknown>);
  // Registered first, so that whatever fails below cannot reveal them.
  for (const [key, item] of entries) if (SECRET_KEYS.includes(key) || isSensitiveKey(key)) registerSecret(item);
  const notString = entries.filter(([, item]) => typeof item !== "string").map(([key]) => key);
  if (notString.length > 0) {
    throw new CredentialsError(`cannot unmarshal opentelekomcloud credentials as JSON: values must be strings (quote numbers and booleans): ${notString.join(", ")}`);
  }
  return Object.fromEntries(entries) as CredentialValues;
}

export interface ClientSettings {
  /** One base URL for every OTC service (a simulator); otherwise `auth_url` decides. */
  readonly endpointOverride?: string;
}

/** What `connectOtcClient` takes. */
export type ConnectOptions = OtcClientOptions & { readonly projectName?: string };

export function clientOptions(values: CredentialValues, settings: ClientSettings = {}): ConnectOptions {
  const get = (key: string): string | undefined => (values[key] === undefined || values[key] === "" ? undefined : values[key]);
  const projectName = get("tenant_name") ?? get("project_name");
  const region = get("region") ?? projectName?.split("_")[0];
  if (region === undefined || region === "") throw new CredentialsError("cannot determine the region: set region, or tenant_name as <region> or <region>_<name>");
  const credentials = credentialsOf(get, projectName ?? region);
  const authUrl = get("auth_url");
  const endpoints: Partial<Record<Service, string>> | undefined =
    settings.endpointOverride !== undefined
      ? Object.fromEntries(SERVICES.map((service) => [service, settings.endpointOverride]))
      : authUrl === undefined
        ? undefined
        : endpointsFromAuthUrl(authUrl, region);
  const projectId = get("tenant_id");
  return {
    credentials,
    region,
    ...(projectId === undefined ? {} : { projectId }),
    ...(credentials.kind === "password" ? {} : { projectName: projectName ?? region }),
    ...(endpoints === undefined ? {} : { endpoints }),
  };
}

function credentialsOf(get: (key: string) => string | undefined, projectName: string): ConnectOptions["credentials"] {
  const accessKey = get("access_key");
  const secretKey = get("secret_key");
  if (accessKey !== undefined || secretKey !== undefined) {
    if (accessKey === undefined || secretKey === undefined) throw new CredentialsError("access_key and secret_key must be given together");
    const securityToken = get("security_token");
    return { kind: "accessKey", accessKey, secretKey, ...(securityToken === undefined ? {} : { securityToken }) };
  }
  const userName = get("user_name");
  const password = get("password");
  if (userName === undefined || password === undefined) {
    throw new CredentialsError("the credentials have neither access_key and secret_key nor user_name and password");
  }
  const domainName = get("domain_name");
  if (domainName === undefined) throw new CredentialsError("password credentials need domain_name");
  return { kind: "password", userName, password, domainName, projectName };
}
