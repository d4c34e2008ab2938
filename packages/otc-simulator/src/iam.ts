/**
 * IAM: project lookup by name (how clients discover their project id), and
 * the project scoping every project-bound request goes through.
 */
import { ApiError, json, type ApiRequest, type ApiResponse, type ErrorFormat } from "./api.js";
import type { Project, SimulatorState } from "./state.js";

/** `GET /v3/projects?name=` and `GET /v3/auth/projects`. */
export function routeIam(request: ApiRequest, state: SimulatorState): ApiResponse | undefined {
  const [version, first, second] = request.segments;
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

/**
 * The project a request acts in: the path's, which must exist and agree with
 * X-Project-Id when that header is sent as well.
 */
export function scopedProject(request: ApiRequest, state: SimulatorState, projectId: string, format: ErrorFormat = "otc"): Project {
  const project = state.project(projectId);
  if (project === undefined) {
    throw new ApiError(404, format === "ecs" ? "Ecs.0001" : "APIGW.0404", `project ${projectId} does not exist`, format);
  }
  const header = request.headers["x-project-id"];
  if (header !== undefined && header !== projectId) {
    throw new ApiError(403, format === "ecs" ? "Ecs.0001" : "APIGW.0403", "X-Project-Id does not match the project in the path", format);
  }
  return project;
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
