/**
 * kcp workspace and API-binding fixtures: create a workspace and wait until it
 * is Ready, bind an APIExport and accept its claims, find the export's
 * virtual-workspace URLs.
 */
import { HttpStatusError } from "@edgeconnect/kcp-ts";
import { eventually, holds } from "./eventually.js";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";

export interface Workspace {
  /** Name inside its parent. */
  readonly name: string;
  /** Full path, e.g. `root:tenant-a`. */
  readonly path: string;
  /** The logical cluster name kcp assigned (`spec.cluster`). */
  readonly cluster: string;
  /** An admin client scoped to the workspace (`/clusters/<path>`). */
  readonly client: RestClient;
}

export interface CreateWorkspaceOptions {
  /** Parent path. Default `root`. */
  readonly parent?: string;
  /** WorkspaceType as `{name, path}`. Default kcp's `universal` type. */
  readonly type?: { readonly name: string; readonly path: string };
  readonly timeoutMs?: number;
}

interface WorkspaceObject extends KubeObject {
  spec?: { cluster?: string; URL?: string };
  status?: { phase?: string };
}

/**
 * Creates a workspace (or adopts an existing one of that name) and waits until
 * its phase is Ready.
 */
export async function createWorkspace(admin: RestClient, name: string, options: CreateWorkspaceOptions = {}): Promise<Workspace> {
  const parent = options.parent ?? "root";
  const parentClient = admin.cluster(parent);
  const collection = "/apis/tenancy.kcp.io/v1alpha1/workspaces";
  try {
    await parentClient.create(collection, {
      apiVersion: "tenancy.kcp.io/v1alpha1",
      kind: "Workspace",
      metadata: { name },
      spec: { type: options.type ?? { name: "universal", path: "root" } },
    });
  } catch (err) {
    if (!(err instanceof HttpStatusError && err.status === 409)) throw err;
  }
  const cluster = await eventually<string>(
    async () => {
      const ws = await parentClient.get<WorkspaceObject>(`${collection}/${name}`);
      const phase = ws.status?.phase;
      const logical = ws.spec?.cluster;
      return phase === "Ready" && logical !== undefined ? [true, logical] : [false, `phase ${phase ?? "unset"}`];
    },
    { timeoutMs: options.timeoutMs ?? 60_000, description: `workspace ${parent}:${name} Ready` },
  );
  const path = `${parent}:${name}`;
  return { name, path, cluster, client: admin.cluster(path) };
}

/** Deletes a workspace; absent is fine. */
export async function deleteWorkspace(admin: RestClient, workspace: Workspace, parent = "root"): Promise<void> {
  try {
    await admin.cluster(parent).delete(`/apis/tenancy.kcp.io/v1alpha1/workspaces/${workspace.name}`);
  } catch (err) {
    if (!(err instanceof HttpStatusError && err.status === 404)) throw err;
  }
}

export interface PermissionClaim {
  readonly group: string;
  readonly resource: string;
  readonly verbs: readonly string[];
  readonly identityHash?: string;
}

export interface BindOptions {
  /** Claims to accept, with exactly the verbs the export asks for. */
  readonly acceptClaims?: readonly PermissionClaim[];
  readonly timeoutMs?: number;
}

/**
 * Binds `exportName` from `exportPath` in `workspace` (APIBinding v1alpha2,
 * named after the export) and waits for phase Bound.
 */
export async function bindApiExport(
  workspace: Workspace,
  exportPath: string,
  exportName: string,
  options: BindOptions = {},
): Promise<KubeObject> {
  const path = `/apis/apis.kcp.io/v1alpha2/apibindings/${exportName}`;
  await workspace.client.apply(
    path,
    {
      apiVersion: "apis.kcp.io/v1alpha2",
      kind: "APIBinding",
      metadata: { name: exportName },
      spec: {
        reference: { export: { path: exportPath, name: exportName } },
        permissionClaims: (options.acceptClaims ?? []).map((claim) => ({
          group: claim.group,
          resource: claim.resource,
          verbs: claim.verbs,
          ...(claim.identityHash === undefined ? {} : { identityHash: claim.identityHash }),
          selector: { matchAll: true },
          state: "Accepted",
        })),
      },
    },
    "edgeconnect-testenv",
  );
  const timeoutMs = options.timeoutMs ?? 60_000;
  const binding = await eventually<BoundBinding>(
    async () => {
      const current = await workspace.client.get<BoundBinding>(path);
      const phase = current.status?.phase;
      return phase === "Bound" ? [true, current] : [false, `phase ${phase ?? "unset"}`];
    },
    { timeoutMs, description: `APIBinding ${exportName} in ${workspace.path} Bound` },
  );
  // Bound comes before the workspace serves the resources: a create right
  // after it can still get "404 page not found" for a moment.
  for (const bound of binding.status?.boundResources ?? []) {
    const version = bound.storageVersions?.[0];
    if (version === undefined) continue;
    await eventually(
      async () => {
        const discovery = await workspace.client.get<{ resources?: { name: string }[] }>(`/apis/${bound.group}/${version}`);
        return holds((discovery.resources ?? []).some((r) => r.name === bound.resource), "not in discovery yet");
      },
      { timeoutMs, description: `${bound.resource}.${bound.group} served in ${workspace.path}` },
    );
  }
  return binding;
}

interface BoundBinding extends KubeObject {
  status?: { phase?: string; boundResources?: { group: string; resource: string; storageVersions?: string[] }[] };
}

/**
 * The virtual-workspace URLs of an export, from its APIExportEndpointSlice
 * (kcp creates one per export, same name). kcp lists a shard only once a
 * binding exists there, so this waits for at least `minEndpoints`.
 */
export async function apiExportEndpoints(
  provider: Workspace,
  sliceName: string,
  options: { readonly minEndpoints?: number; readonly timeoutMs?: number } = {},
): Promise<string[]> {
  const min = options.minEndpoints ?? 1;
  return eventually<string[]>(
    async () => {
      const slice = await provider.client.get<KubeObject & { status?: { endpoints?: { url: string }[] } }>(
        `/apis/apis.kcp.io/v1alpha1/apiexportendpointslices/${sliceName}`,
      );
      const urls = (slice.status?.endpoints ?? []).map((e) => e.url);
      return urls.length >= min ? [true, urls] : [false, `${urls.length} endpoint(s)`];
    },
    { timeoutMs: options.timeoutMs ?? 60_000, description: `APIExportEndpointSlice ${sliceName} endpoints` },
  );
}
