/**
 * The credentials a kubeconfig holds in memory: every user's token,
 * password and client key (decoded), and the secrets of auth-provider
 * configs (`id-token`, `refresh-token`, `client-secret`, ...). The client
 * registers them with the redaction registry, so that no error, log line or
 * Event of this process can show them (the registry also finds their base64
 * forms); the e2e credential guard looks for the same values. A token file
 * (in-cluster service accounts) is read per request and not seen here;
 * scrubbing any `Bearer` token in text covers its usual way out.
 */
import { isSensitiveKey, registerSecret } from "@edgeconnect/redaction";
import type { KubeconfigSource } from "./kubeconfig.js";

export interface KubeconfigCredential {
  /** The kubeconfig user that holds it. */
  readonly user: string;
  /** "token", "password", "client key", or the auth-provider config key. */
  readonly field: string;
  readonly value: string;
}

export function kubeconfigCredentials(kubeConfig: Pick<KubeconfigSource, "getUsers">): KubeconfigCredential[] {
  return kubeConfig.getUsers().flatMap((user) => {
    const found: KubeconfigCredential[] = [];
    const add = (field: string, value: unknown): void => {
      if (typeof value === "string" && value !== "") found.push({ user: user.name, field, value });
    };
    add("token", user.token);
    add("password", user.password);
    if (user.keyData !== undefined) add("client key", Buffer.from(user.keyData, "base64").toString("utf8"));
    const providerConfig: unknown = (user.authProvider as { config?: unknown } | undefined)?.config;
    if (typeof providerConfig === "object" && providerConfig !== null) {
      for (const [key, value] of Object.entries(providerConfig)) if (isSensitiveKey(key)) add(key, value);
    }
    return found;
  });
}

export function registerKubeconfigCredentials(kubeConfig: Pick<KubeconfigSource, "getUsers">): void {
  for (const { value } of kubeconfigCredentials(kubeConfig)) registerSecret(value);
}
