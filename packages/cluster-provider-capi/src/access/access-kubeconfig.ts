/**
 * The Secret an AccessRequest's `status.secretRef` points to: a kubeconfig
 * with the token, plus the contract's optional keys. It lives next to the
 * AccessRequest (the reference is local), which is why Cluster API's own
 * `<cluster>-kubeconfig` Secret (key `value`, in the Cluster API namespace,
 * not to be shared) can never be referenced directly.
 *
 * provisioning's kubeconfig rendering reads CCE certificates and writes
 * client-certificate users, so token kubeconfigs are rendered here, in the
 * same shape: one cluster, user and context, all named alike.
 */
import { isDnsSubdomain, shortHash } from "@edgeconnect/provisioning";
import { stringify } from "yaml";
import { SECRET_KEY } from "../openmcp/constants.js";

export interface TokenKubeconfigInput {
  /** The API server, `https://…`. */
  readonly server: string;
  /** PEM; without it clients trust their system's roots. */
  readonly caCrt?: string | undefined;
  readonly token: string;
  /** The openMCP Cluster the access is for: it names the context. */
  readonly cluster: { readonly namespace: string; readonly name: string };
}

/**
 * `<namespace>.<name>` of the Cluster: unique among all Clusters (a
 * namespace has no dots), so kubeconfigs for several Clusters merge without
 * clashing.
 */
export function accessContextName(cluster: { readonly namespace: string; readonly name: string }): string {
  return `${cluster.namespace}.${cluster.name}`;
}

/** The kubeconfig YAML. Error messages never quote the token. */
export function tokenKubeconfig({ server, caCrt, token, cluster }: TokenKubeconfigInput): string {
  if (!isHttpsUrl(server)) throw new TypeError(`the API server URL ${JSON.stringify(server)} is not an https URL`);
  if (token === "") throw new TypeError("the token must not be empty");
  const name = accessContextName(cluster);
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    preferences: {},
    clusters: [{ name, cluster: { server, ...(caCrt === undefined || caCrt === "" ? {} : { "certificate-authority-data": Buffer.from(caCrt, "utf8").toString("base64") }) } }],
    users: [{ name, user: { token } }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    "current-context": name,
  });
}

export interface AccessSecretInput {
  readonly kubeconfig: string;
  readonly host: string;
  readonly caCrt?: string | undefined;
  readonly token: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/**
 * The Secret's `stringData`. Timestamps are Unix seconds in decimal, as the
 * gardener and kind providers write and read them (openMCP's constants leave the
 * format open).
 */
export function accessSecretData({ kubeconfig, host, caCrt, token, createdAt, expiresAt }: AccessSecretInput): Record<string, string> {
  return {
    [SECRET_KEY.Kubeconfig]: kubeconfig,
    [SECRET_KEY.Host]: host,
    ...(caCrt === undefined || caCrt === "" ? {} : { [SECRET_KEY.CA]: caCrt }),
    [SECRET_KEY.Token]: token,
    [SECRET_KEY.CreationTimestamp]: unixSeconds(createdAt),
    [SECRET_KEY.ExpirationTimestamp]: unixSeconds(expiresAt),
  };
}

/**
 * The token's times from a Secret's decoded data, for deciding on renewal;
 * undefined unless both are Unix seconds (a Secret written by someone else,
 * or damaged, gets a new token).
 */
export function accessSecretTimes(data: Readonly<Record<string, string | undefined>>): { createdAt: Date; expiresAt: Date } | undefined {
  const createdAt = parseUnixSeconds(data[SECRET_KEY.CreationTimestamp]);
  const expiresAt = parseUnixSeconds(data[SECRET_KEY.ExpirationTimestamp]);
  return createdAt === undefined || expiresAt === undefined ? undefined : { createdAt, expiresAt };
}

/**
 * Annotation on the Secret: the `accessTokenBasis` its token was issued for.
 * The Secret is read from the API server while the request comes from a
 * cache, so deciding on a new token by the Secret alone stays right when the
 * cache lags behind our own status write.
 */
export const TOKEN_BASIS_ANNOTATION = "capi.clusters.openmcp.cloud/token-basis";

export interface TokenBasisInput {
  /** The request's `metadata.generation`: a changed spec gets a new token. */
  readonly generation: number;
  /** Token access only: whose token, and for how long. */
  readonly serviceAccount?: { readonly namespace: string; readonly name: string } | undefined;
  readonly expirationSeconds?: number | undefined;
  readonly server: string;
  readonly caCrt?: string | undefined;
  readonly cluster: { readonly namespace: string; readonly name: string };
}

/** Everything a Secret's token and kubeconfig were made from, as a hash; a token issued for another basis is replaced. */
export function accessTokenBasis(input: TokenBasisInput): string {
  return shortHash(
    [
      "tokenbasis",
      String(input.generation),
      input.serviceAccount?.namespace ?? "",
      input.serviceAccount?.name ?? "",
      String(input.expirationSeconds ?? ""),
      input.server,
      input.caCrt ?? "",
      input.cluster.namespace,
      input.cluster.name,
    ],
    16,
  );
}

/**
 * Annotation on the Secret: `accessDataDigest` of the data it was written
 * with. A Secret whose data no longer matches was edited by someone else,
 * and gets a fresh token at once instead of at renewal.
 */
export const DATA_DIGEST_ANNOTATION = "capi.clusters.openmcp.cloud/data-digest";

/**
 * A hash of the Secret's decoded data, keys sorted. The token in it is a
 * signed JWT, far too long to guess from a hash, and the annotation is
 * readable only by those who may read the data itself.
 */
export function accessDataDigest(data: Readonly<Record<string, string>>): string {
  return shortHash(["accessdata", ...Object.keys(data).sort().flatMap((key) => [key, data[key] ?? ""])], 32);
}

const MAX_SUBDOMAIN = 253;
const SECRET_SUFFIX = ".kubeconfig";
const HASH_CHARS = 8;

/**
 * `<ar-name>.kubeconfig`, the name the kind and gardener providers use;
 * for a name too long for that, a shortened name and a hash of the full one.
 */
export function accessSecretName(arName: string): string {
  if (!isDnsSubdomain(arName)) throw new TypeError(`AccessRequest name ${JSON.stringify(arName)} is not a DNS-1123 subdomain`);
  if (arName.length + SECRET_SUFFIX.length <= MAX_SUBDOMAIN) return `${arName}${SECRET_SUFFIX}`;
  const prefix = arName.slice(0, MAX_SUBDOMAIN - SECRET_SUFFIX.length - HASH_CHARS - 1).replace(/[-.]+$/, "");
  return `${prefix}-${shortHash(["accesssecret", arName], HASH_CHARS)}${SECRET_SUFFIX}`;
}

function unixSeconds(date: Date): string {
  return String(Math.floor(date.getTime() / 1000));
}

function parseUnixSeconds(text: string | undefined): Date | undefined {
  if (text === undefined || !/^\d{1,15}$/.test(text)) return undefined;
  return new Date(Number(text) * 1000);
}

/** Whether `value` is an `https://` URL: where a kubeconfig may send credentials. */
export function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === "https:";
  } catch {
    return false;
  }
}
