/**
 * Registers a kubeconfig's credentials with the redaction registry, so that
 * no error, log line or Event of this process can show them: every user's
 * token, password and client key (as the file has it, base64, and decoded),
 * and the secrets of auth-provider configs (`id-token`, `refresh-token`,
 * `client-secret`, ...). Only what the KubeConfig holds in memory: a token
 * file (in-cluster service accounts) is read per request and not seen here;
 * scrubbing any `Bearer` token in text covers its usual way out.
 */
import { isSensitiveKey, registerSecret } from "@edgeconnect/redaction";
import type { KubeConfig } from "@kubernetes/client-node";

export function registerKubeconfigCredentials(kubeConfig: KubeConfig): void {
  for (const user of kubeConfig.getUsers()) {
    registerSecret(user.token);
    registerSecret(user.password);
    if (user.keyData !== undefined) {
      registerSecret(user.keyData);
      registerSecret(Buffer.from(user.keyData, "base64").toString("utf8"));
    }
    const providerConfig: unknown = (user.authProvider as { config?: unknown } | undefined)?.config;
    if (typeof providerConfig !== "object" || providerConfig === null) continue;
    for (const [key, value] of Object.entries(providerConfig)) {
      if (isSensitiveKey(key)) registerSecret(value);
    }
  }
}
