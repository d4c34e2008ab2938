/**
 * `cloud.conf`: the CCM's INI configuration, as the chart renders it.
 *
 *   [Global]        access-key, secret-key, security-token, region,
 *                   project-id (alias tenant-id), project-name (alias
 *                   tenant-name), domain-name, auth-url
 *   [LoadBalancer]  subnet-id, network-id, bandwidth-mbit, cluster-name,
 *                   availability-zones (dedicated ELBs; default <region>-01)
 *   [Endpoints]     iam, ecs, vpc, elb: base URLs replacing the public
 *                   `https://<service>.<region>.otc.t-systems.com` (private
 *                   endpoints, proxies, the simulator). auth-url, as
 *                   OpenStack tools write it (`https://iam.../v3`), stands
 *                   for iam when [Endpoints] has none.
 *
 * Unset [Global] keys fall back to the OS_* environment variables operators
 * know from OpenStack tooling. LoadBalancer support is off unless subnet-id
 * is set. Errors name the key at fault and never contain a value, so a
 * secret can never reach a log through them.
 */

export interface GlobalConfig {
  readonly accessKey: string;
  readonly secretKey: string;
  readonly securityToken?: string;
  readonly region: string;
  readonly projectId?: string;
  /** Used to look the project id up when project-id is absent; default: the region. */
  readonly projectName: string;
  readonly domainName?: string;
  readonly authUrl?: string;
  /** Service base URLs that replace the public ones. */
  readonly endpoints: Readonly<Partial<Record<EndpointService, string>>>;
}

export type EndpointService = "iam" | "ecs" | "vpc" | "elb";
const ENDPOINT_SERVICES: readonly EndpointService[] = ["iam", "ecs", "vpc", "elb"];

export interface LoadBalancerConfig {
  /** The Neutron subnet (not the VPC subnet) in which ELBs get their VIP. */
  readonly subnetId: string;
  /** The Neutron network; needed only for dedicated (v3) ELBs. */
  readonly networkId?: string;
  /** Bandwidth of auto-created EIPs, Mbit/s. Default 100. */
  readonly bandwidthMbit: number;
  /** Overrides --cluster-name in ELB names. */
  readonly clusterName?: string;
  /** Where dedicated (v3) ELBs are placed; OTC requires at least one zone. */
  readonly availabilityZones: readonly string[];
}

export interface CloudConfig {
  readonly global: GlobalConfig;
  /** Absent when subnet-id is empty: the CCM then runs without LoadBalancer support. */
  readonly loadBalancer?: LoadBalancerConfig;
}

/** cloud.conf is unusable; the message says which key and why. */
export class CloudConfigError extends Error {
  override readonly name = "CloudConfigError";
}

export const DEFAULT_BANDWIDTH_MBIT = 100;
export const DEFAULT_CLUSTER_NAME = "kubernetes";

type Sections = Map<string, Map<string, string>>;

/**
 * gcfg-style INI: `[Section]` headers (case-insensitive), `key = value`
 * lines, `;` or `#` comments, values optionally in double quotes (which may
 * then contain `;` and `#`). A key given twice keeps the last value.
 */
export function parseIni(text: string): Sections {
  const sections: Sections = new Map();
  let current: Map<string, string> | undefined;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith(";") || line.startsWith("#")) return;
    const header = /^\[\s*([^\]\s]+)\s*\]$/.exec(line);
    if (header?.[1] !== undefined) {
      const name = header[1].toLowerCase();
      current = sections.get(name) ?? new Map<string, string>();
      sections.set(name, current);
      return;
    }
    const pair = /^([A-Za-z0-9][A-Za-z0-9-]*)\s*=\s*(.*)$/.exec(line);
    if (pair?.[1] === undefined || current === undefined) {
      throw new CloudConfigError(`cloud.conf line ${index + 1}: expected "[Section]" or "key = value" inside a section`);
    }
    current.set(pair[1].toLowerCase(), unquote(pair[2] ?? "", index + 1));
  });
  return sections;
}

function unquote(value: string, line: number): string {
  const trimmed = value.trim();
  if (trimmed.startsWith('"')) {
    const end = trimmed.indexOf('"', 1);
    if (end === -1) throw new CloudConfigError(`cloud.conf line ${line}: unterminated quoted value`);
    return trimmed.slice(1, end);
  }
  return trimmed.replace(/\s[;#].*$/, "").trim();
}

export function parseCloudConfig(text: string, env: NodeJS.ProcessEnv = process.env): CloudConfig {
  const sections = parseIni(text);
  const global = sections.get("global") ?? new Map<string, string>();
  const pick = (keys: readonly string[], envVar?: string): string | undefined => {
    for (const key of keys) {
      const value = global.get(key);
      if (value !== undefined && value !== "") return value;
    }
    const fromEnv = envVar === undefined ? undefined : env[envVar];
    return fromEnv === undefined || fromEnv === "" ? undefined : fromEnv;
  };
  const required = (key: string, envVar: string): string => {
    const value = pick([key], envVar);
    if (value === undefined) throw new CloudConfigError(`[Global] ${key} is required (or set ${envVar})`);
    return value;
  };
  const region = required("region", "OS_REGION_NAME");
  const authUrl = pick(["auth-url"], "OS_AUTH_URL");
  const optional = <K extends string>(name: K, value: string | undefined): Partial<Record<K, string>> =>
    (value === undefined ? {} : { [name]: value }) as Partial<Record<K, string>>;
  const globalConfig: GlobalConfig = {
    accessKey: required("access-key", "OS_ACCESS_KEY"),
    secretKey: required("secret-key", "OS_SECRET_KEY"),
    region,
    projectName: pick(["project-name", "tenant-name"], "OS_PROJECT_NAME") ?? region,
    ...optional("securityToken", pick(["security-token"], "OS_SECURITY_TOKEN")),
    ...optional("projectId", pick(["project-id", "tenant-id"], "OS_PROJECT_ID")),
    ...optional("domainName", pick(["domain-name"], "OS_DOMAIN_NAME")),
    ...optional("authUrl", authUrl),
    endpoints: parseEndpoints(sections.get("endpoints"), authUrl),
  };
  const loadBalancer = parseLoadBalancer(sections.get("loadbalancer"), region);
  return loadBalancer === undefined ? { global: globalConfig } : { global: globalConfig, loadBalancer };
}

function parseEndpoints(section: Map<string, string> | undefined, authUrl: string | undefined): Partial<Record<EndpointService, string>> {
  const endpoints: Partial<Record<EndpointService, string>> = {};
  // The request paths already start with /v3 for IAM.
  if (authUrl !== undefined) endpoints.iam = authUrl.replace(/\/v3\/?$/, "");
  for (const key of section?.keys() ?? []) {
    if (!(ENDPOINT_SERVICES as readonly string[]).includes(key)) {
      throw new CloudConfigError(`[Endpoints] ${key} is not a known service; use one of ${ENDPOINT_SERVICES.join(", ")}`);
    }
  }
  for (const service of ENDPOINT_SERVICES) {
    const value = section?.get(service);
    if (value !== undefined && value !== "") endpoints[service] = value;
  }
  return endpoints;
}

function parseLoadBalancer(section: Map<string, string> | undefined, region: string): LoadBalancerConfig | undefined {
  const subnetId = section?.get("subnet-id") ?? "";
  if (section === undefined || subnetId === "") return undefined;
  const bandwidth = section.get("bandwidth-mbit");
  let bandwidthMbit = DEFAULT_BANDWIDTH_MBIT;
  if (bandwidth !== undefined && bandwidth !== "") {
    if (!/^[1-9][0-9]*$/.test(bandwidth)) throw new CloudConfigError("[LoadBalancer] bandwidth-mbit must be a positive integer");
    bandwidthMbit = Number(bandwidth);
  }
  const networkId = section.get("network-id");
  const clusterName = section.get("cluster-name");
  const zones = (section.get("availability-zones") ?? "")
    .split(",")
    .map((zone) => zone.trim())
    .filter((zone) => zone !== "");
  return {
    subnetId,
    bandwidthMbit,
    availabilityZones: zones.length > 0 ? zones : [`${region}-01`],
    ...(networkId ? { networkId } : {}),
    ...(clusterName ? { clusterName } : {}),
  };
}

/** The cluster name in ELB names: cloud.conf's cluster-name wins over --cluster-name. */
export function effectiveClusterName(config: CloudConfig, flag: string | undefined): string {
  return config.loadBalancer?.clusterName ?? (flag === undefined || flag === "" ? DEFAULT_CLUSTER_NAME : flag);
}
