/**
 * OTC credentials as tenants store them in a Secret, in either of two forms:
 *
 * - password, as `key=value` lines (`#` comments and blank lines allowed):
 *   `auth_url`, `user_name`, `password`, `domain_name`, `tenant_name`, and
 *   optionally `region`, `project_name`, `domain_id`;
 * - access key, as a JSON object of strings: `access_key`, `secret_key`,
 *   `auth_url`, `region`, and optionally `tenant_name`, `project_name`,
 *   `project_id`, `domain_name`.
 *
 * Either form may hold either kind (the Crossplane provider's own Secret is
 * JSON with password keys); the keys decide. Problems name keys and line
 * numbers, never values: a problem becomes a tenant-visible condition, and
 * a misplaced line may hold the password.
 */
import { createHash } from "node:crypto";
import { LineCounter, parseDocument, isMap, isScalar } from "yaml";

export interface PasswordCredentials {
  mode: "password";
  authUrl: string;
  userName: string;
  password: string;
  domainName: string;
  domainId?: string;
  /** The IAM project the token is scoped to (`tenant_name`), e.g. `eu-de` or `eu-de_team`. */
  projectName: string;
  region: string;
}

export interface AccessKeyCredentials {
  mode: "accessKey";
  authUrl: string;
  accessKey: string;
  secretKey: string;
  region: string;
  projectName: string;
  projectId?: string;
  domainName?: string;
}

export type OtcCredentials = PasswordCredentials | AccessKeyCredentials;

export type CredentialsParseResult = { ok: true; credentials: OtcCredentials } | { ok: false; problems: string[] };

const PASSWORD_KEYS = ["user_name", "password", "domain_name"] as const;
const ACCESS_KEY_KEYS = ["access_key", "secret_key"] as const;
const KNOWN_KEYS: ReadonlySet<string> = new Set([
  "auth_url",
  ...PASSWORD_KEYS,
  "domain_id",
  ...ACCESS_KEY_KEYS,
  "tenant_name",
  "project_name",
  "project_id",
  "region",
]);
const KNOWN_KEY_LIST = [...KNOWN_KEYS].join(", ");

/** `eu-de`, `eu-ch2`: the region names OTC uses. */
const REGION = /^[a-z]+(?:-[a-z0-9]+)+$/;
/** A project is named after its region (`eu-de`) or `<region>_<suffix>` (`eu-de_team`). */
const PROJECT_REGION = /^([a-z]+(?:-[a-z0-9]+)+)(?:_.*)?$/;

interface Entry {
  value: string;
  line: number;
}

/**
 * The largest credentials file read, in bytes. Either form is a few hundred
 * bytes; the bound keeps a tenant's oversized Secret (a Secret may hold
 * 1 MiB) from costing the controller that serves every tenant more than a
 * look at its length.
 */
export const MAX_CREDENTIALS_BYTES = 8 * 1024;
/** The most lines a credentials file may have: each form has at most a dozen keys, plus comments. */
export const MAX_CREDENTIALS_LINES = 100;

/**
 * The text of a Secret's base64 `data` value when it may be read as
 * credentials, or why not. Checked before decoding (base64 length bounds
 * the size) and before the text is held or parsed; messages give sizes and
 * counts, never content.
 */
export function credentialsText(base64: string): { ok: true; text: string } | { ok: false; problem: string } {
  // Four base64 characters carry three bytes: no need to decode to know a value is too large.
  if (Math.floor((base64.length * 3) / 4) - padding(base64) > MAX_CREDENTIALS_BYTES) {
    return { ok: false, problem: `the credentials are larger than ${MAX_CREDENTIALS_BYTES} bytes; a credentials file is a few hundred` };
  }
  const bytes = Buffer.from(base64, "base64");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, problem: "the credentials are not UTF-8 text" };
  }
  // Control characters other than tab and line ends: binary content, or a file that was not meant.
  // eslint-disable-next-line no-control-regex -- finding them is the point
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.test(text)) return { ok: false, problem: "the credentials contain control characters; store the credentials file as text" };
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  if (lines > MAX_CREDENTIALS_LINES) return { ok: false, problem: `the credentials have more than ${MAX_CREDENTIALS_LINES} lines` };
  return { ok: true, text };
}

function padding(base64: string): number {
  return base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
}

/** Parses the credentials text of a Secret; see the module comment for the accepted forms. */
export function parseOtcCredentials(text: string): CredentialsParseResult {
  const source = text.replace(/^\uFEFF/, "");
  if (source.trim() === "") return { ok: false, problems: ["the credentials are empty"] };
  const { entries, problems } = source.trimStart().startsWith("{") ? jsonEntries(source) : keyValueEntries(source);
  // A document that could not be read at all gets no "missing …" on top.
  const credentials = entries.size > 0 || problems.length === 0 ? interpret(entries, problems) : undefined;
  return credentials === undefined || problems.length > 0 ? { ok: false, problems } : { ok: true, credentials };
}

function keyValueEntries(text: string): { entries: Map<string, Entry>; problems: string[] } {
  const entries = new Map<string, Entry>();
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    const equals = trimmed.indexOf("=");
    if (equals === -1) {
      problems.push(`line ${line}: expected key=value`);
      return;
    }
    add(entries, problems, trimmed.slice(0, equals).trim(), trimmed.slice(equals + 1).trim(), line);
  });
  return { entries, problems };
}

function jsonEntries(text: string): { entries: Map<string, Entry>; problems: string[] } {
  const entries = new Map<string, Entry>();
  const problems: string[] = [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The parser's message quotes the text around the error.
    return { entries, problems: ["the credentials start with { but are not valid JSON"] };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { entries, problems: ["the credentials must be a JSON object of strings"] };
  }
  // JSON is YAML: the YAML parser keeps every key, duplicates included, with its position.
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: false });
  if (!isMap(document.contents)) return { entries, problems: ["the credentials must be a JSON object of strings"] };
  for (const pair of document.contents.items) {
    const key = isScalar(pair.key) ? pair.key : undefined;
    const line = key?.range === undefined || key.range === null ? 0 : lineCounter.linePos(key.range[0]).line;
    const name = typeof key?.value === "string" ? key.value : "";
    const value = isScalar(pair.value) && typeof pair.value.value === "string" ? pair.value.value : undefined;
    if (value === undefined && KNOWN_KEYS.has(name)) {
      problems.push(`line ${line}: ${name} must be a string`);
      // Present, so that it is not reported missing as well.
      if (!entries.has(name)) entries.set(name, { value: "", line });
      continue;
    }
    add(entries, problems, name, (value ?? "").trim(), line);
  }
  return { entries, problems };
}

function add(entries: Map<string, Entry>, problems: string[], key: string, value: string, line: number): void {
  // An unknown key is not echoed: a line like `hunter2=` would give the password away.
  if (!KNOWN_KEYS.has(key)) {
    problems.push(`line ${line}: unknown key; expected one of ${KNOWN_KEY_LIST}`);
    return;
  }
  const first = entries.get(key);
  if (first !== undefined) {
    problems.push(`line ${line}: duplicate key ${key} (first on line ${first.line})`);
    return;
  }
  if (value === "") problems.push(`line ${line}: ${key} is empty`);
  entries.set(key, { value, line });
}

function interpret(entries: Map<string, Entry>, problems: string[]): OtcCredentials | undefined {
  // Empty values are reported where they are read; here they count as not given.
  const get = (key: string): string | undefined => entries.get(key)?.value || undefined;
  const at = (key: string): string => `${key} (line ${entries.get(key)?.line ?? 0})`;
  const accessKeyGiven = ACCESS_KEY_KEYS.some((key) => entries.has(key));
  const passwordGiven = ["user_name", "password"].some((key) => entries.has(key));
  if (accessKeyGiven && passwordGiven) {
    problems.push("both access key (access_key, secret_key) and password (user_name, password) credentials are given; keep one");
    return undefined;
  }
  const required = ["auth_url", ...(accessKeyGiven ? ACCESS_KEY_KEYS : PASSWORD_KEYS)];
  for (const key of required) if (!entries.has(key)) problems.push(`missing ${key}`);

  const authUrl = get("auth_url");
  if (authUrl !== undefined && !isHttpUrl(authUrl)) problems.push(`${at("auth_url")} is not an http(s) URL without user info, e.g. https://iam.eu-de.otc.t-systems.com/v3`);

  const tenantName = get("tenant_name");
  const projectNameKey = get("project_name");
  if (tenantName !== undefined && projectNameKey !== undefined && tenantName !== projectNameKey) {
    problems.push(`${at("tenant_name")} and ${at("project_name")} name different projects; keep one`);
  }
  const project = tenantName ?? projectNameKey;
  const projectKey = tenantName !== undefined ? "tenant_name" : "project_name";
  const projectRegion = project === undefined ? undefined : PROJECT_REGION.exec(project)?.[1];
  const regionValue = get("region");
  if (regionValue !== undefined && !REGION.test(regionValue)) problems.push(`${at("region")} is not a region name such as eu-de`);
  if (regionValue !== undefined && projectRegion !== undefined && regionValue !== projectRegion) {
    problems.push(`${at("region")} is not the region of ${at(projectKey)}`);
  }
  const region = regionValue ?? projectRegion;
  if (region === undefined) problems.push("cannot tell the region: set region, or tenant_name to a project such as eu-de or eu-de_myproject");
  if (problems.length > 0 || region === undefined || authUrl === undefined) return undefined;

  const projectName = project ?? region;
  const optional = (key: string, field: string): Record<string, string> => {
    const value = get(key);
    return value === undefined ? {} : { [field]: value };
  };
  if (accessKeyGiven) {
    return {
      mode: "accessKey",
      authUrl,
      accessKey: get("access_key") ?? "",
      secretKey: get("secret_key") ?? "",
      region,
      projectName,
      ...optional("project_id", "projectId"),
      ...optional("domain_name", "domainName"),
    };
  }
  return {
    mode: "password",
    authUrl,
    userName: get("user_name") ?? "",
    password: get("password") ?? "",
    domainName: get("domain_name") ?? "",
    ...optional("domain_id", "domainId"),
    projectName,
    region,
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.username === "" && url.password === "";
  } catch {
    return false;
  }
}

/**
 * SHA-256 (hex) of a canonical form of the credentials: equal for equal
 * credentials however the Secret was written. A cache key (e.g. of an
 * authenticated client or a validation result), never the credentials.
 */
export function credentialFingerprint(credentials: OtcCredentials): string {
  const canonical = Object.entries(credentials)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex");
}

/**
 * The Secret value the Crossplane OTC provider reads: a JSON object of
 * strings with the Terraform provider's key names.
 */
export function crossplaneCredentials(credentials: OtcCredentials): Record<string, string> {
  if (credentials.mode === "password") {
    return {
      auth_url: credentials.authUrl,
      user_name: credentials.userName,
      password: credentials.password,
      domain_name: credentials.domainName,
      ...(credentials.domainId === undefined ? {} : { domain_id: credentials.domainId }),
      tenant_name: credentials.projectName,
      region: credentials.region,
    };
  }
  return {
    access_key: credentials.accessKey,
    secret_key: credentials.secretKey,
    auth_url: credentials.authUrl,
    region: credentials.region,
    tenant_name: credentials.projectName,
    ...(credentials.projectId === undefined ? {} : { tenant_id: credentials.projectId }),
    ...(credentials.domainName === undefined ? {} : { domain_name: credentials.domainName }),
  };
}
