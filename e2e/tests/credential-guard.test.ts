/**
 * The credential guard's scanning, on planted values: it must be able to
 * fail, and say where without saying what.
 */
import { describe, expect, it } from "@jest/globals";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { e2eCredentialsDir, recordE2eCredentials } from "@edgeconnect/testenv";
import {
  describeReport,
  findCredentials,
  fixtureCredentials,
  generatedCredentials,
  kubeconfigCredentials,
  logTexts,
  reportPassed,
  type KnownCredential,
} from "../src/global-teardown.js";

const PLANTED: KnownCredential = { origin: "planted test token", value: "planted-fake-token-0123456789" };

function withDir<T>(use: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "credential-guard-"));
  try {
    return use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("findCredentials", () => {
  it("finds a planted credential inside a body, and base64-embedded in a longer text", () => {
    const texts = [
      { where: "Event a", text: `{"message":"GET /api: HTTP 401: ${PLANTED.value}"}` },
      { where: "Event b", text: `{"data":"${Buffer.from(`prefix ${PLANTED.value} suffix`).toString("base64")}"}` },
      { where: "clean status", text: '{"conditions":[{"type":"Ready","status":"True"}]}' },
    ];
    expect(findCredentials(texts, [PLANTED])).toEqual([
      { where: "Event a", credential: "planted test token" },
      { where: "Event b", credential: "planted test token" },
    ]);
  });

  it("finds nothing in clean texts, and ignores credentials too short to search for", () => {
    expect(findCredentials([{ where: "x", text: "nothing to see; short" }], [PLANTED, { origin: "short", value: "short" }])).toEqual([]);
  });

  it("reports where and whose, never the value, and fails the run", () => {
    const findings = findCredentials([{ where: "kcp Event root/default/w1", text: PLANTED.value }], [PLANTED]);
    const report = { scanned: { texts: 1, credentials: 1, generated: 0 }, findings, unreadable: [] };
    expect(reportPassed(report)).toBe(false);
    const lines = describeReport(report);
    expect(lines).toContain("credential guard: planted test token appeared in kcp Event root/default/w1");
    expect(lines.join("\n")).not.toContain(PLANTED.value);
    expect(reportPassed({ ...report, findings: [] })).toBe(true);
    expect(reportPassed({ ...report, findings: [], error: "kcp unreachable" })).toBe(false);
  });
});

describe("credential sources", () => {
  it("finds a credential in a log file nested under the log directory", () => {
    withDir((dir) => {
      mkdirSync(join(dir, "ccm"));
      writeFileSync(join(dir, "ccm", "output.log"), `{"level":"info","msg":"ok"}\n{"level":"error","msg":"token ${PLANTED.value}"}\n`);
      writeFileSync(join(dir, "clean.log"), '{"level":"info","msg":"ok"}\n');
      const findings = findCredentials(logTexts(dir, (path) => relative(dir, path)), [PLANTED]);
      expect(findings).toEqual([{ where: join("ccm", "output.log"), credential: "planted test token" }]);
    });
  });

  it("reads fake OTC credentials from test sources, skipping short ones, dist and node_modules", () => {
    withDir((dir) => {
      mkdirSync(join(dir, "pkg", "src"), { recursive: true });
      mkdirSync(join(dir, "pkg", "dist"), { recursive: true });
      const field = (name: string, value: string): string => `${name}: "${value}"`;
      writeFileSync(join(dir, "pkg", "src", "cloud.fixture.ts"), `export const C = { ${field("accessKey", "FIXTUREAK0001")}, ${field("secretKey", "fixture-secret-0001")}, ${field("securityToken", "short")} };\n`);
      writeFileSync(join(dir, "pkg", "dist", "cloud.fixture.ts"), `const C = { ${field("secretKey", "built-copy-secret-0001")} };\n`);
      expect(fixtureCredentials(dir, ["pkg"])).toEqual([
        { origin: `OTC accessKey of ${join("pkg", "src", "cloud.fixture.ts")}`, value: "FIXTUREAK0001" },
        { origin: `OTC secretKey of ${join("pkg", "src", "cloud.fixture.ts")}`, value: "fixture-secret-0001" },
      ]);
    });
  });

  it("searches for the credentials a run generated and recorded next to its log directory, which it does not scan as text", () => {
    withDir((dir) => {
      const logDir = join(dir, "e2e-logs");
      mkdirSync(logDir);
      const generated = { origin: "OTC password of demo tenant 12 (tenant-12-admin)", value: "simulated-tenant-password-12-a1b2c3" };
      const path = recordE2eCredentials("demo-platform-1", [generated, PLANTED], logDir);
      recordE2eCredentials("chaos-generated-input", [{ origin: "credential 0 of the generated input", value: PLANTED.value }], logDir);
      expect(path).toBeDefined();
      expect(statSync(path ?? "").mode & 0o777).toBe(0o600);
      // Beside the logs, not among them: the records would be found as leaks of themselves.
      expect(e2eCredentialsDir(logDir)).toBe(join(dir, "e2e-logs-credentials"));
      expect(readdirSync(logDir)).toEqual([]);

      const known = generatedCredentials(logDir);
      expect(known).toEqual([
        { origin: "generated credential 0 of the generated input", value: PLANTED.value },
        { origin: `generated ${generated.origin}`, value: generated.value },
      ]);
      writeFileSync(join(logDir, "provider-controller-1.log"), `{"msg":"IAM refused ${generated.value}"}\n`);
      expect(findCredentials(logTexts(logDir, (file) => relative(logDir, file)), known)).toEqual([{ where: "provider-controller-1.log", credential: `generated ${generated.origin}` }]);
    });
  });

  it("has no generated credentials without a log directory or a record", () => {
    expect(generatedCredentials(undefined)).toEqual([]);
    withDir((dir) => expect(generatedCredentials(join(dir, "e2e-logs"))).toEqual([]));
    expect(recordE2eCredentials("x", [PLANTED], "")).toBeUndefined();
  });

  it("reads every kubeconfig user's token, password and decoded client key", () => {
    withDir((dir) => {
      const pem = "-----BEGIN FAKE KEY-----\nZmFrZQ==\n-----END FAKE KEY-----\n";
      const path = join(dir, "admin.kubeconfig");
      writeFileSync(
        path,
        JSON.stringify({
          apiVersion: "v1",
          kind: "Config",
          clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:1" } }],
          users: [
            { name: "kcp-admin", user: { token: "kubeconfig-token-0001" } },
            { name: "basic", user: { username: "u", password: "kubeconfig-password-0001" } },
            { name: "cert", user: { "client-certificate-data": "Y2VydA==", "client-key-data": Buffer.from(pem).toString("base64") } },
          ],
          contexts: [{ name: "x", context: { cluster: "c", user: "kcp-admin" } }],
          "current-context": "x",
        }),
      );
      expect(kubeconfigCredentials(path, "kcp")).toEqual([
        { origin: 'kcp kubeconfig user "kcp-admin" token', value: "kubeconfig-token-0001" },
        { origin: 'kcp kubeconfig user "basic" password', value: "kubeconfig-password-0001" },
        { origin: 'kcp kubeconfig user "cert" client key', value: pem },
      ]);
    });
  });
});
