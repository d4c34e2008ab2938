/**
 * The OTC account a cluster was created in: its project (by id, the fact
 * IAM answers with), the project's name, its region and, when the
 * credentials name it, its domain. Recorded as annotations on every managed
 * resource of the cluster when they are first applied, on the
 * infrastructure cluster where tenants cannot write.
 *
 * Crossplane would follow credentials that now name another account: it
 * would create VPC, EIP, cluster and pool anew there and orphan the ones
 * the cluster runs on. So credentials that resolve to another account are
 * refused, and a rotation within the account goes through.
 */
import type { OtcCredentials } from "./credential-parsing.js";

export const ACCOUNT_ANNOTATIONS = {
  projectId: "platform.edgeconnect.eu/otc-project-id",
  projectName: "platform.edgeconnect.eu/otc-project",
  region: "platform.edgeconnect.eu/otc-region",
  domainName: "platform.edgeconnect.eu/otc-domain",
} as const;

export interface CloudAccount {
  readonly projectId: string;
  readonly projectName: string;
  readonly region: string;
  /** Unknown for access keys whose credentials name no domain. */
  readonly domainName?: string;
}

/** The account `credentials` resolve to, given the project id IAM answered with. */
export function accountOf(credentials: OtcCredentials, projectId: string): CloudAccount {
  const domainName = credentials.domainName;
  return { projectId, projectName: credentials.projectName, region: credentials.region, ...(domainName === undefined ? {} : { domainName }) };
}

export function accountAnnotations(account: CloudAccount): Record<string, string> {
  return {
    [ACCOUNT_ANNOTATIONS.projectId]: account.projectId,
    [ACCOUNT_ANNOTATIONS.projectName]: account.projectName,
    [ACCOUNT_ANNOTATIONS.region]: account.region,
    ...(account.domainName === undefined ? {} : { [ACCOUNT_ANNOTATIONS.domainName]: account.domainName }),
  };
}

/** The account recorded in `annotations`; undefined when none is (a resource made before accounts were recorded). */
export function recordedAccount(annotations: Readonly<Record<string, string>> | undefined): CloudAccount | undefined {
  const projectId = annotations?.[ACCOUNT_ANNOTATIONS.projectId];
  const region = annotations?.[ACCOUNT_ANNOTATIONS.region];
  if (projectId === undefined || region === undefined) return undefined;
  const domainName = annotations?.[ACCOUNT_ANNOTATIONS.domainName];
  return { projectId, projectName: annotations?.[ACCOUNT_ANNOTATIONS.projectName] ?? projectId, region, ...(domainName === undefined ? {} : { domainName }) };
}

/**
 * What makes `current` another account than `recorded`, as a message that
 * says what to restore; undefined when it is the same account. A domain
 * counts only when both name one: a project belongs to one domain, so the
 * project id decides.
 */
export function accountChange(recorded: CloudAccount, current: CloudAccount): string | undefined {
  const changed: string[] = [];
  if (current.region !== recorded.region) changed.push(`region ${current.region} instead of ${recorded.region}`);
  if (current.projectId !== recorded.projectId) changed.push(`project ${current.projectName} (${current.projectId}) instead of ${recorded.projectName} (${recorded.projectId})`);
  if (current.domainName !== undefined && recorded.domainName !== undefined && current.domainName !== recorded.domainName) {
    changed.push(`domain ${current.domainName} instead of ${recorded.domainName}`);
  }
  if (changed.length === 0) return undefined;
  const domain = recorded.domainName === undefined ? "" : ` of domain ${recorded.domainName}`;
  return (
    `the credentials now name ${changed.join(", ")}; this cluster's cloud resources live in project ${recorded.projectName} (${recorded.projectId})${domain} in region ${recorded.region}: ` +
    "restore credentials of that project (rotating them within it is fine), or create a new KubernetesCluster for the other account"
  );
}
