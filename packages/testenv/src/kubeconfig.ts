/**
 * Kubeconfig files for the servers of the test environment and for kcp
 * workspaces, so that kubectl, client-node and controllers under test all
 * read the same thing.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parse, stringify } from "yaml";

export interface KubeconfigSpec {
  /** Name of the cluster, user and context. */
  readonly name: string;
  readonly server: string;
  /** PEM of the CA that signed the serving certificate. */
  readonly caPem: string;
  readonly token: string;
}

export function renderKubeconfig(spec: KubeconfigSpec): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: spec.name,
        cluster: { server: spec.server, "certificate-authority-data": Buffer.from(spec.caPem).toString("base64") },
      },
    ],
    users: [{ name: spec.name, user: { token: spec.token } }],
    contexts: [{ name: spec.name, context: { cluster: spec.name, user: spec.name } }],
    "current-context": spec.name,
  });
}

export function writeKubeconfig(path: string, spec: KubeconfigSpec): string {
  writeFileSync(path, renderKubeconfig(spec), { mode: 0o600 });
  return path;
}

interface KubeconfigFile {
  "current-context"?: string;
  contexts?: { name: string; context: { cluster: string; user: string } }[];
  clusters?: { name: string; cluster: { server: string; "certificate-authority-data"?: string } }[];
  users?: { name: string; user: { token?: string } }[];
}

/**
 * Reads the token-authenticated current context of a kubeconfig file (kcp's
 * admin.kubeconfig is one), so it can be re-targeted at a workspace.
 */
export function readKubeconfig(path: string): KubeconfigSpec {
  const file = parse(readFileSync(path, "utf8")) as KubeconfigFile;
  const context = file.contexts?.find((c) => c.name === file["current-context"])?.context;
  const cluster = file.clusters?.find((c) => c.name === context?.cluster)?.cluster;
  const user = file.users?.find((u) => u.name === context?.user)?.user;
  const caData = cluster?.["certificate-authority-data"];
  if (context === undefined || cluster === undefined || user?.token === undefined || caData === undefined) {
    throw new Error(`${path}: the current context needs a server, CA data and a token`);
  }
  return {
    name: file["current-context"] ?? "default",
    server: cluster.server,
    caPem: Buffer.from(caData, "base64").toString("utf8"),
    token: user.token,
  };
}
