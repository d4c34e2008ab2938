import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createPublicKey, verify, type JsonWebKey } from "node:crypto";
import { get } from "node:https";
import { OidcIssuer } from "./oidc-issuer.js";

/** A GET over HTTPS that trusts only `ca`, as kube-apiserver's authenticator does with certificateAuthority. */
async function getJson(url: string, ca: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    get(url, { ca }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown }));
    }).on("error", reject);
  });
}

function decode(part: string | undefined): Record<string, unknown> {
  return JSON.parse(Buffer.from(part ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
}

describe("OidcIssuer", () => {
  let issuer: OidcIssuer;
  beforeAll(async () => {
    issuer = await OidcIssuer.start();
  });
  afterAll(async () => {
    await issuer.stop();
  });

  it("serves OIDC discovery for its own URL over TLS its CA vouches for", async () => {
    expect(issuer.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const { status, body } = await getJson(`${issuer.url}/.well-known/openid-configuration`, issuer.caPem);
    expect(status).toBe(200);
    expect(body).toMatchObject({ issuer: issuer.url, jwks_uri: `${issuer.url}/keys`, id_token_signing_alg_values_supported: ["RS256"] });
  });

  it("mints RS256 tokens with the claims asked for, verifiable with the served key", async () => {
    const token = issuer.mint({ subject: "alice", audience: "mcp", groups: ["auditors"], expiresInSeconds: 60, claims: { email: "alice@example.com" } });
    const [header, payload, signature] = token.split(".");
    const { body } = await getJson(`${issuer.url}/keys`, issuer.caPem);
    const [key] = (body as { keys: (JsonWebKey & { kid: string })[] }).keys;
    expect(decode(header)).toEqual({ alg: "RS256", typ: "JWT", kid: key?.kid });
    const claims = decode(payload);
    expect(claims).toMatchObject({ iss: issuer.url, sub: "alice", aud: "mcp", groups: ["auditors"], email: "alice@example.com" });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(60);
    const publicKey = createPublicKey({ key: key as JsonWebKey, format: "jwk" });
    expect(verify("sha256", Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature ?? "", "base64url"))).toBe(true);
    expect(verify("sha256", Buffer.from(`${header}.${payload}x`), publicKey, Buffer.from(signature ?? "", "base64url"))).toBe(false);
  });

  it("answers 404 for anything else", async () => {
    expect((await getJson(`${issuer.url}/authorize`, issuer.caPem)).status).toBe(404);
  });

  it("describes the kube-apiserver authenticator that trusts it", () => {
    expect(issuer.jwtAuthenticator({ audiences: ["a", "b"], usernamePrefix: "corp:", groupsPrefix: "" })).toEqual({
      issuer: { url: issuer.url, certificateAuthority: issuer.caPem, audiences: ["a", "b"], audienceMatchPolicy: "MatchAny" },
      claimMappings: { username: { claim: "sub", prefix: "corp:" }, groups: { claim: "groups", prefix: "" } },
    });
  });
});
