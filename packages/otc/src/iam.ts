/**
 * IAM project discovery: OTC projects are named after the region (`eu-de`) or
 * `<region>_<name>`, and AK/SK requests to project-scoped services need the
 * project's ID. Resolved the way Huawei's SDKs do it: `GET /v3/projects?name=`
 * must match exactly one project.
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

/**
 * A client for `options.projectId`, or for the project found by name
 * (`projectName`, default the region) when no ID is configured.
 */
export async function connectOtcClient(options: OtcClientOptions & { readonly projectName?: string }, call: OtcCallOptions = {}): Promise<OtcClient> {
  const { projectName, ...clientOptions } = options;
  const client = new OtcClient(clientOptions);
  if (options.projectId !== undefined && options.projectId !== "") return client;
  try {
    return client.withProjectId(await discoverProjectId(client, projectName ?? options.region, call));
  } finally {
    // The discovery client's pool is not reused: the returned client has its own.
    client.close();
  }
}
