/**
 * The console's HTTP server (node:http, no framework: a sign-in form, a
 * static page with its script, three JSON/SSE endpoints).
 *
 * - Without a live session: the sign-in page and its stylesheet only; any
 *   other page redirects there, any API or stream answers 401 with no data.
 * - Sign-in checks the token with kcp (UserSession.signIn) and keeps it in
 *   this process's memory only; the browser gets a random session id in an
 *   HttpOnly, SameSite=Strict cookie. Posts must come from this origin.
 * - Live updates: `/api/stream` is Server-Sent Events; every `pollMs` the
 *   server builds the user's view anew (asking kcp with their token) and
 *   pushes it when it changed.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { scrubText } from "@edgeconnect/redaction";
import { BodyTooLargeError, clearedSessionCookie, cookieValue, MAX_SIGN_IN_BYTES, parseSignIn, readBody, SESSION_COOKIE, sessionCookie } from "./http-input.js";
import { signInPage } from "./pages.js";
import type { SessionStore } from "./sessions.js";
import { describeFailure, UserSession, type ConsoleKcp } from "./user-session.js";
import { clusterDetail, liveView, overview, type ClusterRef, type ViewSources } from "./views.js";

export interface ConsoleServerOptions {
  readonly kcp: ConsoleKcp;
  readonly sources: ViewSources;
  readonly sessions: SessionStore<UserSession>;
  readonly secureCookie: boolean;
  /** How often an open page's view is rebuilt. Default 2 s. */
  readonly pollMs?: number;
  /** Live streams at once, over all sessions; each costs a view build per poll. Default 64. */
  readonly maxStreams?: number;
  readonly maxStreamsPerSession?: number;
  readonly log?: (line: Record<string, unknown>) => void;
}

const STATIC_DIR = new URL("../static/", import.meta.url);
const SCRIPT = new URL("../dist/web/app.js", import.meta.url);

const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  // same-origin, not no-referrer: under no-referrer browsers send `Origin: null` with form posts, which the origin check refuses.
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
};

export function createConsoleServer(options: ConsoleServerOptions): Server {
  const assets = {
    index: readFileSync(new URL("index.html", STATIC_DIR)),
    style: readFileSync(new URL("style.css", STATIC_DIR)),
    script: readFileSync(SCRIPT),
  };
  const streams = new Map<string, number>();
  let streamCount = 0;
  const log = options.log ?? ((line) => process.stderr.write(`${scrubText(JSON.stringify({ time: new Date().toISOString(), ...line }))}\n`));

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? "/", "http://console.invalid");
    const method = request.method ?? "GET";
    const sessionId = cookieValue(request.headers.cookie, SESSION_COOKIE);

    if (url.pathname === "/healthz") return send(response, 200, "text/plain", "ok\n");
    if (url.pathname === "/style.css" && method === "GET") return send(response, 200, "text/css", assets.style);
    if (url.pathname === "/signin" && method === "GET") return send(response, 200, "text/html; charset=utf-8", signInPage());
    if (url.pathname === "/signin" && method === "POST") return signIn(request, response);

    const session = options.sessions.use(sessionId);
    if (session === undefined || sessionId === undefined) {
      if (url.pathname.startsWith("/api/")) return sendJson(response, 401, { error: "sign in first" });
      return redirect(response, "/signin");
    }
    if (url.pathname === "/signout" && method === "POST") {
      if (!sameOrigin(request)) return sendJson(response, 403, { error: "cross-origin request refused" });
      options.sessions.end(sessionId);
      response.setHeader("set-cookie", clearedSessionCookie(options.secureCookie));
      return redirect(response, "/signin");
    }
    if (method !== "GET") return sendJson(response, 405, { error: "the console is read-only" });
    switch (url.pathname) {
      case "/":
        return send(response, 200, "text/html; charset=utf-8", assets.index);
      case "/app.js":
        return send(response, 200, "text/javascript; charset=utf-8", assets.script);
      case "/api/overview":
        return sendJson(response, 200, await overview(session, options.sources));
      case "/api/cluster": {
        const ref = clusterRef(url);
        if (ref === undefined) return sendJson(response, 400, { error: "tenant, namespace and name are required" });
        const detail = await clusterDetail(session, options.sources, ref).catch((err: unknown) => describeFailure(err));
        if (typeof detail === "string") return sendJson(response, 502, { error: detail });
        return detail === undefined ? sendJson(response, 404, { error: "no such cluster is visible to you" }) : sendJson(response, 200, detail);
      }
      case "/api/stream":
        return stream(response, sessionId, session, clusterRef(url));
      default:
        return sendJson(response, 404, { error: "not found" });
    }
  };

  const signIn = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (!sameOrigin(request)) return send(response, 403, "text/html; charset=utf-8", signInPage("the sign-in must come from this page"));
    let body: string;
    try {
      body = await readBody(request, MAX_SIGN_IN_BYTES);
    } catch (err) {
      if (err instanceof BodyTooLargeError) return send(response, 413, "text/html; charset=utf-8", signInPage("the sign-in form is too large"));
      throw err;
    }
    const input = parseSignIn(body);
    if (!input.ok) return send(response, 400, "text/html; charset=utf-8", signInPage(input.problem));
    const result = await UserSession.signIn(options.kcp, input.token, input.workspace);
    if ("refused" in result) {
      log({ level: "info", msg: "sign-in refused", reason: result.refused, ...(input.workspace === undefined ? {} : { workspace: input.workspace }) });
      return send(response, result.status, "text/html; charset=utf-8", signInPage(result.refused));
    }
    const id = options.sessions.create(result.session);
    if (id === undefined) {
      log({ level: "warn", msg: "sign-in refused: too many sessions" });
      return send(response, 503, "text/html; charset=utf-8", signInPage("too many people are signed in; try again later"));
    }
    log({ level: "info", msg: "signed in", user: result.session.viewer.user, view: result.session.viewer.kind });
    response.setHeader("set-cookie", sessionCookie(id, options.secureCookie));
    return redirect(response, "/");
  };

  const stream = (response: ServerResponse, sessionId: string, session: UserSession, ref: ClusterRef | undefined): void => {
    const mine = streams.get(sessionId) ?? 0;
    if (streamCount >= (options.maxStreams ?? 64) || mine >= (options.maxStreamsPerSession ?? 4)) {
      return sendJson(response, 429, { error: "too many live views open" });
    }
    streams.set(sessionId, mine + 1);
    streamCount += 1;
    response.writeHead(200, { ...SECURITY_HEADERS, "content-type": "text/event-stream; charset=utf-8", connection: "keep-alive" });
    let last = "";
    let sentAt = Date.now();
    let timer: NodeJS.Timeout | undefined;
    let open = true;
    const close = (): void => {
      if (!open) return;
      open = false;
      clearTimeout(timer);
      streamCount -= 1;
      const left = (streams.get(sessionId) ?? 1) - 1;
      if (left === 0) streams.delete(sessionId);
      else streams.set(sessionId, left);
      response.end();
    };
    response.on("close", close);
    const tick = async (): Promise<void> => {
      // An open page keeps its session in use; the session's lifetime still ends it.
      if (options.sessions.use(sessionId) === undefined) {
        response.write("event: signedout\ndata: {}\n\n");
        return close();
      }
      try {
        const json = JSON.stringify(await liveView(session, options.sources, ref));
        if (!open) return;
        if (json !== last) {
          last = json;
          sentAt = Date.now();
          response.write(`event: view\ndata: ${json}\n\n`);
        } else if (Date.now() - sentAt > 15_000) {
          // A comment now and then: proxies drop connections that stay silent.
          sentAt = Date.now();
          response.write(": keep-alive\n\n");
        }
      } catch (err) {
        log({ level: "error", msg: "live view failed", error: describeFailure(err) });
      }
      if (open) timer = setTimeout(() => void tick(), options.pollMs ?? 2_000);
    };
    void tick();
  };

  return createServer((request, response) => {
    handle(request, response).catch((err: unknown) => {
      log({ level: "error", msg: "request failed", path: request.url?.split("?")[0], error: err instanceof Error ? err.message : String(err) });
      if (!response.headersSent) sendJson(response, 500, { error: "internal error" });
      else response.end();
    });
  });
}

function clusterRef(url: URL): ClusterRef | undefined {
  const tenant = url.searchParams.get("tenant") ?? "";
  const namespace = url.searchParams.get("namespace") ?? "";
  const name = url.searchParams.get("name") ?? "";
  // Names and namespaces are DNS labels or subdomains; tenants logical cluster names or workspace paths.
  const dns = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
  if (!/^[a-z0-9:*-]{1,255}$/.test(tenant) || tenant.includes("*") || !dns.test(namespace) || !dns.test(name)) return undefined;
  return { tenant, namespace, name };
}

/** Browsers send Origin on every POST; one that names another site is a cross-site request. */
function sameOrigin(request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

function send(response: ServerResponse, status: number, contentType: string, body: string | Buffer): void {
  response.writeHead(status, { ...SECURITY_HEADERS, "content-type": contentType });
  response.end(body);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  send(response, status, "application/json", JSON.stringify(body));
}

function redirect(response: ServerResponse, location: string): void {
  response.writeHead(303, { ...SECURITY_HEADERS, location });
  response.end();
}
