/**
 * The seed's demo flow in a tenant workspace (KCP_WORKSPACE): the
 * credentials Secret from an AK/SK, the example YAML, waiting for the
 * managed resources, and the workload kubeconfig.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { API_EXPORT_NAME, KUBERNETES_CLUSTER_RESOURCE, objectPath, PERMISSION_CLAIMS, PLATFORM_API_VERSION, TENANT_WORKSPACE_TYPE, type KubernetesCluster } from "@edgeconnect/api";
import { applyManifests, clusterOf, getIfPresent, HttpStatusError, parseManifests, RestClient, type KubeObject } from "@edgeconnect/kcp-ts";
import { labelValue, tenantNamespace, UID_LABEL } from "@edgeconnect/provisioning";
import { DEMO_UP_KINDS, demoProgress, type ObservedNodePool } from "../demo-progress.js";
import { ensureWorkspace, withKcp, type Kcp } from "../kcp-workspaces.js";
import { demoCredentialsSecret } from "../otc-credentials.js";
import type { TargetContext } from "../output.js";
import { FIELD_MANAGER, platformResources } from "../platform-api.js";
import { pollUntil } from "../poll.js";
import { DEMO_CLUSTER_FILE, DEMO_NAMESPACE_FILE, DEMO_PROVIDER_CONFIG_FILE, shown, WORK_DIR } from "../repo.js";
import type { Variables } from "../variables.js";
import { UsageError } from "../variables.js";

/** The seed's defaults for the demo's credentials. */
const DEFAULT_REGION = "eu-de";
const DEFAULT_AUTH_URL = "https://iam.eu-de.otc.t-systems.com/v3";
export const DEFAULT_PROVIDER_WORKSPACE = "root:edgeconnect";

type Cluster = KubernetesCluster & KubeObject;

export function otcConfig(_vars: Variables, context: TargetContext): Promise<void> {
  const cluster = demoCluster();
  context.out.info(`The demo's YAML, applied by make demo-apply-cluster in KCP_WORKSPACE:

  ${shown(DEMO_NAMESPACE_FILE)}           the Namespace ${cluster.metadata?.namespace ?? ""} only; no credentials are committed
  ${shown(DEMO_PROVIDER_CONFIG_FILE)}     the ProviderConfig: which Secret holds the OTC credentials
  ${shown(DEMO_CLUSTER_FILE)}  the MachineCapabilities and the KubernetesCluster ${cluster.metadata?.name ?? ""}

Edit in ${shown(DEMO_CLUSTER_FILE)}:
  spec.nodeCount          ${String(cluster.spec?.nodeCount)}
  spec.nodeFlavor         ${cluster.spec?.nodeFlavor ?? "(matched from the MachineCapabilities)"}
  spec.nodeAvailableZone  ${cluster.spec?.nodeAvailableZone ?? "(the control plane's zone)"}
  spec.kubernetes.version ${cluster.spec?.kubernetes.version ?? ""}
  spec.vpcID, subnetID    ${cluster.spec?.vpcID === undefined ? "(a VPC and a subnet are made)" : `${cluster.spec.vpcID}, ${cluster.spec.subnetID ?? ""}`}

The credentials Secret demo/otc-creds comes from your AK/SK:
  make KCP_WORKSPACE=root:orgs demo-secret-create OTC_ACCESS_KEY=<ak> OTC_SECRET_KEY=<sk>`);
  return Promise.resolve();
}

export async function demoSecretCreate(vars: Variables, context: TargetContext): Promise<void> {
  const workspace = vars.workspace("KCP_WORKSPACE");
  const providerWorkspace = vars.workspace("KCP_PROVIDER_WORKSPACE", DEFAULT_PROVIDER_WORKSPACE);
  const region = vars.withDefault("DEMO_REGION", DEFAULT_REGION);
  const built = demoCredentialsSecret({
    accessKey: vars.required("OTC_ACCESS_KEY", "<ak>"),
    secretKey: vars.required("OTC_SECRET_KEY", "<sk>"),
    authUrl: vars.withDefault("OTC_AUTH_URL", DEFAULT_AUTH_URL),
    region,
    projectName: vars.withDefault("OTC_PROJECT_NAME", region),
  });
  if (!built.ok) throw new UsageError(`the credentials would be refused: ${built.problems.join("; ")}`);
  await withKcp(vars.kcpKubeconfig(), async (kcp) => {
    const tenant = await tenantWorkspace(kcp, workspace, providerWorkspace, context);
    await applyManifests(tenant, readFileSync(DEMO_NAMESPACE_FILE, "utf8"), FIELD_MANAGER);
    await tenant.apply(`/api/v1/namespaces/${built.secret.metadata?.namespace ?? ""}/secrets/${built.secret.metadata?.name ?? ""}`, built.secret, FIELD_MANAGER);
    context.out.info(`${workspace}: Namespace demo and Secret demo/otc-creds (key credentials: access key, region ${region}) applied`);
  });
}

export async function demoApplyCluster(vars: Variables, context: TargetContext): Promise<void> {
  const workspace = vars.workspace("KCP_WORKSPACE");
  await withKcp(vars.kcpKubeconfig(), async (kcp) => {
    const tenant = kcp.workspace(workspace);
    await requirePlatformApi(tenant, workspace);
    for (const file of [DEMO_NAMESPACE_FILE, DEMO_PROVIDER_CONFIG_FILE, DEMO_CLUSTER_FILE]) {
      const applied = await applyManifests(tenant, readFileSync(file, "utf8"), FIELD_MANAGER);
      context.out.info(`${shown(file)}: ${applied.map((obj) => `${obj.kind ?? ""} ${obj.metadata?.name ?? ""}`).join(", ")} applied`);
    }
  });
}

export async function demoUp(vars: Variables, context: TargetContext): Promise<void> {
  const workspace = vars.workspace("KCP_WORKSPACE");
  const crossplane = vars.required("CROSSPLANE_KUBECONFIG", "/path/to/crossplane.kubeconfig");
  const timeoutMs = vars.duration("DEMO_TIMEOUT", "45m");
  const pollMs = vars.duration("DEMO_POLL_INTERVAL", "5s");
  const wanted = demoCluster();
  const name = wanted.metadata?.name ?? "";
  const namespace = wanted.metadata?.namespace ?? "default";
  const infra = RestClient.fromFile(crossplane);
  const started = Date.now();
  try {
    await withKcp(vars.kcpKubeconfig(), async (kcp) => {
      const tenant = kcp.workspace(workspace);
      let last = "";
      let summary = "";
      const warned = new Set<string>();
      const up = await pollUntil(
        async () => {
          const cluster = await getIfPresent<Cluster>(tenant, objectPath(KUBERNETES_CLUSTER_RESOURCE, namespace, name));
          if (cluster === undefined) throw new UsageError(`KubernetesCluster ${namespace}/${name} is not in ${workspace}: make KCP_WORKSPACE=${workspace} demo-apply-cluster`);
          const progress = demoProgress(await observe(infra, cluster), shown(DEMO_CLUSTER_FILE));
          summary = progress.summary;
          const ready = cluster.status?.conditions?.find((condition) => condition.type === "Ready");
          const line = `${progress.summary}${ready === undefined ? "" : ` | ${name}: ${ready.reason ?? ""} ${ready.message ?? ""}`.trimEnd()}`;
          if (line !== last) context.out.info(`[${seconds(started)}] ${line}`);
          last = line;
          for (const warning of progress.soldOut.filter((text) => !warned.has(text))) {
            context.out.warn(warning);
            warned.add(warning);
          }
          return progress.done;
        },
        { timeoutMs, intervalMs: pollMs, signal: context.signal },
      );
      if (!up) throw new Error(`${name} is not up after ${seconds(started)} (DEMO_TIMEOUT): ${summary}`);
      context.out.info(`${name} is up after ${seconds(started)}: make KCP_WORKSPACE=${workspace} demo-kubeconfig`);
    });
  } finally {
    infra.close();
  }
}

export async function demoKubeconfig(vars: Variables, context: TargetContext): Promise<void> {
  const workspace = vars.workspace("KCP_WORKSPACE");
  const wanted = demoCluster();
  const name = wanted.metadata?.name ?? "";
  const namespace = wanted.metadata?.namespace ?? "default";
  await withKcp(vars.kcpKubeconfig(), async (kcp) => {
    const tenant = kcp.workspace(workspace);
    const cluster = await getIfPresent<Cluster>(tenant, objectPath(KUBERNETES_CLUSTER_RESOURCE, namespace, name));
    const secretName = cluster?.status?.kubeconfigSecretName;
    if (secretName === undefined) throw new UsageError(`${namespace}/${name} in ${workspace} has no kubeconfig yet: make demo-up waits for it`);
    const secret = await tenant.get<KubeObject & { data?: Record<string, string> }>(`/api/v1/namespaces/${namespace}/secrets/${secretName}`);
    const kubeconfig = secret.data?.["kubeconfig"];
    if (kubeconfig === undefined) throw new Error(`Secret ${namespace}/${secretName} has no key kubeconfig`);
    const target = vars.optional("DEMO_KUBECONFIG") ?? join(WORK_DIR, `${workspace.replaceAll(":", "_")}-${name}.kubeconfig`);
    mkdirSync(join(target, ".."), { recursive: true });
    writeFileSync(target, Buffer.from(kubeconfig, "base64"), { mode: 0o600 });
    context.out.info(`the kubeconfig of ${name} (Secret ${namespace}/${secretName}) is in ${shown(target)}:\n  kubectl --kubeconfig ${shown(target)} get nodes`);
  });
}

/** The KubernetesCluster of the demo's YAML: demo-up and demo-kubeconfig follow the cluster that file orders. */
function demoCluster(): Cluster {
  const cluster: Cluster | undefined = parseManifests(readFileSync(DEMO_CLUSTER_FILE, "utf8")).find((obj) => obj.kind === KUBERNETES_CLUSTER_RESOURCE.kind);
  if (cluster?.metadata?.name === undefined) throw new UsageError(`${shown(DEMO_CLUSTER_FILE)} has no KubernetesCluster`);
  return cluster;
}

/** The demo cluster's managed resources, found by the owner label the controller puts on each. */
async function observe(infra: RestClient, cluster: Cluster) {
  const logical = clusterOf(cluster);
  const uid = cluster.metadata?.uid;
  const resources = new Map<string, readonly ObservedNodePool[]>();
  const notNeeded = new Set<string>(cluster.spec?.vpcID !== undefined && cluster.spec.subnetID !== undefined ? ["VpcV1", "SubnetV1"] : []);
  if (logical === undefined || uid === undefined) return { notNeeded, resources };
  const namespace = tenantNamespace(logical).name;
  for (const kind of DEMO_UP_KINDS) {
    try {
      const list = await infra.list<ObservedNodePool>(`/apis/${kind.apiVersion}/namespaces/${namespace}/${kind.plural}`, { query: { labelSelector: `${UID_LABEL}=${labelValue(uid)}` } });
      resources.set(kind.kind, list.items);
    } catch (err) {
      if (err instanceof HttpStatusError && err.status === 404) throw new UsageError(`CROSSPLANE_KUBECONFIG's cluster does not serve ${kind.kind} (${kind.apiVersion}): is Crossplane's OTC provider installed there?`);
      throw err;
    }
  }
  return { notNeeded, resources };
}

/**
 * The tenant workspace, bound to the platform's API: made with the tenant
 * WorkspaceType when it does not exist (kcp then binds the export), refused
 * with the command that binds it when it exists without.
 */
async function tenantWorkspace(kcp: Kcp, workspace: string, providerWorkspace: string, context: TargetContext): Promise<RestClient> {
  const created = await ensureWorkspace(kcp, workspace, { type: { name: TENANT_WORKSPACE_TYPE, path: providerWorkspace }, log: context.out.info, signal: context.signal });
  const tenant = kcp.workspace(workspace);
  // A new workspace of the type serves the API once kcp has bound the export.
  if (created) await pollUntil(async () => (await platformResources(tenant)) !== undefined, { timeoutMs: 60_000, intervalMs: 500, signal: context.signal });
  await requirePlatformApi(tenant, workspace, providerWorkspace);
  return tenant;
}

async function requirePlatformApi(workspace: RestClient, path: string, providerWorkspace = DEFAULT_PROVIDER_WORKSPACE): Promise<void> {
  if ((await platformResources(workspace)) !== undefined) return;
  throw new UsageError(
    `${path} does not serve ${PLATFORM_API_VERSION}: bind the platform's export there first, e.g. ` +
      `kubectl kcp bind apiexport ${providerWorkspace}:${API_EXPORT_NAME} ${PERMISSION_CLAIMS.map((claim) => `--accept-permission-claim ${claim.resource}.${claim.group === "" ? "core" : claim.group}`).join(" ")}`,
  );
}

function seconds(since: number): string {
  return `${Math.round((Date.now() - since) / 1000)} s`;
}
