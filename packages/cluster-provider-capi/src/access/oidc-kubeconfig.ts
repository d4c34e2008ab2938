/**
 * The Secret of an OIDC AccessRequest: a kubeconfig whose user logs in at
 * the issuer through the oidc-login kubectl plugin (int128/kubelogin), in
 * the layout openMCP's controller-utils writes
 * (pkg/clusteraccess/access.go, `CreateOIDCKubeconfig`, as the Gardener
 * provider calls it: PKCE method `auto`, the provider's extra scopes). It
 * holds no credential: each person logs in as themselves, and the
 * API server maps their token's claims to the users and groups the
 * request's bindings name.
 */
import { stringify } from "yaml";
import { SECRET_KEY } from "../openmcp/constants.js";
import { accessContextName, isHttpsUrl } from "./access-kubeconfig.js";

/** The exec plugin protocol oidc-login speaks. */
const EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1";

export interface OidcKubeconfigInput {
  /** The API server, `https://…`. */
  readonly server: string;
  /** PEM; without it clients trust their system's roots. */
  readonly caCrt?: string | undefined;
  /** `spec.oidc.issuer`. */
  readonly issuer: string;
  /** `spec.oidc.clientID`. */
  readonly clientID: string;
  /** `spec.oidc.extraScopes`, asked for besides openid. */
  readonly extraScopes?: readonly string[] | undefined;
  /** `spec.oidc.name`: names the user and the context. */
  readonly providerName: string;
  /** The openMCP Cluster the access is for: names the cluster. */
  readonly cluster: { readonly namespace: string; readonly name: string };
}

/**
 * The kubeconfig YAML. Its cluster is named as in token kubeconfigs
 * (`<namespace>.<name>` of the Cluster), so both merge into one entry; user
 * and context are `<namespace>.<name>:<provider>` (neither names nor
 * provider names have colons), so the logins of several providers for one
 * Cluster merge without clashing.
 */
export function oidcKubeconfig({ server, caCrt, issuer, clientID, extraScopes, providerName, cluster }: OidcKubeconfigInput): string {
  // The ID token goes to the server as a bearer token; issuer, client ID and name are validated by the CRD.
  if (!isHttpsUrl(server)) throw new TypeError(`the API server URL ${JSON.stringify(server)} is not an https URL`);
  const clusterName = accessContextName(cluster);
  const name = `${clusterName}:${providerName}`;
  const args = [
    "oidc-login",
    "get-token",
    "--grant-type=auto",
    `--oidc-issuer-url=${issuer}`,
    `--oidc-client-id=${clientID}`,
    ...(extraScopes ?? []).map((scope) => `--oidc-extra-scope=${scope}`),
    "--oidc-pkce-method=auto",
  ];
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    preferences: {},
    clusters: [{ name: clusterName, cluster: { server, ...(caCrt === undefined || caCrt === "" ? {} : { "certificate-authority-data": Buffer.from(caCrt, "utf8").toString("base64") }) } }],
    users: [{ name, user: { exec: { apiVersion: EXEC_API_VERSION, command: "kubectl", args } } }],
    contexts: [{ name, context: { cluster: clusterName, user: name } }],
    "current-context": name,
  });
}

export interface OidcSecretInput {
  readonly kubeconfig: string;
  readonly host: string;
  readonly caCrt?: string | undefined;
  readonly clientID: string;
}

/**
 * The Secret's `stringData`: the kubeconfig, and the contract's optional
 * keys that apply to OIDC (openmcp-operator api/clusters/v1alpha1/constants.go):
 * `clientID` (OIDC only), `host`, `ca.crt`. No token and no timestamps:
 * nothing in it expires.
 */
export function oidcSecretData({ kubeconfig, host, caCrt, clientID }: OidcSecretInput): Record<string, string> {
  return {
    [SECRET_KEY.Kubeconfig]: kubeconfig,
    [SECRET_KEY.Host]: host,
    ...(caCrt === undefined || caCrt === "" ? {} : { [SECRET_KEY.CA]: caCrt }),
    [SECRET_KEY.ClientID]: clientID,
  };
}
