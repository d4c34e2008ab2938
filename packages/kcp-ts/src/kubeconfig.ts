/**
 * A kubeconfig loader of our own: importing @kubernetes/client-node costs
 * every controller about half a second of boot, and RestClient needs only a
 * server URL, TLS material and an Authorization header from it.
 *
 * Supported for the current context: the cluster's `server`,
 * `certificate-authority` (file) / `-data`, `insecure-skip-tls-verify` and
 * `tls-server-name`; the user's `token`, `tokenFile`, `client-certificate` /
 * `client-key` (files) and their `-data`, `username` / `password`, and `as`
 * (impersonation). In-cluster: the pod's service account. A user with an
 * `exec` or `auth-provider` plugin is handed to client-node's KubeConfig,
 * imported on first use: only such kubeconfigs (a human's oidc login) pay for
 * it.
 *
 * Files are read when the kubeconfig is loaded, but token files on every
 * request: projected service-account tokens rotate.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { OutgoingHttpHeaders } from "node:http";
import type { RequestOptions } from "node:https";
import { isIPv6 } from "node:net";
import { dirname, resolve } from "node:path";
import { parse } from "yaml";

/** What RestClient needs of a kubeconfig; client-node's KubeConfig has it too. */
export interface KubeconfigSource {
  getCurrentCluster(): { readonly server: string } | null;
  /** Every user, for the redaction of their secrets. */
  getUsers(): readonly KubeconfigUser[];
  /** Sets the TLS options and the Authorization header of a request to the current cluster. */
  applyToHTTPSOptions(options: RequestOptions): Promise<void>;
}

/** The secret-bearing fields of a kubeconfig user, as client-node's `User` names them. */
export interface KubeconfigUser {
  readonly name: string;
  readonly token?: string | undefined;
  readonly password?: string | undefined;
  /** The client key, base64 (a key file's contents too, for the current user). */
  readonly keyData?: string | undefined;
  readonly authProvider?: unknown;
}

/** What of client-node is used for users with plugins; a test injects a fake. */
export type ClientNodeImporter = () => Promise<{ KubeConfig: new () => PluginKubeconfig }>;
type PluginKubeconfig = Pick<KubeConfig, "loadFromString" | "loadFromFile" | "applyToHTTPSOptions">;

export interface KubeconfigOptions {
  /** Default: `import("@kubernetes/client-node")`. */
  readonly importClientNode?: ClientNodeImporter;
  /**
   * The kubeconfig is data someone else wrote (a Secret's): it may carry
   * tokens, passwords, client certificates and CA data, but what would run a
   * program (`exec`, `auth-provider`) or read this machine's files
   * (`certificate-authority`, `client-certificate`, `client-key`,
   * `tokenFile`) is refused, naming the field. Default false: the
   * process's own kubeconfig may use them.
   */
  readonly dataOnly?: boolean;
}

/** What a data-only kubeconfig may not hold: fields that run a program or name a local file. */
const NOT_DATA = {
  cluster: ["certificate-authority"],
  user: ["exec", "auth-provider", "client-certificate", "client-key", "tokenFile", "token-file"],
} as const;

export interface InClusterOptions {
  /** Default: process.env (KUBERNETES_SERVICE_HOST / _PORT). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Default: SERVICE_ACCOUNT_DIR. */
  readonly serviceAccountDir?: string;
}

export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

interface Cluster {
  readonly server: string;
  readonly ca?: Buffer;
  readonly skipTLSVerify: boolean;
  readonly tlsServerName?: string;
}

interface Credentials {
  readonly token?: string;
  readonly tokenFile?: string;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly username?: string;
  readonly password?: string;
  readonly impersonate?: string;
}

type Fields = Readonly<Record<string, unknown>>;

export class Kubeconfig implements KubeconfigSource {
  private plugin: Promise<PluginKubeconfig> | undefined;

  private constructor(
    private readonly cluster: Cluster,
    private readonly credentials: Credentials,
    private readonly users: readonly KubeconfigUser[],
    /** Loads client-node's KubeConfig from the same source; set when the current user has a plugin. */
    private readonly loadPlugin?: () => Promise<PluginKubeconfig>,
  ) {}

  /** Relative file paths in it resolve against the file's directory. */
  static fromFile(path: string, options: KubeconfigOptions = {}): Kubeconfig {
    const text = readFileSync(path, "utf8");
    return Kubeconfig.parse(text, dirname(path), options, (kubeConfig) => kubeConfig.loadFromFile(path));
  }

  /** Relative file paths in it resolve against the working directory. */
  static fromText(text: string, options: KubeconfigOptions = {}): Kubeconfig {
    return Kubeconfig.parse(text, ".", options, (kubeConfig) => kubeConfig.loadFromString(text));
  }

  /** The pod's service account, as client-go's rest.InClusterConfig finds it. */
  static fromCluster(options: InClusterOptions = {}): Kubeconfig {
    const { env = process.env, serviceAccountDir = SERVICE_ACCOUNT_DIR } = options;
    const host = env["KUBERNETES_SERVICE_HOST"];
    const port = env["KUBERNETES_SERVICE_PORT"];
    if (!host || !port) throw new Error("not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
    const server = `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
    const cluster = { server, ca: readFileSync(resolve(serviceAccountDir, "ca.crt")), skipTLSVerify: false };
    return new Kubeconfig(cluster, { tokenFile: resolve(serviceAccountDir, "token") }, [{ name: "in-cluster" }]);
  }

  private static parse(text: string, directory: string, options: KubeconfigOptions, load: (kubeConfig: PluginKubeconfig) => void): Kubeconfig {
    const config = parseYaml(text);
    const contextName = stringField(config, "current-context");
    if (contextName === undefined) throw new Error("kubeconfig has no current-context");
    const context = namedEntry(config, "contexts", "context", contextName);
    if (context === undefined) throw new Error(`kubeconfig has no context "${contextName}" (its current-context)`);
    const clusterName = stringField(context, "cluster") ?? "";
    const cluster = namedEntry(config, "clusters", "cluster", clusterName);
    if (cluster === undefined) throw new Error(`kubeconfig has no cluster "${clusterName}" (of context "${contextName}")`);
    const userName = stringField(context, "user");
    // A context without a user is anonymous, as in client-go.
    const user = userName === undefined ? {} : namedEntry(config, "users", "user", userName);
    if (user === undefined) throw new Error(`kubeconfig has no user "${userName}" (of context "${contextName}")`);
    if (options.dataOnly === true) {
      const refused = [...NOT_DATA.cluster.filter((field) => cluster[field] !== undefined), ...NOT_DATA.user.filter((field) => user[field] !== undefined)];
      if (refused.length > 0) throw new Error(`kubeconfig uses ${refused.map((field) => `"${field}"`).join(", ")}, which a kubeconfig read as data may not: only tokens, passwords, client certificates and CA data (the -data fields)`);
    }
    const credentials = readCredentials(user, directory);
    const users = allUsers(config).map((entry) =>
      entry.name === userName && credentials.key !== undefined ? { ...entry, keyData: credentials.key.toString("base64") } : entry,
    );
    const hasPlugin = isFields(user["exec"]) || isFields(user["auth-provider"]);
    const { importClientNode = defaultImporter } = options;
    const loadPlugin = async (): Promise<PluginKubeconfig> => {
      const { KubeConfig } = await importClientNode();
      const kubeConfig = new KubeConfig();
      load(kubeConfig);
      return kubeConfig;
    };
    return new Kubeconfig(readCluster(cluster, directory), credentials, users, hasPlugin ? loadPlugin : undefined);
  }

  /**
   * The same cluster (server, CA, TLS settings) with `token` as the only
   * credential, whatever the current user had: a web console acting for a
   * signed-in user trusts kcp as the console does, and presents the user's
   * token, never its own.
   */
  withBearerToken(token: string): Kubeconfig {
    if (token === "" || /\s/.test(token)) throw new Error("a bearer token must be non-empty and contain no whitespace");
    return new Kubeconfig(this.cluster, { token }, [{ name: "bearer-token", token }]);
  }

  getCurrentCluster(): { readonly server: string } {
    return { server: this.cluster.server };
  }

  getUsers(): readonly KubeconfigUser[] {
    return this.users;
  }

  async applyToHTTPSOptions(options: RequestOptions): Promise<void> {
    if (this.loadPlugin !== undefined) {
      this.plugin ??= this.loadPlugin();
      return (await this.plugin).applyToHTTPSOptions(options);
    }
    const { cluster, credentials } = this;
    if (cluster.ca !== undefined) options.ca = cluster.ca;
    if (cluster.skipTLSVerify) options.rejectUnauthorized = false;
    if (cluster.tlsServerName !== undefined) options.servername = cluster.tlsServerName;
    if (credentials.cert !== undefined) options.cert = credentials.cert;
    if (credentials.key !== undefined) options.key = credentials.key;
    const authorization = await authorizationOf(credentials);
    options.headers = {
      ...headersOf(options),
      ...(authorization === undefined ? {} : { Authorization: authorization }),
      ...(credentials.impersonate === undefined ? {} : { "Impersonate-User": credentials.impersonate }),
    };
  }
}

const defaultImporter: ClientNodeImporter = () => import("@kubernetes/client-node");

/** A token file's value wins over a token, as in client-go; it is re-read per request since it rotates. */
async function authorizationOf(credentials: Credentials): Promise<string | undefined> {
  if (credentials.tokenFile !== undefined) return `Bearer ${(await readFile(credentials.tokenFile, "utf8")).trim()}`;
  if (credentials.token !== undefined) return `Bearer ${credentials.token}`;
  if (credentials.username === undefined) return undefined;
  return `Basic ${Buffer.from(`${credentials.username}:${credentials.password ?? ""}`).toString("base64")}`;
}

function headersOf(options: RequestOptions): OutgoingHttpHeaders {
  const { headers } = options;
  if (headers === undefined) return {};
  if (Array.isArray(headers)) throw new TypeError("kubeconfig credentials need the request's headers as an object");
  return headers as OutgoingHttpHeaders;
}

/**
 * The failsafe schema keeps every scalar a string: a token or password such
 * as `0123` must not turn into a number. Parse errors name only the position,
 * since yaml's own messages quote the text, and with it maybe a secret.
 */
function parseYaml(text: string): Fields {
  let config: unknown;
  try {
    config = parse(text, { schema: "failsafe" });
  } catch (err) {
    const position = (err as { linePos?: readonly { line: number; col: number }[] }).linePos?.[0];
    // eslint-disable-next-line preserve-caught-error -- the cause's message quotes the text.
    throw new Error(`kubeconfig is not valid YAML${position === undefined ? "" : ` (line ${position.line}, column ${position.col})`}`);
  }
  if (!isFields(config)) throw new Error("kubeconfig is not a YAML mapping");
  return config;
}

function readCluster(cluster: Fields, directory: string): Cluster {
  const server = stringField(cluster, "server");
  if (server === undefined) throw new Error("kubeconfig's current cluster has no server");
  return {
    server,
    ca: fileOrData(cluster, "certificate-authority", directory),
    skipTLSVerify: stringField(cluster, "insecure-skip-tls-verify") === "true",
    tlsServerName: stringField(cluster, "tls-server-name"),
  };
}

function readCredentials(user: Fields, directory: string): Credentials {
  // client-go names it tokenFile, client-node token-file.
  const tokenFile = stringField(user, "tokenFile") ?? stringField(user, "token-file");
  return {
    token: stringField(user, "token"),
    tokenFile: tokenFile === undefined ? undefined : resolve(directory, tokenFile),
    cert: fileOrData(user, "client-certificate", directory),
    key: fileOrData(user, "client-key", directory),
    username: stringField(user, "username"),
    password: stringField(user, "password"),
    impersonate: stringField(user, "as"),
  };
}

/** `<field>-data` (base64) wins over the file `<field>`, as in client-go. */
function fileOrData(fields: Fields, field: string, directory: string): Buffer | undefined {
  const data = stringField(fields, `${field}-data`);
  if (data !== undefined) return Buffer.from(data, "base64");
  const file = stringField(fields, field);
  return file === undefined ? undefined : readFileSync(resolve(directory, file));
}

function allUsers(config: Fields): KubeconfigUser[] {
  return entries(config, "users").map((entry) => {
    const user = isFields(entry["user"]) ? entry["user"] : {};
    return {
      name: stringField(entry, "name") ?? "",
      token: stringField(user, "token"),
      password: stringField(user, "password"),
      keyData: stringField(user, "client-key-data"),
      authProvider: user["auth-provider"],
    };
  });
}

/** The `<key>` mapping of the entry named `name` in the list `<list>`. */
function namedEntry(config: Fields, list: string, key: string, name: string): Fields | undefined {
  const entry = entries(config, list).find((candidate) => stringField(candidate, "name") === name);
  if (entry === undefined) return undefined;
  return isFields(entry[key]) ? entry[key] : {};
}

function entries(config: Fields, list: string): Fields[] {
  const value = config[list];
  return Array.isArray(value) ? value.filter(isFields) : [];
}

function stringField(fields: Fields, key: string): string | undefined {
  const value = fields[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

function isFields(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
