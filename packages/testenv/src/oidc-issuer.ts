/**
 * An OpenID Connect issuer for tests, in this process: HTTPS on a free
 * loopback port with a certificate of its own CA, serving the discovery
 * document and the JWKS that kube-apiserver's JWT authenticator reads, and
 * minting RS256 ID tokens for whatever user and groups a test names. There
 * is no login: a test mints the token a person would get from a real
 * issuer after logging in.
 *
 * `jwtAuthenticator` gives the entry of kube-apiserver's structured
 * authentication configuration that trusts it, for
 * `KubeApiServer.start({ authenticationConfiguration })`.
 */
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Reaper } from "./reaper.js";
import { makeServingCertificate } from "./serving-certificate.js";

export interface OidcIssuerOptions {
  /** Directory for the TLS files; a fresh temporary one when absent. */
  readonly dir?: string;
  readonly keepDir?: boolean;
  readonly reaper?: Reaper;
}

export interface MintOptions {
  /** The `sub` claim. */
  readonly subject: string;
  /** The `aud` claim: the client ID the token was issued to. */
  readonly audience: string | readonly string[];
  /** The `groups` claim; left out when absent. */
  readonly groups?: readonly string[];
  /** Validity from now; negative for an expired token. Default 600. */
  readonly expiresInSeconds?: number;
  /** Further claims, e.g. `email`; they override the ones above. */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/** One `jwt` entry of kube-apiserver's AuthenticationConfiguration (apiserver.config.k8s.io). */
export interface JwtAuthenticator {
  readonly issuer: {
    readonly url: string;
    /** PEM, inline. */
    readonly certificateAuthority?: string;
    readonly audiences: readonly string[];
    readonly audienceMatchPolicy?: "MatchAny";
  };
  readonly claimMappings: {
    readonly username: { readonly claim: string; readonly prefix: string };
    readonly groups?: { readonly claim: string; readonly prefix: string };
  };
}

export interface JwtAuthenticatorOptions {
  readonly audiences: readonly string[];
  /** Default `sub`. */
  readonly usernameClaim?: string;
  /** Required by kube-apiserver with a claim; "" for none. */
  readonly usernamePrefix: string;
  /** Default `groups`. */
  readonly groupsClaim?: string;
  readonly groupsPrefix: string;
}

const KEY_ID = "testenv";
const DEFAULT_VALIDITY_SECONDS = 600;

export class OidcIssuer {
  private constructor(
    private readonly server: Server,
    private readonly signingKey: KeyObject,
    private readonly options: OidcIssuerOptions,
    readonly dir: string,
    /** `https://127.0.0.1:<port>`: the `iss` of its tokens. */
    readonly url: string,
    /** PEM of the CA of its serving certificate. */
    readonly caPem: string,
  ) {}

  static async start(options: OidcIssuerOptions = {}): Promise<OidcIssuer> {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), "edgeconnect-oidc-"));
    options.reaper?.removeOnExit(dir);
    try {
      const caPem = await makeServingCertificate(dir, { caName: "testenv-oidc-issuer-ca", purpose: "the test OIDC issuer" });
      const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      const server = createServer({ key: readFileSync(join(dir, "tls.key")), cert: readFileSync(join(dir, "tls.crt")) });
      // Listening on port 0 lets the kernel pick a free port: nothing to race with.
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => resolve());
      });
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const served = documents(url, publicKey);
      server.on("request", (req, res) => {
        const body = req.method === "GET" ? served.get(req.url ?? "") : undefined;
        res.writeHead(body === undefined ? 404 : 200, { "content-type": "application/json" });
        res.end(JSON.stringify(body ?? { error: "not found" }));
      });
      return new OidcIssuer(server, privateKey, options, dir, url, caPem);
    } catch (err) {
      if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /** A signed ID token of this issuer. */
  mint({ subject, audience, groups, expiresInSeconds = DEFAULT_VALIDITY_SECONDS, claims = {} }: MintOptions): string {
    const now = Math.floor(Date.now() / 1000);
    const payload = {
      iss: this.url,
      sub: subject,
      aud: typeof audience === "string" ? audience : [...audience],
      iat: now,
      nbf: now,
      exp: now + expiresInSeconds,
      jti: randomBytes(8).toString("hex"),
      ...(groups === undefined ? {} : { groups: [...groups] }),
      ...claims,
    };
    const signingInput = `${base64url({ alg: "RS256", typ: "JWT", kid: KEY_ID })}.${base64url(payload)}`;
    return `${signingInput}.${sign("sha256", Buffer.from(signingInput), this.signingKey).toString("base64url")}`;
  }

  /** The authentication configuration entry under which kube-apiserver accepts this issuer's tokens. */
  jwtAuthenticator({ audiences, usernameClaim = "sub", usernamePrefix, groupsClaim = "groups", groupsPrefix }: JwtAuthenticatorOptions): JwtAuthenticator {
    return {
      issuer: { url: this.url, certificateAuthority: this.caPem, audiences: [...audiences], ...(audiences.length > 1 ? { audienceMatchPolicy: "MatchAny" as const } : {}) },
      claimMappings: { username: { claim: usernameClaim, prefix: usernamePrefix }, groups: { claim: groupsClaim, prefix: groupsPrefix } },
    };
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    if (!this.options.keepDir) {
      rmSync(this.dir, { recursive: true, force: true });
      this.options.reaper?.forgetDirectory(this.dir);
    }
  }
}

/** What the issuer serves, by path: OIDC discovery and the key set it points to. */
function documents(url: string, publicKey: KeyObject): Map<string, unknown> {
  const jwk = publicKey.export({ format: "jwk" });
  return new Map<string, unknown>([
    [
      "/.well-known/openid-configuration",
      {
        issuer: url,
        jwks_uri: `${url}/keys`,
        authorization_endpoint: `${url}/authorize`,
        response_types_supported: ["id_token"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
      },
    ],
    ["/keys", { keys: [{ kty: jwk.kty, n: jwk.n, e: jwk.e, kid: KEY_ID, use: "sig", alg: "RS256" }] }],
  ]);
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}
