import { describe, expect, it } from "@jest/globals";
import { parse } from "yaml";
import { tokenKubeconfig } from "./access-kubeconfig.js";
import { oidcKubeconfig, oidcSecretData, type OidcKubeconfigInput } from "./oidc-kubeconfig.js";

const CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const CLUSTER = { namespace: "project-a", name: "workload.eu" };
const INPUT: OidcKubeconfigInput = { server: "https://api.example.com:6443", caCrt: CA, issuer: "https://login.example.com/realms/a", clientID: "mcp", providerName: "corp", cluster: CLUSTER };

interface Kubeconfig {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: { exec: { args: string[] } } }[];
}

describe("oidcKubeconfig", () => {
  it("logs in through oidc-login with the issuer, client ID and PKCE, as controller-utils writes it", () => {
    expect(parse(oidcKubeconfig(INPUT))).toEqual({
      apiVersion: "v1",
      kind: "Config",
      preferences: {},
      clusters: [{ name: "project-a.workload.eu", cluster: { server: "https://api.example.com:6443", "certificate-authority-data": Buffer.from(CA).toString("base64") } }],
      users: [
        {
          name: "project-a.workload.eu:corp",
          user: {
            exec: {
              apiVersion: "client.authentication.k8s.io/v1beta1",
              command: "kubectl",
              args: ["oidc-login", "get-token", "--grant-type=auto", "--oidc-issuer-url=https://login.example.com/realms/a", "--oidc-client-id=mcp", "--oidc-pkce-method=auto"],
            },
          },
        },
      ],
      contexts: [{ name: "project-a.workload.eu:corp", context: { cluster: "project-a.workload.eu", user: "project-a.workload.eu:corp" } }],
      "current-context": "project-a.workload.eu:corp",
    });
  });

  it("asks for each extra scope, in order, before the PKCE method", () => {
    const config = parse(oidcKubeconfig({ ...INPUT, extraScopes: ["email", "groups"] })) as Kubeconfig;
    expect(config.users[0]?.user.exec.args.slice(5)).toEqual(["--oidc-extra-scope=email", "--oidc-extra-scope=groups", "--oidc-pkce-method=auto"]);
  });

  it("names its cluster as the token kubeconfig of the same Cluster does, so both merge", () => {
    const token = parse(tokenKubeconfig({ server: INPUT.server, caCrt: CA, token: "t", cluster: CLUSTER })) as Kubeconfig;
    const oidc = parse(oidcKubeconfig(INPUT)) as Kubeconfig;
    expect(oidc.clusters).toEqual(token.clusters);
    expect(oidc.users[0]?.name).not.toBe(token.users[0]?.name);
  });

  it("gives two providers of one Cluster different users and contexts", () => {
    const a = parse(oidcKubeconfig(INPUT)) as { "current-context": string };
    const b = parse(oidcKubeconfig({ ...INPUT, providerName: "partner" })) as { "current-context": string };
    expect(a["current-context"]).not.toBe(b["current-context"]);
  });

  it.each([undefined, ""])("leaves out the CA when there is none (%j)", (caCrt) => {
    const config = parse(oidcKubeconfig({ ...INPUT, caCrt })) as Kubeconfig;
    expect(config.clusters[0]?.cluster).toEqual({ server: "https://api.example.com:6443" });
  });

  it.each(["http://api.example.com", "api.example.com:6443"])("refuses the server %j: the ID token would travel in the clear", (server) => {
    expect(() => oidcKubeconfig({ ...INPUT, server })).toThrow(/not an https URL/);
  });
});

describe("oidcSecretData", () => {
  it("holds the kubeconfig, host, CA and client ID, and no token or timestamps", () => {
    expect(oidcSecretData({ kubeconfig: "kc", host: "https://api.example.com", caCrt: CA, clientID: "mcp" })).toEqual({
      kubeconfig: "kc",
      host: "https://api.example.com",
      "ca.crt": CA,
      clientID: "mcp",
    });
  });

  it("leaves out an empty CA", () => {
    expect(oidcSecretData({ kubeconfig: "kc", host: "https://api.example.com", caCrt: "", clientID: "mcp" })).not.toHaveProperty("ca.crt");
  });
});
