/**
 * Where each OTC service lives: `https://{service}.{region}.otc.t-systems.com`
 * unless overridden per service, as the Swiss cloud (`*.sc.otc.t-systems.com`,
 * IAM at `iam-pub.eu-ch2.sc.otc.t-systems.com`) and a loopback simulator need.
 */
import { OtcConfigError } from "./errors.js";

/** The services this client talks to. */
export type Service = "iam" | "ecs" | "vpc" | "elb";

export const SERVICES: readonly Service[] = ["iam", "ecs", "vpc", "elb"];

export type Endpoints = Readonly<Record<Service, URL>>;

/**
 * Base URLs of every service for `region`, overrides taking precedence. An
 * override may carry a path prefix (a reverse proxy); request paths are
 * appended to it. Regions and overrides are validated so that a typo fails at
 * start-up rather than as a DNS error per request.
 */
export function resolveEndpoints(region: string, overrides: Partial<Record<Service, string>> = {}): Endpoints {
  if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(region)) throw new OtcConfigError(`invalid region "${region}"`);
  const entries = SERVICES.map((service): [Service, URL] => {
    const override = overrides[service];
    return [service, override === undefined ? new URL(`https://${service}.${region}.otc.t-systems.com`) : parseOverride(service, override)];
  });
  return Object.fromEntries(entries) as Record<Service, URL>;
}

/** The URL of `path` (which starts with `/`) under a service's base URL. */
export function serviceUrl(base: URL, path: string): URL {
  const prefix = base.pathname.replace(/\/+$/, "");
  return new URL(`${base.origin}${prefix}${path}`);
}

function parseOverride(service: Service, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // The value itself is not echoed: a mistyped override may hold user info.
    throw new OtcConfigError(`endpoint for ${service} is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new OtcConfigError(`endpoint for ${service} must be http(s), not ${url.protocol}`);
  }
  // Credentials in a URL would end up in logs and error messages.
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") {
    throw new OtcConfigError(`endpoint for ${service} must not carry user info, a query or a fragment`);
  }
  return url;
}
