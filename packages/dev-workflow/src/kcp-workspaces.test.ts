import { describe, expect, it } from "@jest/globals";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { splitWorkspacePath, writeWorkspaceKubeconfig } from "./kcp-workspaces.js";
import { UsageError } from "./variables.js";

function kubeconfig(server: string): string {
  return `apiVersion: v1
kind: Config
current-context: admin
contexts:
  - name: admin
    context: { cluster: kcp, user: admin }
  - name: other
    context: { cluster: elsewhere, user: admin }
clusters:
  - name: kcp
    cluster: { server: "${server}", certificate-authority: ca.crt }
  - name: elsewhere
    cluster: { server: "https://elsewhere:6443" }
users:
  - name: admin
    user: { client-certificate: certs/admin.crt, client-key: /abs/admin.key }
`;
}

describe("writeWorkspaceKubeconfig", () => {
  it.each([
    ["the base URL", "https://kcp.example:6443"],
    ["another workspace", "https://kcp.example:6443/clusters/root:orgs"],
    ["a trailing slash", "https://kcp.example:6443/clusters/root/"],
  ])("points the current context at the workspace, from %s", (_, server) => {
    const dir = mkdtempSync(join(tmpdir(), "dev-workflow-"));
    writeFileSync(join(dir, "in.kubeconfig"), kubeconfig(server));
    const out = writeWorkspaceKubeconfig(join(dir, "in.kubeconfig"), "root:edgeconnect", join(dir, "out.kubeconfig"));
    const config = parse(readFileSync(out, "utf8")) as { clusters: { name: string; cluster: Record<string, string> }[]; users: { user: Record<string, string> }[] };
    expect(config.clusters[0]?.cluster).toEqual({ server: "https://kcp.example:6443/clusters/root:edgeconnect", "certificate-authority": join(dir, "ca.crt") });
    expect(config.clusters[1]?.cluster["server"]).toBe("https://elsewhere:6443");
    expect(config.users[0]?.user).toEqual({ "client-certificate": join(dir, "certs", "admin.crt"), "client-key": "/abs/admin.key" });
    expect(statSync(out).mode & 0o777).toBe(0o600);
  });

  it("refuses a kubeconfig whose current context names no cluster", () => {
    const dir = mkdtempSync(join(tmpdir(), "dev-workflow-"));
    writeFileSync(join(dir, "in.kubeconfig"), kubeconfig("https://kcp.example:6443").replace("current-context: admin", "current-context: missing"));
    expect(() => writeWorkspaceKubeconfig(join(dir, "in.kubeconfig"), "root:a", join(dir, "out"))).toThrow(UsageError);
  });
});

describe("splitWorkspacePath", () => {
  it("splits off the last segment", () => {
    expect(splitWorkspacePath("root:orgs:team")).toEqual({ parent: "root:orgs", name: "team" });
    expect(splitWorkspacePath("root:orgs")).toEqual({ parent: "root", name: "orgs" });
    expect(() => splitWorkspacePath("root")).toThrow(UsageError);
  });
});
