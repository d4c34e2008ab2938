/**
 * What the console reads from a browser's request, bounded and checked
 * before anything acts on it: the sign-in body, the session cookie, the
 * sign-in form's fields.
 */
import type { IncomingMessage } from "node:http";

/** A sign-in form is a token (kcp's are under 2 KiB; a JWT a few) and a workspace path. */
export const MAX_SIGN_IN_BYTES = 16 * 1024;
export const SESSION_COOKIE = "console_session";

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body larger than ${limit} bytes`);
  }
}

/**
 * The request's body as text, at most `limit` bytes: a larger declared
 * Content-Length is refused before reading, a body that grows past it is cut
 * off (the socket is not read further).
 */
export async function readBody(request: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(request.headers["content-length"] ?? "0");
  if (declared > limit) throw new BodyTooLargeError(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      request.destroy();
      throw new BodyTooLargeError(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The value of cookie `name` in a Cookie header; undefined when absent. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const index = part.indexOf("=");
    if (index === -1) continue;
    if (part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}

/** The Set-Cookie value of a session: not readable by scripts, never sent cross-site, gone when the browser closes. */
export function sessionCookie(id: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? "; Secure" : ""}`;
}

export type SignInInput = { readonly ok: true; readonly token: string; readonly workspace?: string } | { readonly ok: false; readonly problem: string };

/** kcp workspace paths: `root` and `:`-separated DNS labels below it. */
const WORKSPACE_PATH = /^root(:[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/;
const MAX_WORKSPACE_PATH = 255;
/** A bearer token is one header value: printable ASCII without spaces. */
const TOKEN = /^[\x21-\x7e]+$/;

/** The sign-in form (application/x-www-form-urlencoded): `token`, and `workspace` for a tenant. */
export function parseSignIn(body: string): SignInInput {
  const form = new URLSearchParams(body);
  const token = (form.get("token") ?? "").trim();
  const workspace = (form.get("workspace") ?? "").trim();
  if (token === "") return { ok: false, problem: "enter a kcp token" };
  if (!TOKEN.test(token)) return { ok: false, problem: "a kcp token is printable characters without spaces" };
  if (workspace === "") return { ok: true, token };
  if (workspace.length > MAX_WORKSPACE_PATH || !WORKSPACE_PATH.test(workspace)) return { ok: false, problem: "a workspace is a kcp path such as root:my-team" };
  return { ok: true, token, workspace };
}
