/**
 * The console's command line, parsed with node:util's parseArgs (strict:
 * an unknown flag is an error, not ignored).
 */
import { parseArgs } from "node:util";

export interface ConsoleFlags {
  /** kcp's server URL and CA; its credentials are used for nothing a user sees. */
  readonly kcpKubeconfig: string;
  readonly providerWorkspace: string;
  /** Default: the in-cluster service account. */
  readonly infraKubeconfig?: string;
  readonly host: string;
  readonly port: number;
  readonly controllerMetricsUrls: readonly string[];
  /** The provider-controller's Lease name (leader) or shard Lease prefix, in the provider workspace's `leaseNamespace`. */
  readonly leaseName: string;
  readonly leaseNamespace: string;
  /** Set the cookie's Secure attribute: on behind a TLS ingress, off only for plain-HTTP loopback use. */
  readonly secureCookie: boolean;
  readonly maxSessions: number;
  readonly sessionLifetimeMs: number;
  readonly sessionIdleMs: number;
  /** A cluster not Ready for longer than this is listed as stuck. */
  readonly stuckAfterMs: number;
  readonly help: boolean;
}

export class FlagError extends Error {}

export const USAGE = `Usage: platform-console [flags]

  --kcp-kubeconfig=PATH            kcp's server URL and CA (required); its credentials are not used for users' data
  --provider-workspace=PATH        the workspace holding the APIExport; default root:edgeconnect
  --infra-kubeconfig=PATH          the infrastructure cluster, read-only; default: the in-cluster service account
  --bind-address=HOST:PORT         plain HTTP, meant behind a TLS ingress; default 127.0.0.1:8080
  --controller-metrics-url=URL     a provider-controller replica's /metrics (repeatable)
  --controller-lease-name=NAME     the provider-controller's Lease, or shard Lease prefix; default provider-controller
  --controller-lease-namespace=NS  its namespace in the provider workspace; default kube-system
  --secure-cookie=BOOL             the session cookie's Secure attribute; default true
  --max-sessions=N                 signed-in sessions at once; default 256
  --session-lifetime=DURATION      default 8h
  --session-idle=DURATION          default 1h
  --stuck-after=DURATION           a cluster not Ready this long needs the platform team; default 30m
  --help
`;

export function parseConsoleFlags(argv: readonly string[]): ConsoleFlags {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        "kcp-kubeconfig": { type: "string" },
        "provider-workspace": { type: "string" },
        "infra-kubeconfig": { type: "string" },
        "bind-address": { type: "string" },
        "controller-metrics-url": { type: "string", multiple: true },
        "controller-lease-name": { type: "string" },
        "controller-lease-namespace": { type: "string" },
        "secure-cookie": { type: "string" },
        "max-sessions": { type: "string" },
        "session-lifetime": { type: "string" },
        "session-idle": { type: "string" },
        "stuck-after": { type: "string" },
        help: { type: "boolean" },
      },
    }));
  } catch (err) {
    throw new FlagError(err instanceof Error ? err.message : String(err));
  }
  const text = (name: string): string | undefined => values[name] as string | undefined;
  const help = values["help"] === true;
  const kcpKubeconfig = text("kcp-kubeconfig");
  if (kcpKubeconfig === undefined && !help) throw new FlagError("--kcp-kubeconfig is required");
  const { host, port } = bindAddress(text("bind-address") ?? "127.0.0.1:8080");
  const urls = (values["controller-metrics-url"] as string[] | undefined) ?? [];
  for (const url of urls) {
    if (!/^https?:\/\/[^/]+/.test(url)) throw new FlagError(`--controller-metrics-url: ${JSON.stringify(url)} is not an http(s) URL`);
  }
  const infraKubeconfig = text("infra-kubeconfig");
  return {
    kcpKubeconfig: kcpKubeconfig ?? "",
    providerWorkspace: text("provider-workspace") ?? "root:edgeconnect",
    ...(infraKubeconfig === undefined ? {} : { infraKubeconfig }),
    host,
    port,
    controllerMetricsUrls: urls,
    leaseName: text("controller-lease-name") ?? "provider-controller",
    leaseNamespace: text("controller-lease-namespace") ?? "kube-system",
    secureCookie: boolean("--secure-cookie", text("secure-cookie") ?? "true"),
    maxSessions: positiveInteger("--max-sessions", text("max-sessions") ?? "256"),
    sessionLifetimeMs: duration("--session-lifetime", text("session-lifetime") ?? "8h"),
    sessionIdleMs: duration("--session-idle", text("session-idle") ?? "1h"),
    stuckAfterMs: duration("--stuck-after", text("stuck-after") ?? "30m"),
    help,
  };
}

function bindAddress(value: string): { host: string; port: number } {
  const match = /^(.*):(\d+)$/.exec(value);
  if (match === null) throw new FlagError(`--bind-address: ${JSON.stringify(value)} is not HOST:PORT`);
  const port = Number(match[2]);
  if (port > 65_535) throw new FlagError(`--bind-address: port ${port} is out of range`);
  // ":8080" binds every address, as Go's servers read it.
  return { host: (match[1] ?? "").replace(/^\[(.*)\]$/, "$1") || "0.0.0.0", port };
}

function boolean(flag: string, value: string): boolean {
  if (value === "true") return true;
  if (value === "false") return false;
  throw new FlagError(`${flag}: ${JSON.stringify(value)} is not true or false`);
}

function positiveInteger(flag: string, value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1) throw new FlagError(`${flag}: ${JSON.stringify(value)} is not a positive integer`);
  return number;
}

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Go-style durations of one unit: 500ms, 30s, 10m, 8h. */
export function duration(flag: string, value: string): number {
  const match = /^(\d+)(ms|s|m|h)$/.exec(value);
  const ms = match === null ? 0 : Number(match[1]) * (UNITS[match[2] ?? ""] ?? 0);
  if (!(ms > 0)) throw new FlagError(`${flag}: ${JSON.stringify(value)} is not a positive duration such as 30s, 10m or 8h`);
  return ms;
}
