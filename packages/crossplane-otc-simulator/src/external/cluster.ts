/**
 * ClusterV3 (opentelekomcloud_cce_cluster_v3, reference §1.6). Terraform's
 * create orders the cluster, waits until it is Available, binds the master
 * EIP named by its address (`eip`), and only then records the cluster: so
 * the MR is Ready only once all of that is done. Nearly every argument is
 * ForceNew.
 *
 * Every refresh also fills `certificateClusters` and `certificateUsers`
 * from the cluster's kubeconfig unless `ignoreCertificateClustersData` /
 * `ignoreCertificateUsersData` say not to (reference §1.6: the client key in
 * plain status); a failed read leaves them out, as Terraform only logs it.
 * The simulator asks CCE for a one-day certificate once per set of
 * endpoints and keeps it in status after that, where Terraform reads the
 * deprecated certificate API on every refresh.
 */
import {
  bindCceMasterEip,
  createCceCluster,
  deleteCceCluster,
  getCceCluster,
  getCceClusterCert,
  listPublicIps,
  type CceCluster,
  type CceClusterDeletion,
  type CceDeleteChoice,
  type CceKubeconfig,
} from "@edgeconnect/otc";
import type { ExternalPhase } from "../managed/conditions.js";
import { booleanParameter, defined, numberParameter, requiredString, stringParameter, type ExternalContext, type ExternalKind } from "../managed/external.js";
import type { ManagedResource, Parameters } from "../managed/resource.js";

/** Days the kubeconfig's client certificate is valid. */
const CERTIFICATE_DAYS = 1;

const DELETE_OPTIONS: readonly (keyof CceClusterDeletion)[] = ["deleteEvs", "deleteNet", "deleteObs", "deleteSfs", "deleteEfs"];

export const CLUSTER_V3: ExternalKind = {
  group: "cce.opentelekomcloud.m.crossplane.io",
  version: "v1alpha1",
  kind: "ClusterV3",
  plural: "clusterv3s",
  scope: "Namespaced",
  forceNew: new Set([
    "name",
    "cluster_type",
    "flavor_id",
    "cluster_version",
    "vpc_id",
    "subnet_id",
    "container_network_type",
    "container_network_cidr",
    "authentication_mode",
    "masters",
    "multi_az",
    "region",
  ]),
  readyOnlyWhenSettled: true,
  async create({ otc, signal }, parameters) {
    const masters = parameters.masters;
    const version = stringParameter(parameters, "clusterVersion");
    const cidr = stringParameter(parameters, "containerNetworkCidr");
    const description = stringParameter(parameters, "description");
    const billingMode = numberParameter(parameters, "billingMode");
    const cluster = await createCceCluster(
      otc,
      {
        metadata: { name: requiredString(parameters, "name", "name") },
        spec: {
          type: requiredString(parameters, "clusterType", "cluster_type"),
          flavor: requiredString(parameters, "flavorId", "flavor_id"),
          ...(version === undefined ? {} : { version }),
          ...(description === undefined ? {} : { description }),
          hostNetwork: { vpc: requiredString(parameters, "vpcId", "vpc_id"), subnet: requiredString(parameters, "subnetId", "subnet_id") },
          containerNetwork: { mode: requiredString(parameters, "containerNetworkType", "container_network_type"), ...(cidr === undefined ? {} : { cidr }) },
          authentication: { mode: stringParameter(parameters, "authenticationMode") ?? "rbac" },
          ...(Array.isArray(masters) ? { masters: masters as { availabilityZone: string }[] } : {}),
          ...(billingMode === undefined ? {} : { billingMode }),
        },
      },
      { signal },
    );
    return cluster.metadata.uid;
  },
  async observe(context, id, parameters, mr) {
    const cluster = await getCceCluster(context.otc, id, { signal: context.signal });
    if (cluster === undefined) return undefined;
    const phase = cluster.status?.phase ?? "";
    const internal = endpoint(cluster, "Internal");
    const external = endpoint(cluster, "External");
    const eip = stringParameter(parameters, "eip");
    const reported = defined({
      name: cluster.metadata.name,
      clusterType: cluster.spec.type,
      flavorId: cluster.spec.flavor,
      vpcId: cluster.spec.hostNetwork.vpc,
      subnetId: cluster.spec.hostNetwork.subnet,
      containerNetworkType: cluster.spec.containerNetwork.mode,
      containerNetworkCidr: cluster.spec.containerNetwork.cidr,
      authenticationMode: cluster.spec.authentication?.mode,
      region: context.otc.region,
    });
    const observed = defined({
      ...parameters,
      ...reported,
      id: cluster.metadata.uid,
      status: phase,
      clusterVersion: cluster.spec.version ?? stringParameter(parameters, "clusterVersion"),
      internal,
      external,
    });
    const needsEip = phase === "Available" && eip !== undefined && external === undefined;
    const certificates = phase === "Available" && !needsEip ? await certificateData(context, id, parameters, mr, { internal, external }) : {};
    return {
      phase: needsEip ? { kind: "settling" } : phaseOf(phase),
      atProvider: { ...observed, ...certificates },
      reported,
      ...(needsEip ? { followUp: (followUp: ExternalContext) => bindEip(followUp, id, eip) } : {}),
    };
  },
  async delete({ otc, signal }, id, parameters) {
    const deletion: Partial<Record<keyof CceClusterDeletion, CceDeleteChoice>> = {};
    for (const option of DELETE_OPTIONS) {
      const value = stringParameter(parameters, option);
      if (value === "true" || value === "try" || value === "false") deletion[option] = value;
    }
    await deleteCceCluster(otc, id, deletion, { signal });
  },
};

/** Terraform's create waits from Creating to Available; its delete from Deleting to gone. */
function phaseOf(phase: string): ExternalPhase {
  switch (phase) {
    case "Available":
      return { kind: "settled" };
    case "Creating":
    case "Upgrading":
    case "ScalingUp":
    case "ScalingDown":
      return { kind: "settling" };
    case "Deleting":
      return { kind: "deleting" };
    default:
      return { kind: "failed", message: `error waiting for Open Telekom Cloud CCE cluster to become available: unexpected state '${phase}', wanted target 'Available'` };
  }
}

/** The endpoint's URL (`https://192.168.0.10:5443`), as Terraform's `internal` and `external` give it. */
function endpoint(cluster: CceCluster, type: "Internal" | "External"): string | undefined {
  return cluster.status?.endpoints?.find((candidate) => candidate.type === type)?.url;
}

async function bindEip({ otc, signal }: ExternalContext, clusterId: string, address: string): Promise<void> {
  const eip = (await listPublicIps(otc, { signal })).find((candidate) => candidate.public_ip_address === address);
  if (eip === undefined) throw new Error(`error binding EIP ${address} to the cluster: no EIP with this address`);
  await bindCceMasterEip(otc, clusterId, eip.id, { signal });
}

/**
 * `certificateClusters` and `certificateUsers` as far as the ignore flags
 * allow: from the status when it has them for these endpoints already, else
 * from a new kubeconfig.
 */
async function certificateData(
  context: ExternalContext,
  clusterId: string,
  parameters: Parameters,
  mr: ManagedResource,
  endpoints: { readonly internal: string | undefined; readonly external: string | undefined },
): Promise<Parameters> {
  const wantClusters = booleanParameter(parameters, "ignoreCertificateClustersData") !== true;
  const wantUsers = booleanParameter(parameters, "ignoreCertificateUsersData") !== true;
  if (!wantClusters && !wantUsers) return {};
  const previous = mr.status?.atProvider ?? {};
  const sameEndpoints = previous.internal === endpoints.internal && previous.external === endpoints.external;
  const kept = sameEndpoints ? pick(previous, wantClusters, wantUsers) : undefined;
  if (kept !== undefined) return kept;
  let kubeconfig: CceKubeconfig;
  try {
    kubeconfig = await getCceClusterCert(context.otc, clusterId, CERTIFICATE_DAYS, { signal: context.signal });
  } catch (err) {
    // Terraform logs a failed certificate read and refreshes without it.
    if (context.signal.aborted) throw err;
    return {};
  }
  return {
    ...(wantClusters ? { certificateClusters: clustersOf(kubeconfig) } : {}),
    ...(wantUsers ? { certificateUsers: usersOf(kubeconfig) } : {}),
  };
}

/** The wanted certificate lists from a previous status, or undefined if one is missing. */
function pick(previous: Parameters, wantClusters: boolean, wantUsers: boolean): Parameters | undefined {
  const clusters = previous.certificateClusters;
  const users = previous.certificateUsers;
  if ((wantClusters && !Array.isArray(clusters)) || (wantUsers && !Array.isArray(users))) return undefined;
  return { ...(wantClusters ? { certificateClusters: clusters } : {}), ...(wantUsers ? { certificateUsers: users } : {}) };
}

function clustersOf(kubeconfig: CceKubeconfig): Parameters[] {
  return kubeconfig.clusters.map((entry) =>
    defined({ name: entry.name, server: entry.cluster.server, certificateAuthorityData: entry.cluster["certificate-authority-data"] }),
  );
}

function usersOf(kubeconfig: CceKubeconfig): Parameters[] {
  return kubeconfig.users.map((entry) =>
    defined({ name: entry.name, clientCertificateData: entry.user["client-certificate-data"], clientKeyData: entry.user["client-key-data"] }),
  );
}

