/**
 * Where each OTC service lives: `https://{service}.{region}.otc.t-systems.com`
 * unless overridden per service, as the Swiss cloud (`*.sc.otc.t-systems.com`,
 * IAM at `iam-pub.eu-ch2.sc.otc.t-systems.com`) and a loopback simulator need;
 * or derived from the `auth_url` of OpenStack-style credentials.
 */
import { OtcConfigError } from "./errors.js";

/** The services this client talks to. */
export type Service = "iam" | "ecs" | "vpc" | "elb" | "cce";

export const SERVICES: readonly Service[] = ["iam", "ecs", "vpc", "elb", "cce"];

/** OTC's global IAM host, which names no region. */
const GLOBAL_IAM_DOMAIN = "otc.t-systems.com";

export type Endpoints = Readonly<Record<Service, URL>>;

/**
 * Base URLs of every service for `region`, overrides taking precedence. An
 * override may carry a path prefix (a reverse proxy); request paths are
 * appended to it. Regions and overrides are validated so that a typo fails at
 * start-up rather than as a DNS error per request.
 */
export function resolveEndpoints(region: string, overrides: Partial<Record<Service, string>> = {}): Endpoints {
  validateRegion(region);
  const entries = SERVICES.map((service): [Service, URL] => {
    const override = overrides[service];
    return [service, override === undefined ? new URL(`https://${service}.${region}.otc.t-systems.com`) : parseEndpointUrl(`endpoint for ${service}`, override)];
  });
  return Object.fromEntries(entries) as Record<Service, URL>;
}

/**
 * The endpoints of every service implied by an `auth_url` (as credentials
 * Secrets and OpenStack tools give it, `https://iam.eu-de.otc.t-systems.com/v3`),
 * for `resolveEndpoints`: IAM at the URL's origin, every other service on
 * the host whose leading `iam.` label is replaced by the service's name,
 * scheme and port kept (`https://cce.eu-de.otc.t-systems.com`). A host
 * without a leading `iam.` label (a simulator at `http://127.0.0.1:8443/v3`,
 * a proxy) serves every service at its origin. The global IAM host
 * `iam.otc.t-systems.com` names no region, so `region` is put in for the
 * others (`https://ecs.eu-de.otc.t-systems.com`).
 */
export function endpointsFromAuthUrl(authUrl: string, region: string): Partial<Record<Service, string>> {
  validateRegion(region);
  const url = parseEndpointUrl("auth URL", authUrl);
  const [first, ...rest] = url.hostname.split(".");
  const domain = rest.join(".");
  const hostFor = (service: Service): string => {
    if (first !== "iam" || rest.length === 0 || service === "iam") return url.host;
    const regional = domain === GLOBAL_IAM_DOMAIN ? `${region}.${domain}` : domain;
    return `${service}.${regional}${url.port === "" ? "" : `:${url.port}`}`;
  };
  return Object.fromEntries(SERVICES.map((service) => [service, `${url.protocol}//${hostFor(service)}`]));
}

/** The URL of `path` (which starts with `/`) under a service's base URL. */
export function serviceUrl(base: URL, path: string): URL {
  const prefix = base.pathname.replace(/\/+$/, "");
  return new URL(`${base.origin}${prefix}${path}`);
}

function validateRegion(region: string): void {
  if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(region)) throw new OtcConfigError(`invalid region "${region}"`);
}

/** `what` names the URL in errors ("endpoint for ecs", "auth URL"). */
function parseEndpointUrl(what: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // The value itself is not echoed: a mistyped URL may hold user info.
    throw new OtcConfigError(`${what} is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new OtcConfigError(`${what} must be http(s), not ${url.protocol}`);
  }
  // Credentials in a URL would end up in logs and error messages.
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") {
    throw new OtcConfigError(`${what} must not carry user info, a query or a fragment`);
  }
  return url;
}
