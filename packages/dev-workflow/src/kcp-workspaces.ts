/**
 * Reaching kcp workspaces from the user's kubeconfig, whichever workspace its
 * server URL points at: kubectl-kcp's `ws` plugin keeps the same credentials
 * and rewrites the `/clusters/<path>` part.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { parse, stringify } from "yaml";
import { HttpStatusError, RestClient, type KubeObject } from "@edgeconnect/kcp-ts";
import { pollUntil } from "./poll.js";
import { UsageError } from "./variables.js";

/** What a target needs of kcp: a client for any workspace. */
export interface Kcp {
  workspace(path: string): RestClient;
  close(): void;
}

/** Runs `use` with kcp from `kubeconfig`, and lets go of its connections afterwards. */
export async function withKcp<T>(kubeconfig: string, use: (kcp: Kcp) => Promise<T>): Promise<T> {
  const kcp = openKcp(kubeconfig);
  try {
    return await use(kcp);
  } finally {
    kcp.close();
  }
}

function openKcp(kubeconfig: string): Kcp {
  let client: RestClient;
  try {
    client = RestClient.fromFile(kubeconfig);
  } catch (err) {
    throw new UsageError(`cannot use kubeconfig ${kubeconfig} for kcp: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { workspace: (path) => client.cluster(path), close: () => client.close() };
}

interface WorkspaceObject extends KubeObject {
  spec?: { cluster?: string };
  status?: { phase?: string };
}

/** The parent path and name of `root:a:b`: `root:a` and `b`. */
export function splitWorkspacePath(path: string): { parent: string; name: string } {
  const at = path.lastIndexOf(":");
  if (at === -1) throw new UsageError(`${path} has no parent workspace; name one below root, such as root:orgs`);
  return { parent: path.slice(0, at), name: path.slice(at + 1) };
}

export interface EnsureWorkspaceOptions {
  /** The type a new workspace gets; default kcp's `universal`. */
  readonly type?: { readonly name: string; readonly path: string };
  readonly timeoutMs?: number;
  readonly log?: (message: string) => void;
  readonly signal?: AbortSignal;
}

/**
 * Makes workspace `path` unless it exists (its parent must), and waits until
 * it is Ready. Returns whether it was made.
 */
export async function ensureWorkspace(kcp: Kcp, path: string, options: EnsureWorkspaceOptions = {}): Promise<boolean> {
  const { parent, name } = splitWorkspacePath(path);
  const workspaces = kcp.workspace(parent);
  const collection = "/apis/tenancy.kcp.io/v1alpha1/workspaces";
  let created = false;
  try {
    await workspaces.create(collection, {
      apiVersion: "tenancy.kcp.io/v1alpha1",
      kind: "Workspace",
      metadata: { name },
      spec: { type: options.type ?? { name: "universal", path: "root" } },
    });
    created = true;
    options.log?.(`workspace ${path} created`);
  } catch (err) {
    if (!(err instanceof HttpStatusError && err.status === 409)) throw err;
  }
  let phase: string | undefined;
  const ready = await pollUntil(
    async () => {
      phase = (await workspaces.get<WorkspaceObject>(`${collection}/${name}`)).status?.phase;
      return phase === "Ready";
    },
    { timeoutMs: options.timeoutMs ?? 60_000, intervalMs: 500, ...(options.signal === undefined ? {} : { signal: options.signal }) },
  );
  if (!ready) throw new Error(`workspace ${path} is not Ready (phase ${phase ?? "unset"})`);
  return created;
}

/** Fields of a kubeconfig that name files, relative to the kubeconfig's directory. */
const FILE_FIELDS = ["certificate-authority", "client-certificate", "client-key", "tokenFile"];

/**
 * A copy of `kubeconfig` whose current context points at workspace `path`,
 * written with owner-only permissions (it holds the same credentials); the
 * files it names are named by absolute paths, so the copy can live elsewhere.
 */
export function writeWorkspaceKubeconfig(kubeconfig: string, path: string, target: string): string {
  const config = parse(readFileSync(kubeconfig, "utf8")) as {
    "current-context"?: string;
    contexts?: { name: string; context: { cluster: string } }[];
    clusters?: { name: string; cluster: { server: string } & Record<string, unknown> }[];
    users?: { name: string; user?: Record<string, unknown> }[];
  };
  const context = config.contexts?.find((entry) => entry.name === config["current-context"]);
  const cluster = config.clusters?.find((entry) => entry.name === context?.context.cluster);
  if (cluster === undefined) throw new UsageError(`kubeconfig ${kubeconfig}: its current context names no cluster`);
  cluster.cluster.server = `${cluster.cluster.server.replace(/\/clusters\/[^/]+\/?$/, "").replace(/\/+$/, "")}/clusters/${path}`;
  const directory = dirname(kubeconfig);
  const sections: Record<string, unknown>[] = [...(config.clusters ?? []).map((entry) => entry.cluster), ...(config.users ?? []).flatMap((entry) => (entry.user === undefined ? [] : [entry.user]))];
  for (const section of sections) {
    for (const field of FILE_FIELDS) {
      const value = section[field];
      if (typeof value === "string" && !isAbsolute(value)) section[field] = resolve(directory, value);
    }
  }
  writeFileSync(target, stringify(config), { mode: 0o600 });
  return target;
}
