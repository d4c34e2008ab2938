import { describe, expect, it } from "@jest/globals";
import { isSensitiveKey, mayHoldSensitiveKey } from "./sensitive-keys.js";

describe("isSensitiveKey", () => {
  it.each([
    "authorization",
    "Authorization",
    "proxy-authorization",
    "token",
    "tokens",
    "Token",
    "bearerToken",
    "bearer_token",
    "id-token",
    "refresh_token",
    "serviceAccountToken",
    "password",
    "Password",
    "adminPassword",
    "passwd",
    "passphrase",
    "secret",
    "clientSecret",
    "client_secret",
    "secretKey",
    "secret_key",
    "SecretKey",
    "sk",
    "SK",
    "accessKey",
    "access_key",
    "ak",
    "AK",
    "securityToken",
    "security_token",
    "securitytoken",
    "x-auth-token",
    "X-Auth-Token",
    "x-subject-token",
    "X-Subject-Token",
    "x-security-token",
    "X-Security-Token",
    "cookie",
    "Cookie",
    "set-cookie",
    "Set-Cookie",
    "kubeconfig",
    "kubeConfig",
    "client-key-data",
    "clientKeyData",
    "keyData",
    "clientKey",
    "privateKey",
    "private_key",
    "apiKey",
    "x-api-key",
    "data",
    "Data",
    "stringData",
    "userData",
    "user_data",
    "credentials",
    "credential",
  ])("%s is sensitive", (key) => {
    expect(isSensitiveKey(key)).toBe(true);
  });

  it.each([
    // Contain "sk" or "ak" without being the key.
    "task",
    "desk",
    "disk",
    "askFor",
    "mask",
    "break",
    "peak",
    // Describe a credential without holding it.
    "tokenExpiry",
    "tokenExpirationSeconds",
    "tokenFile",
    "bearerTokenFile",
    "passwordFile",
    "secretName",
    "secretRef",
    "credentialsSecretRef",
    // Public halves of a kubeconfig user.
    "client-certificate-data",
    "certificate-authority-data",
    "certData",
    // Merely contain "data".
    "metadata",
    "dataSource",
    "binaryDataKeys",
    // Everyday fields.
    "name",
    "namespace",
    "key",
    "message",
    "reason",
    "status",
    "url",
    "username",
  ])("%s is not sensitive", (key) => {
    expect(isSensitiveKey(key)).toBe(false);
  });
});

describe("mayHoldSensitiveKey", () => {
  it("says yes for every text holding a key isSensitiveKey accepts, however it is spelt", () => {
    const parts = ["x", "Auth", "client", "-", "_", ".", "key", "Data", "TOKEN", "pass", "word", "Secret", "s", "k", "a", "api", "Private", "cookie", "sig", "nature", "pass.phrase"];
    let checked = 0;
    for (let round = 0; round < 20_000; round++) {
      const key = Array.from({ length: 1 + Math.floor(Math.random() * 4) }, () => parts[Math.floor(Math.random() * parts.length)]).join("");
      if (!/^[A-Za-z]/.test(key) || !isSensitiveKey(key)) continue;
      checked++;
      expect([key, mayHoldSensitiveKey(`{"level":"info","${key}":"v"}`), mayHoldSensitiveKey(`  ${key}: v`)]).toEqual([key, true, true]);
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it("says no for ordinary log text", () => {
    expect(mayHoldSensitiveKey('{"level":"info","controller":"kubernetesclusters","msg":"teardown pass: waiting for NodePoolV3 to be deleted","task":"disk"}')).toBe(false);
  });
});
