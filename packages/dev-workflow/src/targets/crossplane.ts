/**
 * The Crossplane side of the seed's workflow: a kind cluster with Crossplane
 * and the OTC provider, and the platform's OTC credentials for it.
 */
import { readFileSync, statSync } from "node:fs";
import { applyManifests, getIfPresent, RestClient } from "@edgeconnect/kcp-ts";
import { MAX_CREDENTIALS_BYTES } from "@edgeconnect/provisioning";
import { runCommand } from "../commands.js";
import { requireDocker } from "../docker.js";
import { platformCredentialsSecret, PLATFORM_CREDENTIALS_SECRET } from "../otc-credentials.js";
import type { TargetContext } from "../output.js";
import { FIELD_MANAGER } from "../platform-api.js";
import { pollUntil } from "../poll.js";
import { CROSSPLANE_PROVIDER_CONFIG_FILE, CROSSPLANE_SETUP_FILE, shown } from "../repo.js";
import type { Variables } from "../variables.js";
import { UsageError } from "../variables.js";

/** The seed's kubeconfig of the kind cluster. */
export const KIND_KUBECONFIG = "/tmp/devfw-kind.kubeconfig";
const CROSSPLANE_CHART_REPO = "https://charts.crossplane.io/stable";
/** The CRD whose being served means the OTC provider is installed. */
const PROVIDER_CRD = "clusterproviderconfigs.opentelekomcloud.m.crossplane.io";

export async function crossplaneKind(vars: Variables, context: TargetContext): Promise<void> {
  await requireDocker("crossplane-kind", "Without Docker, `make local-up` starts the local infrastructure cluster with the Crossplane OTC provider simulator instead.", vars.withDefault("DOCKER", "docker"));
  const kubeconfig = vars.withDefault("CROSSPLANE_KUBECONFIG", KIND_KUBECONFIG);
  const kind = vars.withDefault("KIND", "kind");
  const helm = vars.withDefault("HELM", "helm");
  const name = vars.withDefault("KIND_CLUSTER_NAME", "devfw");
  const run = (command: string, args: readonly string[]): Promise<void> => runCommand(command, args, { signal: context.signal });
  context.out.info(`creating kind cluster ${name} (kubeconfig ${kubeconfig})`);
  await run(kind, ["create", "cluster", "--name", name, "--kubeconfig", kubeconfig]).catch((err: unknown) => {
    throw new Error(`kind could not create cluster ${name} (delete it with \`kind delete cluster --name ${name}\` to start over): ${String(err)}`);
  });
  context.out.info("installing Crossplane");
  await run(helm, ["repo", "add", "crossplane-stable", CROSSPLANE_CHART_REPO, "--force-update"]);
  await run(helm, ["upgrade", "--install", "crossplane", "crossplane-stable/crossplane", "--namespace", "crossplane-system", "--create-namespace", "--wait", "--kubeconfig", kubeconfig]);
  const client = RestClient.fromFile(kubeconfig);
  try {
    await applyManifests(client, readFileSync(CROSSPLANE_SETUP_FILE, "utf8"), FIELD_MANAGER);
    context.out.info(`${shown(CROSSPLANE_SETUP_FILE)} applied; waiting for the provider's CRDs`);
    await waitForCrd(client, PROVIDER_CRD, 15 * 60_000, context);
    await applyManifests(client, readFileSync(CROSSPLANE_PROVIDER_CONFIG_FILE, "utf8"), FIELD_MANAGER);
    context.out.info(`${shown(CROSSPLANE_PROVIDER_CONFIG_FILE)} applied. Next: make CROSSPLANE_KUBECONFIG=${kubeconfig} OTC_CREDENTIALS_FILE=<file> crossplane-create-otc-secret`);
  } finally {
    client.close();
  }
}

export async function crossplaneCreateOtcSecret(vars: Variables, context: TargetContext): Promise<void> {
  const kubeconfig = vars.required("CROSSPLANE_KUBECONFIG", KIND_KUBECONFIG);
  const file = vars.required("OTC_CREDENTIALS_FILE", "/path/to/otc-credentials.txt");
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw new UsageError(`OTC_CREDENTIALS_FILE ${file} cannot be read`);
  }
  if (size > MAX_CREDENTIALS_BYTES) throw new UsageError(`OTC_CREDENTIALS_FILE ${file} is larger than ${MAX_CREDENTIALS_BYTES} bytes: is it the credentials file?`);
  const built = platformCredentialsSecret(readFileSync(file, "utf8"));
  if (!built.ok) throw new UsageError(`OTC_CREDENTIALS_FILE ${file} would be refused: ${built.problems.join("; ")}`);
  const client = RestClient.fromFile(kubeconfig);
  try {
    const { namespace, name } = PLATFORM_CREDENTIALS_SECRET;
    await client.apply(`/api/v1/namespaces/${namespace}`, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }, FIELD_MANAGER);
    await client.apply(`/api/v1/namespaces/${namespace}/secrets/${name}`, built.secret, FIELD_MANAGER);
    context.out.info(`Secret ${namespace}/${name} (key credentials, ${built.mode === "password" ? "password" : "access key"} credentials as the provider reads them) applied`);
  } finally {
    client.close();
  }
}

/** Waits until the CRD named is Established. */
async function waitForCrd(client: RestClient, name: string, timeoutMs: number, context: TargetContext): Promise<void> {
  const established = await pollUntil(
    async () => {
      const crd = await getIfPresent<{ status?: { conditions?: { type: string; status: string }[] } }>(client, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
      return crd?.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") === true;
    },
    { timeoutMs, intervalMs: 2_000, signal: context.signal },
  );
  if (!established) throw new Error(`CRD ${name} is not Established after ${timeoutMs / 60_000} min: is the provider package pulled? (kubectl get providers)`);
}
