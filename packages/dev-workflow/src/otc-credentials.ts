/**
 * The OTC credentials the workflow writes: the platform's, for Crossplane's
 * ClusterProviderConfig `infra`, and a tenant's, for the demo. Both are
 * checked with the provider-controller's own parser first, so a file or key
 * the controller would refuse is refused here, before anything is written;
 * the problems it names never quote a value.
 */
import { SECRET_LABEL } from "@edgeconnect/api";
import { crossplaneCredentials, CREDENTIALS_KEY, MAX_CREDENTIALS_BYTES, parseOtcCredentials, type OtcCredentials } from "@edgeconnect/provisioning";
import type { KubeObject, ObjectMeta } from "@edgeconnect/kcp-ts";

/** Where `hack/crossplane-otc-providerconfig.yaml` reads the platform's credentials. */
export const PLATFORM_CREDENTIALS_SECRET = { namespace: "crossplane-system", name: "opentelekomcloud-credentials" } as const;
/** Where `hack/examples/demo/02-providerconfig.yaml` reads the demo tenant's credentials. */
export const DEMO_CREDENTIALS_SECRET = { namespace: "demo", name: "otc-creds" } as const;

export type CredentialsResult = { ok: true; secret: KubeObject; mode: "password" | "accessKey" } | { ok: false; problems: string[] };

/**
 * The Secret of Crossplane's ClusterProviderConfig from a credentials file in
 * either of the seed's formats (key=value lines for a password, or JSON with
 * an access key). The provider reads a JSON object of strings, so the value
 * is that, whichever format the file has.
 */
export function platformCredentialsSecret(text: string): CredentialsResult {
  if (Buffer.byteLength(text) > MAX_CREDENTIALS_BYTES) return { ok: false, problems: [`the credentials file is larger than ${MAX_CREDENTIALS_BYTES} bytes`] };
  return credentialsSecret(text, { ...PLATFORM_CREDENTIALS_SECRET }, (credentials) => JSON.stringify(crossplaneCredentials(credentials)));
}

export interface DemoCredentials {
  readonly accessKey: string;
  readonly secretKey: string;
  readonly authUrl: string;
  readonly region: string;
  readonly projectName: string;
}

/**
 * The demo tenant's credentials Secret (demo/otc-creds, key `credentials`):
 * access_key, secret_key, auth_url, region and tenant_name, labelled so that
 * the provider-controller may read it.
 */
export function demoCredentialsSecret(credentials: DemoCredentials): CredentialsResult {
  const text = JSON.stringify({
    access_key: credentials.accessKey,
    secret_key: credentials.secretKey,
    auth_url: credentials.authUrl,
    region: credentials.region,
    tenant_name: credentials.projectName,
  });
  return credentialsSecret(text, { ...DEMO_CREDENTIALS_SECRET, labels: { [SECRET_LABEL.key]: SECRET_LABEL.value } }, () => text);
}

/** The Secret with `text`'s credentials under `credentials`, as `stored` writes them, if the controller's parser takes them. */
function credentialsSecret(text: string, metadata: ObjectMeta, stored: (credentials: OtcCredentials) => string): CredentialsResult {
  const parsed = parseOtcCredentials(text);
  if (!parsed.ok) return parsed;
  return {
    ok: true,
    mode: parsed.credentials.mode,
    secret: { apiVersion: "v1", kind: "Secret", metadata, type: "Opaque", stringData: { [CREDENTIALS_KEY]: stored(parsed.credentials) } },
  };
}
