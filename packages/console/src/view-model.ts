/**
 * What the console's API sends the page: plain JSON, already cut to what the
 * viewer may see. The page (src/web/app.ts) imports these types only, so
 * that one definition binds server and browser.
 */

/** Who is signed in, as kcp proved it at sign-in. */
export type Viewer =
  | { readonly kind: "platform"; readonly user: string }
  | { readonly kind: "tenant"; readonly user: string; readonly workspace: string };

export interface ConditionView {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
  readonly since?: string;
}

export interface ClusterRow {
  /** The tenant's key in links: its logical cluster (platform view) or its workspace path (tenant view). */
  readonly tenant: string;
  readonly namespace: string;
  readonly name: string;
  readonly phase: string;
  readonly provider: string;
  readonly flavor?: string;
  readonly version?: string;
  readonly nodeCount?: number;
  readonly createdAt?: string;
  /** The deletionTimestamp: a teardown runs since then. */
  readonly deletingSince?: string;
  readonly ready?: ConditionView;
}

export interface TenantView {
  readonly tenant: string;
  readonly clusters: readonly ClusterRow[];
}

export type AttentionKind = "credentials-rejected" | "failed" | "stuck" | "sold-out" | "orphaned";

export interface AttentionItem {
  readonly kind: AttentionKind;
  readonly message: string;
  readonly tenant?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly since?: string;
}

export interface ScrapeView {
  readonly url: string;
  readonly up: boolean;
  readonly error?: string;
  readonly queueDepth: readonly { readonly controller: string; readonly depth: number }[];
  readonly reconciles: number;
  readonly errors: number;
  /** Per second since the previous scrape; absent on the first. */
  readonly reconcileRate?: number;
  readonly errorRate?: number;
  /** Reconcile requests queued per tenant (the runtime's bounded `tenant` label), busiest first. */
  readonly tenantQueue: readonly { readonly tenant: string; readonly queued: number; readonly rate?: number }[];
  readonly orphaned: number;
}

export interface ReplicaView {
  readonly identity: string;
  readonly renewTime?: string;
  /** Slots held (sharded), or empty for the leader of all tenants. */
  readonly slots: readonly number[];
  readonly tenants: readonly string[];
}

export interface ControllerHealth {
  readonly scrapes: readonly ScrapeView[];
  readonly mode: "leader" | "sharded" | "unknown";
  readonly replicas: readonly ReplicaView[];
  /** Why leadership could not be read (kcp's answer), when it could not. */
  readonly leasesError?: string;
}

export interface Overview {
  readonly viewer: Viewer;
  readonly tenants: readonly TenantView[];
  /** Platform view only. */
  readonly attention?: readonly AttentionItem[];
  /** Platform view only. */
  readonly health?: ControllerHealth;
  /** What could not be read, in words safe to show. */
  readonly problems: readonly string[];
}

export interface TreeNode {
  /** What it is: "KubernetesCluster", "tenant namespace", "the control plane (ClusterV3)". */
  readonly label: string;
  /** Its name: only in the platform view for infrastructure objects. */
  readonly name?: string;
  readonly synced?: ConditionView;
  readonly ready?: ConditionView;
  /** provisioning's managedResourceState: Absent, Pending, Ready, Failed, Deleting. */
  readonly state?: string;
  readonly reason?: string;
  readonly message?: string;
  /** The OTC id (status.atProvider.id). */
  readonly cloudId?: string;
  readonly deletingSince?: string;
  readonly children: readonly TreeNode[];
}

export interface EventView {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly count: number;
  readonly last?: string;
}

export interface ClusterDetail {
  readonly cluster: ClusterRow;
  readonly conditions: readonly ConditionView[];
  readonly events: readonly EventView[];
  /** Why Events could not be read, when kcp refused them. */
  readonly eventsError?: string;
  readonly tree: TreeNode;
  readonly teardown?: { readonly since: string; readonly waitingFor: string };
}

/** One push of the live stream. */
export interface LiveView {
  readonly overview: Overview;
  readonly detail?: ClusterDetail;
  /** Why the selected cluster cannot be shown (not found, or not yours). */
  readonly detailError?: string;
}
