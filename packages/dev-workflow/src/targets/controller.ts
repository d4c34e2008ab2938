/**
 * The provider-controller against a kcp and a Crossplane cluster: run here
 * in the foreground (run-kcp-local), or installed with its chart on the
 * Crossplane cluster (deploy-kcp-controller). Both first apply what the
 * provider workspace needs (the platform API and the flavor catalogue).
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { applyManifests, RestClient } from "@edgeconnect/kcp-ts";
import { runCommand } from "../commands.js";
import { withKcp, writeWorkspaceKubeconfig } from "../kcp-workspaces.js";
import type { TargetContext } from "../output.js";
import { FIELD_MANAGER, installPlatformApi } from "../platform-api.js";
import { pollUntil } from "../poll.js";
import { CONTROLLER_CHART, CONTROLLER_KCP_RBAC, CONTROLLER_MAIN, shown, WORK_DIR } from "../repo.js";
import type { Variables } from "../variables.js";
import { UsageError } from "../variables.js";
import { DEFAULT_PROVIDER_WORKSPACE } from "./demo.js";

/** The auth URLs the chart allows by default: OTC's IAM in every region. */
const OTC_AUTH_URLS = "https://iam.*.otc.t-systems.com/";

export async function runKcpLocal(vars: Variables, context: TargetContext): Promise<void> {
  const crossplane = vars.required("CROSSPLANE_KUBECONFIG", "/path/to/existing-crossplane.kubeconfig");
  const providerWorkspace = vars.workspace("KCP_PROVIDER_WORKSPACE", DEFAULT_PROVIDER_WORKSPACE);
  const tenants = vars.optional("KCP_WORKSPACE");
  const kcpKubeconfig = await prepareProviderWorkspace(vars, providerWorkspace, context);
  if (tenants !== undefined) context.out.info(`the controller serves every workspace bound to the export of ${providerWorkspace}, ${tenants} among them`);
  const args = [
    CONTROLLER_MAIN,
    `--kcp-kubeconfig=${kcpKubeconfig}`,
    `--infra-kubeconfig=${crossplane}`,
    `--allowed-otc-auth-url=${allowedAuthUrl(vars)}`,
    `--metrics-bind-address=${vars.withDefault("METRICS_BIND_ADDRESS", ":8080")}`,
    `--health-probe-bind-address=${vars.withDefault("HEALTH_PROBE_BIND_ADDRESS", ":8081")}`,
    ...(vars.optional("CONTROLLER_ARGS")?.split(/\s+/) ?? []),
  ];
  context.out.info(`starting the provider-controller (Ctrl-C stops it): kcp ${providerWorkspace}, infrastructure ${crossplane}`);
  await runCommand(process.execPath, args, { signal: context.signal }).catch((err: unknown) => {
    // Ctrl-C ends the controller as asked; anything else is its failure.
    if (!context.signal.aborted) throw err;
  });
}

export async function deployKcpController(vars: Variables, context: TargetContext): Promise<void> {
  const crossplane = vars.required("CROSSPLANE_KUBECONFIG", "/path/to/existing-crossplane.kubeconfig");
  const providerWorkspace = vars.workspace("KCP_PROVIDER_WORKSPACE", DEFAULT_PROVIDER_WORKSPACE);
  const namespace = vars.withDefault("NAMESPACE", "edgeconnect-system");
  const release = vars.withDefault("RELEASE", "provider-controller");
  const helm = vars.withDefault("HELM", "helm");
  const image = imageValues(vars.optional("IMG"));
  const ownKubeconfig = vars.optional("KCP_CONTROLLER_KUBECONFIG");
  const adminKubeconfig = await prepareProviderWorkspace(vars, providerWorkspace, context, async (provider) => {
    await applyManifests(provider, readFileSync(CONTROLLER_KCP_RBAC, "utf8"), FIELD_MANAGER);
    context.out.info(`${providerWorkspace}: the controller's kcp RBAC from ${shown(CONTROLLER_KCP_RBAC)} (it binds user provider-controller; bind your controller identity as its README says)`);
  });
  if (ownKubeconfig === undefined) {
    context.out.warn(`KCP_CONTROLLER_KUBECONFIG is not set: the controller gets your own kcp credentials (KUBECONFIG) for ${providerWorkspace}. Give it an identity bound by ${shown(CONTROLLER_KCP_RBAC)} instead.`);
  }
  const secretName = `${release}-kcp`;
  const infra = RestClient.fromFile(crossplane);
  try {
    await infra.apply(`/api/v1/namespaces/${namespace}`, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }, FIELD_MANAGER);
    await infra.apply(
      `/api/v1/namespaces/${namespace}/secrets/${secretName}`,
      { apiVersion: "v1", kind: "Secret", metadata: { name: secretName, namespace }, type: "Opaque", stringData: { kubeconfig: readFileSync(ownKubeconfig ?? adminKubeconfig, "utf8") } },
      FIELD_MANAGER,
    );
    context.out.info(`Secret ${namespace}/${secretName} (key kubeconfig) applied on the Crossplane cluster`);
    await runCommand(
      helm,
      [
        "upgrade", "--install", release, CONTROLLER_CHART,
        "--namespace", namespace,
        "--kubeconfig", crossplane,
        "--set", `kcp.kubeconfigSecret.name=${secretName}`,
        "--set", "kcp.kubeconfigSecret.key=kubeconfig",
        "--set-json", `otc.allowedAuthUrls=${JSON.stringify([allowedAuthUrl(vars)])}`,
        ...image.flatMap((value) => ["--set", value]),
      ],
      { signal: context.signal },
    );
    await reportRollout(infra, namespace, release, vars.duration("ROLLOUT_TIMEOUT", "60s"), context);
  } finally {
    infra.close();
  }
}

/**
 * Applies the platform API and catalogue (and what `also` applies there),
 * and writes the kubeconfig the controller runs with: the user's, pointed
 * at the provider workspace.
 */
async function prepareProviderWorkspace(vars: Variables, providerWorkspace: string, context: TargetContext, also?: (provider: RestClient) => Promise<void>): Promise<string> {
  const kubeconfig = vars.kcpKubeconfig();
  await withKcp(kubeconfig, async (kcp) => {
    const provider = await installPlatformApi(kcp, providerWorkspace, context);
    await also?.(provider);
  });
  mkdirSync(WORK_DIR, { recursive: true });
  return writeWorkspaceKubeconfig(kubeconfig, providerWorkspace, join(WORK_DIR, `${providerWorkspace.replaceAll(":", "_")}.kubeconfig`));
}

/** The IAM URL prefix tenants' credentials may name: OTC_AUTH_URL's origin, else OTC's IAM in any region. */
function allowedAuthUrl(vars: Variables): string {
  const authUrl = vars.optional("OTC_AUTH_URL");
  if (authUrl === undefined) return OTC_AUTH_URLS;
  try {
    return `${new URL(authUrl).origin}/`;
  } catch {
    throw new UsageError("OTC_AUTH_URL must be a URL such as https://iam.eu-de.otc.t-systems.com/v3");
  }
}

/** `--set` values for IMG (`repository[:tag]`); none keeps the chart's image. */
export function imageValues(image: string | undefined): string[] {
  if (image === undefined) return [];
  const colon = image.lastIndexOf(":");
  const tagged = colon > image.lastIndexOf("/");
  return tagged ? [`image.repository=${image.slice(0, colon)}`, `image.tag=${image.slice(colon + 1)}`] : [`image.repository=${image}`];
}

interface Deployment {
  metadata?: { name?: string };
  spec?: { replicas?: number };
  status?: { availableReplicas?: number };
}

/** Tells how the release's Deployment stands, waiting up to ROLLOUT_TIMEOUT for it to be available; a cluster without nodes never makes it available. */
async function reportRollout(infra: RestClient, namespace: string, release: string, timeoutMs: number, context: TargetContext): Promise<void> {
  let rollout = { name: release, wanted: 1, available: 0 };
  const done = await pollUntil(
    async () => {
      const deployments = await infra.list<Deployment>(`/apis/apps/v1/namespaces/${namespace}/deployments`, { query: { labelSelector: `app.kubernetes.io/instance=${release}` } });
      const deployment = deployments.items[0];
      if (deployment === undefined) throw new Error(`helm installed no Deployment of release ${release} in ${namespace}`);
      rollout = { name: deployment.metadata?.name ?? release, wanted: deployment.spec?.replicas ?? 1, available: deployment.status?.availableReplicas ?? 0 };
      return rollout.available >= rollout.wanted;
    },
    { timeoutMs, intervalMs: 2_000, signal: context.signal },
  );
  const { name, wanted, available } = rollout;
  if (done) context.out.info(`Deployment ${namespace}/${name}: ${available} of ${wanted} replicas available`);
  else context.out.warn(`Deployment ${namespace}/${name}: ${available} of ${wanted} replicas available after ${Math.round(timeoutMs / 1000)} s; see kubectl -n ${namespace} describe deployment ${name} (a cluster without nodes, or without the image, never gets there)`);
}
