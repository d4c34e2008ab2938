/**
 * What kind of request a kcp URL is, by its shape alone: the verb (as
 * Kubernetes authorization names it), the view (a workspace or the export's
 * virtual workspace), one cluster or all, and the resource. The simulator
 * counts its requests this way, and a recording proxy in front of real kcp
 * can count the same way, so the two can be compared.
 */

export interface RequestKind {
  readonly verb: string;
  readonly view: "workspace" | "virtual-workspace";
  readonly scope: "*" | "cluster";
  /** `group/version/plural[/subresource]`, the group empty for the core API. */
  readonly resource: string;
  /** Patches only: the media type. */
  readonly patchType?: string;
}

export interface ParsedPath {
  readonly view: RequestKind["view"];
  /** `<export path>/<export name>` for the virtual workspace. */
  readonly exportId?: string;
  readonly cluster: string;
  readonly group: string;
  readonly version: string;
  readonly namespace?: string;
  readonly plural: string;
  readonly name?: string;
  readonly subresource?: string;
}

/** The parts of a kcp resource path; undefined for anything else (discovery, /version, ...). */
export function parsePath(path: string): ParsedPath | undefined {
  const vw = /^\/services\/apiexport\/([^/]+\/[^/]+)\/clusters\/([^/]+)(\/.*)$/.exec(path);
  const ws = vw === null ? /^\/clusters\/([^/]+)(\/.*)$/.exec(path) : null;
  const cluster = vw?.[2] ?? ws?.[1];
  const rest = vw?.[3] ?? ws?.[2];
  if (cluster === undefined || rest === undefined) return undefined;
  const api = /^\/api\/(v1)\/(.*)$/.exec(rest) ?? /^\/apis\/([^/]+\/[^/]+)\/(.*)$/.exec(rest);
  if (api === null) return undefined;
  const groupVersion = api[1] ?? "";
  const slash = groupVersion.indexOf("/");
  const parts = (api[2] ?? "").split("/").filter((p) => p !== "");
  let namespace: string | undefined;
  // `namespaces/<ns>/<plural>...`; `namespaces/<ns>` alone is the Namespace itself.
  if (parts[0] === "namespaces" && parts.length >= 3) {
    namespace = parts[1];
    parts.splice(0, 2);
  }
  const [plural = "", name, subresource, ...extra] = parts;
  if (plural === "" || extra.length > 0) return undefined;
  return {
    view: vw !== null ? "virtual-workspace" : "workspace",
    ...(vw?.[1] === undefined ? {} : { exportId: vw[1] }),
    cluster,
    group: slash === -1 ? "" : groupVersion.slice(0, slash),
    version: slash === -1 ? groupVersion : groupVersion.slice(slash + 1),
    ...(namespace === undefined ? {} : { namespace }),
    plural,
    ...(name === undefined ? {} : { name }),
    ...(subresource === undefined ? {} : { subresource }),
  };
}

/** The verb of a request on `parsed`, as Kubernetes authorization names it. */
export function verbOf(method: string, parsed: Pick<ParsedPath, "name">, query: URLSearchParams): string {
  switch (method) {
    case "GET":
      if (parsed.name !== undefined) return "get";
      return query.get("watch") === "true" || query.get("watch") === "1" ? "watch" : "list";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return parsed.name === undefined ? "deletecollection" : "delete";
    default:
      return method.toLowerCase();
  }
}

/** The kind of a request to `url` (path and query); undefined when it is not a resource request. */
export function classifyRequest(method: string, url: string, contentType: string | undefined): RequestKind | undefined {
  const parsed = new URL(url, "http://kcp");
  const path = parsePath(parsed.pathname);
  if (path === undefined) return undefined;
  const verb = verbOf(method, path, parsed.searchParams);
  return {
    verb,
    view: path.view,
    scope: path.cluster === "*" ? "*" : "cluster",
    resource: `${path.group}/${path.version}/${path.plural}${path.subresource === undefined ? "" : `/${path.subresource}`}`,
    ...(verb === "patch" ? { patchType: (contentType ?? "").split(";")[0]?.trim() ?? "" } : {}),
  };
}

/** One line per kind: `verb view scope resource[ patchType]`. */
export function describeKind(kind: RequestKind): string {
  return `${kind.verb} ${kind.view} ${kind.scope} ${kind.resource}${kind.patchType === undefined ? "" : ` ${kind.patchType}`}`;
}
