/**
 * A signed-in user and everything the console asks kcp for them, always
 * with their own token: kcp's authorization decides what they see, never a
 * filter of ours over an admin view.
 *
 * - The platform view: the user may read the APIExportEndpointSlice in the
 *   provider workspace and list KubernetesClusters through the export's
 *   virtual workspace (every bound tenant). kcp answering 403 to either
 *   means they are not the platform team.
 * - The tenant view: the user names their workspace path; the console lists
 *   KubernetesClusters in `/clusters/<path>`. kcp's 403 there means nothing
 *   to see, and the sign-in is refused.
 *
 * Every call has the client's deadline (REQUEST_TIMEOUT_MS).
 */
import { randomBytes } from "node:crypto";
import { API_EXPORT_NAME, collectionPath, KUBERNETES_CLUSTER_RESOURCE, objectPath } from "@edgeconnect/api";
import { APIEXPORT_ENDPOINT_SLICE, clusterOf, getIfPresent, HttpStatusError, RequestTimeoutError, resourcePath, RestClient, type Kubeconfig } from "@edgeconnect/kcp-ts";
import type { Lease } from "@edgeconnect/runtime";
import type { Cluster, CoreEvent } from "./cluster-view.js";
import type { Viewer } from "./view-model.js";

/** A page's worth of reads must stay quick; kcp answers in milliseconds when healthy. */
export const REQUEST_TIMEOUT_MS = 10_000;
/** How long the virtual workspace URLs of the export are reused before they are read again. */
const ENDPOINTS_TTL_MS = 30_000;

export interface ConsoleKcp {
  /** kcp's server and CA, from --kcp-kubeconfig; its credentials are replaced by each user's token. */
  readonly kubeconfig: Kubeconfig;
  readonly providerWorkspace: string;
  readonly leaseNamespace: string;
}

export type SignInResult = { readonly session: UserSession } | { readonly refused: string; readonly status: number };

/** A tenant-visible cluster with the key its tenant has in links. */
export interface TenantCluster {
  readonly tenant: string;
  readonly kc: Cluster;
}

export class UserSession {
  private endpoints: { readonly urls: readonly string[]; readonly at: number } | undefined;

  private constructor(
    readonly viewer: Viewer,
    private readonly kcp: RestClient,
    private readonly config: ConsoleKcp,
  ) {}

  /**
   * Checks the token with kcp and decides the view: a workspace path makes a
   * tenant session; without one the user must prove the platform view.
   */
  static async signIn(config: ConsoleKcp, token: string, workspace: string | undefined): Promise<SignInResult> {
    // The holder lets the token go from the redaction registry when the session closes.
    const client = RestClient.fromKubeconfig(config.kubeconfig.withBearerToken(token), { secretHolder: { name: `console-session-${randomBytes(8).toString("hex")}` } }).withTimeout(REQUEST_TIMEOUT_MS);
    try {
      const user = await userName(client.cluster(workspace ?? config.providerWorkspace));
      if (workspace !== undefined) {
        const session = new UserSession({ kind: "tenant", user, workspace }, client, config);
        await client.cluster(workspace).list(collectionPath(KUBERNETES_CLUSTER_RESOURCE), { query: { limit: 1 } });
        return { session };
      }
      const session = new UserSession({ kind: "platform", user }, client, config);
      await session.listClusters({ limit: 1 });
      return { session };
    } catch (err) {
      client.close();
      const status = err instanceof HttpStatusError ? err.status : 0;
      if (status === 401) return { refused: "kcp did not accept this token", status: 401 };
      if (status === 403) {
        return workspace === undefined
          ? { refused: "kcp does not give this token the platform view; a tenant names its workspace", status: 403 }
          : { refused: `kcp does not let this token read KubernetesClusters in ${workspace}`, status: 403 };
      }
      if (status === 404) return { refused: workspace === undefined ? "the platform API is not found in the provider workspace" : `workspace ${workspace} does not serve the platform API`, status: 403 };
      return { refused: describeFailure(err), status: 503 };
    }
  }

  close(): void {
    this.kcp.close();
  }

  /** Every cluster the user may see: through the virtual workspace (platform) or in their workspace (tenant). */
  async listClusters(query: { limit?: number } = {}): Promise<TenantCluster[]> {
    const viewer = this.viewer;
    if (viewer.kind === "tenant") {
      const list = await this.kcp.cluster(viewer.workspace).list<Cluster>(collectionPath(KUBERNETES_CLUSTER_RESOURCE), { query });
      return list.items.map((kc) => ({ tenant: viewer.workspace, kc }));
    }
    const lists = await Promise.all(
      (await this.virtualWorkspaces()).map((url) => this.kcp.withServer(url).cluster("*").list<Cluster>(collectionPath(KUBERNETES_CLUSTER_RESOURCE), { query })),
    );
    return lists.flatMap((list) => list.items.flatMap((kc) => ({ tenant: clusterOf(kc) ?? "", kc })));
  }

  /** One cluster, read as the user; undefined when kcp has none by that name for them. */
  async readCluster(tenant: string, namespace: string, name: string): Promise<Cluster | undefined> {
    const path = objectPath(KUBERNETES_CLUSTER_RESOURCE, namespace, name);
    const clients = this.viewer.kind === "tenant" ? [this.kcp.cluster(this.viewer.workspace)] : (await this.virtualWorkspaces()).map((url) => this.kcp.withServer(url).cluster(tenant));
    for (const client of clients) {
      const kc = await getIfPresent<Cluster>(client, path);
      if (kc !== undefined) return kc;
    }
    return undefined;
  }

  /**
   * The Events of a cluster, read in its workspace with the user's token:
   * the export claims only create and patch on Events, so the platform team
   * reads them where kcp's RBAC lets them, and kcp's 403 says when not.
   */
  async events(tenant: string, namespace: string, name: string): Promise<CoreEvent[]> {
    const workspace = this.viewer.kind === "tenant" ? this.viewer.workspace : tenant;
    const list = await this.kcp.cluster(workspace).list<CoreEvent>(`/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, {
      query: { fieldSelector: `involvedObject.name=${name}` },
    });
    return list.items;
  }

  /** The provider-controller's Leases in the provider workspace, read as the (platform) user. */
  async controllerLeases(): Promise<Lease[]> {
    const list = await this.kcp.cluster(this.config.providerWorkspace).list<Lease>(`/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.config.leaseNamespace)}/leases`);
    return list.items;
  }

  private async virtualWorkspaces(): Promise<readonly string[]> {
    const now = Date.now();
    if (this.endpoints !== undefined && now - this.endpoints.at < ENDPOINTS_TTL_MS) return this.endpoints.urls;
    const slice = await this.kcp.cluster(this.config.providerWorkspace).get<{ status?: { endpoints?: { url: string }[] } }>(resourcePath(APIEXPORT_ENDPOINT_SLICE, { name: API_EXPORT_NAME }));
    const urls = (slice.status?.endpoints ?? []).map((endpoint) => endpoint.url);
    this.endpoints = { urls, at: now };
    return urls;
  }
}

/** Who kcp says the token is, for the page's header; "unknown" when kcp will not say. */
async function userName(client: RestClient): Promise<string> {
  try {
    const review = await client.create<{ status?: { userInfo?: { username?: string } } }>("/apis/authentication.k8s.io/v1/selfsubjectreviews", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    });
    return review.status?.userInfo?.username ?? "unknown";
  } catch (err) {
    if (err instanceof HttpStatusError && err.status === 401) throw err;
    return "unknown";
  }
}

/** A failure in words safe for a page: the status or the timeout, never a URL or body. */
export function describeFailure(err: unknown): string {
  if (err instanceof HttpStatusError) return `kcp answered HTTP ${err.status}${err.reason === undefined ? "" : ` (${err.reason})`}`;
  if (err instanceof RequestTimeoutError) return "kcp did not answer in time";
  return "kcp could not be reached";
}
