/**
 * A workload cluster, reached with the admin kubeconfig Cluster API's
 * control plane provider writes for it (`clusterApiKubeconfigSecret`:
 * Secret `<cluster>-kubeconfig`, key `value`) in the Cluster's namespace. The contract reserves that Secret to
 * Cluster API's own controllers and the management plane; it never leaves
 * this process, and the access it grants is handed out only as narrower,
 * expiring ServiceAccount tokens.
 */
import { getIfPresent, type RestClient } from "@edgeconnect/kcp-ts";
import { RestClient as Client } from "@edgeconnect/kcp-ts";
import { clusterApiKubeconfigSecret } from "@edgeconnect/provisioning";
import { parse } from "yaml";

export interface WorkloadCluster {
  readonly client: RestClient;
  /** The API server URL the issued kubeconfigs name. */
  readonly server: string;
  /** PEM of the API server's CA, when the kubeconfig pins one. */
  readonly caCrt?: string;
  close(): void;
}

export interface WorkloadClusters {
  /** The cluster behind a Cluster API Cluster, or undefined while its kubeconfig Secret does not exist. */
  connect(namespace: string, capiClusterName: string, signal: AbortSignal): Promise<WorkloadCluster | undefined>;
}

interface KubeconfigDocument {
  "current-context"?: string;
  contexts?: { name: string; context?: { cluster?: string } }[];
  clusters?: { name: string; cluster?: { server?: string; "certificate-authority-data"?: string } }[];
}

export class CapiKubeconfigClusters implements WorkloadClusters {
  /** `timeoutMs`: each call's deadline in the workload cluster. */
  constructor(
    private readonly platform: RestClient,
    private readonly timeoutMs = 15_000,
  ) {}

  async connect(namespace: string, capiClusterName: string, signal: AbortSignal): Promise<WorkloadCluster | undefined> {
    const kubeconfig = clusterApiKubeconfigSecret(capiClusterName);
    const secret = await getIfPresent<{ data?: Record<string, string> }>(
      this.platform.withSignal(signal),
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(kubeconfig.name)}`,
    );
    const value = secret?.data?.[kubeconfig.key];
    if (value === undefined) return undefined;
    const text = Buffer.from(value, "base64").toString("utf8");
    const { server, caCrt } = kubeconfigEndpoint(text);
    // Held while this connection is open: a provider reaching many clusters holds only the admin credentials in use.
    const client = Client.fromKubeconfigText(text, { secretHolder: { name: `workload-kubeconfig/${namespace}/${capiClusterName}` } }).withTimeout(this.timeoutMs);
    return { client: client.withSignal(signal), server, ...(caCrt === undefined ? {} : { caCrt }), close: () => client.close() };
  }
}

/** The current context's server and CA; the messages never quote the document (it holds credentials). */
export function kubeconfigEndpoint(text: string): { server: string; caCrt?: string } {
  let doc: KubeconfigDocument;
  try {
    doc = (parse(text) as KubeconfigDocument | null) ?? {};
  } catch {
    throw new Error("the Cluster API kubeconfig Secret is not YAML");
  }
  const contextName = doc["current-context"];
  const clusterName = doc.contexts?.find((c) => c.name === contextName)?.context?.cluster ?? doc.clusters?.[0]?.name;
  const cluster = doc.clusters?.find((c) => c.name === clusterName)?.cluster;
  if (cluster?.server === undefined) throw new Error("the Cluster API kubeconfig Secret names no API server");
  const ca = cluster["certificate-authority-data"];
  return { server: cluster.server, ...(ca === undefined ? {} : { caCrt: Buffer.from(ca, "base64").toString("utf8") }) };
}
