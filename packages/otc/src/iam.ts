/**
 * IAM project discovery and credential checks: OTC projects are named after
 * the region (`eu-de`) or `<region>_<name>`, and requests to project-scoped
 * services need the project's ID. AK/SK credentials resolve it the way
 * Huawei's SDKs do (`GET /v3/projects?name=` must match exactly one
 * project); a password's token names its project itself.
 */
import { OtcConfigError } from "./errors.js";
import { OtcClient, type OtcCallOptions, type OtcClientOptions } from "./otc-client.js";

export interface Project {
  readonly id: string;
  readonly name: string;
  readonly domain_id?: string;
  readonly parent_id?: string;
  readonly enabled?: boolean;
  readonly description?: string;
}

interface ProjectList {
  readonly projects?: readonly Project[];
}

/** The ID of the project named `projectName` (default: the client's region). */
export async function discoverProjectId(client: OtcClient, projectName: string = client.region, options: OtcCallOptions = {}): Promise<string> {
  const answer = await client.request<ProjectList>("iam", "GET", "/v3/projects", { ...options, query: { name: projectName }, projectScoped: false });
  // IAM filters by exact name, but a proxy or simulator that matches loosely must not pick the wrong project.
  const matches = (answer?.projects ?? []).filter((project) => project.name === projectName);
  const [only, ...others] = matches;
  if (only === undefined) {
    throw new OtcConfigError(`no IAM project named "${projectName}" is visible to these credentials`);
  }
  if (others.length > 0) {
    throw new OtcConfigError(`${matches.length} IAM projects are named "${projectName}"; configure the project ID instead`);
  }
  return only.id;
}

/** What `validateCredentials` learnt. */
export interface ValidatedCredentials {
  /** The ID of the project the credentials reach. */
  readonly projectId: string;
}

/**
 * Checks the client's credentials with IAM: AK/SK by discovering the
 * project named `client.projectName`, a password by getting a token (a
 * fresh one the client holds counts). Credentials IAM refuses reject with
 * an `OtcApiError` 401 or 403 (`isCredentialRejection`); an IAM that cannot
 * be reached rejects with status 0 or 5xx, a missing or ambiguous project
 * with an `OtcConfigError`.
 */
export async function validateCredentials(client: OtcClient, options: OtcCallOptions = {}): Promise<ValidatedCredentials> {
  if (client.authMode === "password") return { projectId: await client.authenticate(options) };
  return { projectId: await discoverProjectId(client, client.projectName, options) };
}

/**
 * A client for `options.projectId`, or, when no ID is configured, for the
 * project `validateCredentials` finds: by `projectName` (default the
 * region) for AK/SK, the token's for a password.
 */
export async function connectOtcClient(options: OtcClientOptions, call: OtcCallOptions = {}): Promise<OtcClient> {
  const client = new OtcClient(options);
  if (options.projectId !== undefined && options.projectId !== "") return client;
  try {
    return client.withProjectId((await validateCredentials(client, call)).projectId);
  } finally {
    // The discovery client's pool is not reused: the returned client has its own (and the same token).
    client.close();
  }
}
