/**
 * IAM: password tokens (`POST /v3/auth/tokens`, scoped to one project, valid
 * for the configured lifetime on the simulator's clock), project lookup by
 * name (how clients discover their project id), and the project scoping
 * every project-bound request goes through, which keeps a token in its
 * project.
 *
 * Refusals of a password say nothing about which part was wrong, like IAM.
 */
import { createHash, randomBytes } from "node:crypto";
import { ApiError, Fields, json, type ApiRequest, type ApiResponse, type ErrorFormat, type TokenScope } from "./api.js";
import type { PasswordUser, Project, SimulatorState } from "./state.js";

const AUTHENTICATION_REQUIRED = "The request you have made requires authentication.";

/** True for the one path that needs no authentication: getting a token. */
export function isTokenRequest(method: string, segments: readonly string[]): boolean {
  return method === "POST" && segments.length === 3 && segments[0] === "v3" && segments[1] === "auth" && segments[2] === "tokens";
}

/** The scope of a live X-Auth-Token; a 401 from the API gateway for an unknown or expired one. */
export function authenticateToken(state: SimulatorState, token: string): TokenScope {
  const issued = state.liveToken(token);
  if (issued === undefined) throw new ApiError(401, "APIGW.0301", "Incorrect IAM authentication information: the token is unknown or has expired");
  return { projectId: issued.projectId, userId: userId(issued.user) };
}

/** `POST /v3/auth/tokens`, `GET /v3/projects?name=` and `GET /v3/auth/projects`. */
export function routeIam(request: ApiRequest, state: SimulatorState): ApiResponse | undefined {
  const [version, first, second] = request.segments;
  if (isTokenRequest(request.method, request.segments)) return issueToken(request, state);
  if (version !== "v3" || request.method !== "GET") return undefined;
  if (first === "projects" && request.segments.length === 2) {
    const name = request.query.get("name");
    const projects = state.projects.filter((project) => name === null || project.name === name);
    const links = { self: "/v3/projects", previous: null, next: null };
    return json(200, { projects: projects.map((project) => render(project, state)), links });
  }
  if (first === "auth" && second === "projects" && request.segments.length === 3) {
    return json(200, { projects: state.projects.map((project) => render(project, state)), links: { self: "/v3/auth/projects" } });
  }
  return undefined;
}

/** The error codes a service answers a refused project with. */
const SCOPE_CODES: Readonly<Record<ErrorFormat, { readonly missing: string; readonly forbidden: string }>> = {
  otc: { missing: "APIGW.0404", forbidden: "APIGW.0403" },
  ecs: { missing: "Ecs.0001", forbidden: "Ecs.0001" },
  iam: { missing: "IAM.0404", forbidden: "IAM.0403" },
  nova: { missing: "Nova.0404", forbidden: "Nova.0403" },
  cce: { missing: "CCE.01404001", forbidden: "CCE.01403001" },
};

/**
 * The project a request acts in: the path's, which must exist, be the
 * token's project when the request carries a token, and agree with
 * X-Project-Id when that header is sent as well.
 */
export function scopedProject(request: ApiRequest, state: SimulatorState, projectId: string, format: ErrorFormat = "otc"): Project {
  const codes = SCOPE_CODES[format];
  if (request.token !== undefined && request.token.projectId !== projectId) {
    throw new ApiError(403, codes.forbidden, `the token is scoped to another project and cannot act in project ${projectId}`, format);
  }
  const project = state.project(projectId);
  if (project === undefined) throw new ApiError(404, codes.missing, `project ${projectId} does not exist`, format);
  const header = request.headers["x-project-id"];
  if (header !== undefined && header !== projectId) {
    throw new ApiError(403, codes.forbidden, "X-Project-Id does not match the project in the path", format);
  }
  return project;
}

/** IAM's ids are 32 hex digits; the simulator derives them from names so they stay the same across runs. */
export function iamId(...names: readonly string[]): string {
  return createHash("md5").update(names.join("/")).digest("hex");
}

/** Whom an AK/SK-signed request acts as, where an API records the caller (a key pair's `user_id`). */
export const ACCESS_KEY_USER_ID = iamId("access-key-user");

function userId(user: PasswordUser): string {
  return iamId(user.domainName, user.userName);
}

function issueToken(request: ApiRequest, state: SimulatorState): ApiResponse {
  const auth = Fields.wrapped(request.body, "auth", "IAM.0400", "iam");
  const identity = auth.requiredObject("identity");
  if (!(identity.optionalStringList("methods") ?? []).includes("password")) {
    throw identity.invalid("methods", "must include password (only password authentication is simulated)");
  }
  const user = identity.requiredObject("password").requiredObject("user");
  const name = user.string("name");
  const password = user.string("password");
  const domainName = user.requiredObject("domain").string("name");
  const scope = auth.requiredObject("scope").requiredObject("project");
  const projectName = scope.optionalString("name");
  const projectId = scope.optionalString("id");
  if (projectName === undefined && projectId === undefined) throw scope.invalid("name", "or id is required");

  const known = state.settings.users.find(
    (candidate) => candidate.userName === name && candidate.domainName === domainName && candidate.password === password,
  );
  const project = state.projects.find((candidate) => (projectId === undefined ? candidate.name === projectName : candidate.id === projectId));
  if (known === undefined || project === undefined) throw new ApiError(401, "IAM.0401", AUTHENTICATION_REQUIRED, "iam");

  const issuedAt = state.clock();
  const expiresAt = new Date(issuedAt.getTime() + state.settings.tokenTtlMs);
  // Real tokens are long base64 blobs starting with MII; only the length and alphabet matter to clients.
  const token = `MII${randomBytes(96).toString("base64url")}`;
  state.issueToken(token, { projectId: project.id, user: known, issuedAt, expiresAt });
  const domain = { id: iamId(known.domainName), name: known.domainName };
  return {
    status: 201,
    headers: { "x-subject-token": token },
    body: {
      token: {
        expires_at: iamTime(expiresAt),
        issued_at: iamTime(issuedAt),
        methods: ["password"],
        project: { id: project.id, name: project.name, domain },
        user: { id: userId(known), name: known.userName, domain, password_expires_at: "" },
        roles: [{ id: iamId("role", "te_admin"), name: "te_admin" }],
        catalog: [],
      },
    },
  };
}

/** IAM writes microseconds: `2026-03-02T12:00:00.000000Z`. */
function iamTime(date: Date): string {
  return date.toISOString().replace(/Z$/, "000Z");
}

function render(project: Project, state: SimulatorState): unknown {
  return {
    id: project.id,
    name: project.name,
    domain_id: "simulated-domain",
    parent_id: "simulated-domain",
    enabled: true,
    is_domain: false,
    description: `simulated project in ${state.region}`,
    links: { self: `/v3/projects/${project.id}` },
  };
}
