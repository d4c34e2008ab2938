/**
 * Runs the e2e credential guard while the servers still answer, then stops
 * what the global setup started (that removes the state file too).
 *
 * The guard: after every suite ran, no credential the run used may appear
 * in any Event, object status or captured process log. Credentials are the
 * servers' (kube-apiserver's token, kcp's admin tokens, from their
 * kubeconfigs), every fake OTC key the test sources hold (`accessKey:
 * "..."`, `secretKey: "..."`, `securityToken: "..."`, `password: "..."` literals, wherever a
 * fixture or test defines them), and every credential the run generated and
 * recorded next to the log directory (testenv's recordE2eCredentials: each
 * Platform's tenant passwords, the chaos run's generated input). Statuses are found generically: every
 * resource whose discovery lists a `/status` subresource, built-in,
 * CRD-backed or (on kcp) bound from an APIExport, in every logical cluster.
 * Logs are the servers' own and everything under the directory the global
 * setup named in `$EDGECONNECT_E2E_LOG_DIR`. Findings name the place and
 * the credential's origin, never the credential.
 *
 * It must not throw: Jest writes its JSON report only after the teardown
 * returns, and the run's counts would be lost. It writes its own report,
 * `CREDENTIAL_GUARD_REPORT`, which scripts/test-summary.mjs counts as one
 * test, prints its findings, and fails the Jest process by its exit code.
 *
 * Jest loads this file outside its module mapping, so it imports packages
 * (their built output) and no sibling modules; the pure parts are exported
 * for e2e/tests/credential-guard.test.ts.
 */
import { clusterOf, kubeconfigCredentials as credentialsOf, HttpStatusError, RestClient, type KubeObject } from "@edgeconnect/kcp-ts";
import { credentialForms, MIN_SECRET_LENGTH } from "@edgeconnect/redaction";
import { e2eCredentialsDir, recordedE2eCredentials, REPO_ROOT, type EnvironmentState } from "@edgeconnect/testenv";
import { KubeConfig } from "@kubernetes/client-node";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/** Read by scripts/test-summary.mjs. */
export const CREDENTIAL_GUARD_REPORT = join(REPO_ROOT, ".cache", "reports", "credential-guard.json");

/** Where the fake OTC credentials of fixtures and tests are defined. */
const TEST_SOURCES = ["packages", "e2e/src", "e2e/tests"];

/**
 * kcp's admin kubeconfig has two users: `kcp-admin` (workspaces) and
 * `shard-admin`, the only one allowed the `/clusters/*` reads the guard needs.
 */
const KCP_WILDCARD_CONTEXT = "shard-base";

export default async function globalTeardown(): Promise<void> {
  const environments = globalThis.edgeconnectTestEnvironments ?? [];
  try {
    if (environments.length > 0) await guardCredentials(environments.map((environment) => environment.state));
  } finally {
    await Promise.all(environments.map((environment) => environment.stop()));
    globalThis.edgeconnectTestEnvironments = undefined;
  }
}

async function guardCredentials(states: readonly EnvironmentState[]): Promise<void> {
  let report: GuardReport;
  try {
    report = await inspect(states);
  } catch (err) {
    report = { scanned: { texts: 0, credentials: 0, generated: 0 }, findings: [], unreadable: [], error: err instanceof Error ? err.message : String(err) };
  }
  writeReport(CREDENTIAL_GUARD_REPORT, report);
  // Searched for now; no later run should find this run's generated credentials on disk.
  const recorded = e2eCredentialsDir();
  if (recorded !== undefined) rmSync(recorded, { recursive: true, force: true });
  for (const line of describeReport(report)) process.stderr.write(`${line}\n`);
  if (!reportPassed(report)) process.exitCode = 1;
}

/**
 * The guard's scan of environments (one per Jest worker): Events and
 * statuses on every server, their logs, and the process logs under
 * `logDir`, searched for the credentials of every environment, so that one
 * worker's server credentials found in another's objects count too.
 * Exported for the chaos run, which scans its own environment.
 */
export async function inspect(states: readonly EnvironmentState[], logDir = process.env.EDGECONNECT_E2E_LOG_DIR): Promise<GuardReport> {
  const scans = await Promise.all(states.map((state, index) => scanEnvironment(state, states.length === 1 ? "" : ` ${index + 1}`)));
  const generated = generatedCredentials(logDir);
  const credentials = [...fixtureCredentials(REPO_ROOT, TEST_SOURCES), ...generated, ...scans.flatMap((scan) => scan.credentials)];
  const texts = scans.flatMap((scan) => scan.texts);
  if (logDir !== undefined) texts.push(...logTexts(logDir, (path) => relative(REPO_ROOT, path)));
  return {
    scanned: { texts: texts.length, credentials: credentials.length, generated: generated.length },
    findings: findCredentials(texts, credentials),
    unreadable: scans.flatMap((scan) => scan.unreadable),
  };
}

/** One environment's server credentials, and its Events, statuses and server logs. */
async function scanEnvironment(state: EnvironmentState, label: string): Promise<Collected & { readonly credentials: KnownCredential[] }> {
  const credentials = kubeconfigCredentials(state.kcp.kubeconfig, `kcp${label}`);
  const texts: ScannedText[] = [];
  const unreadable: string[] = [];
  const kcp = kcpWildcardClient(state.kcp.kubeconfig);
  try {
    texts.push(...(await eventTexts(kcp.cluster("*"), `kcp${label}`)));
    const logicalClusters = await kcp.cluster("*").list("/apis/core.kcp.io/v1alpha1/logicalclusters");
    for (const name of logicalClusters.items.map(clusterOf)) {
      if (name === undefined) continue;
      const collected = await statusTexts(kcp.cluster(name), `kcp${label} ${name}`);
      texts.push(...collected.texts);
      unreadable.push(...collected.unreadable);
    }
  } finally {
    kcp.close();
  }
  texts.push(...serverLogTexts(dirname(state.kcp.kubeconfig)));

  if (!("skipped" in state.infra)) {
    const server = `${state.infra.mode}${label}`;
    credentials.push(...kubeconfigCredentials(state.infra.kubeconfig, server));
    const infra = RestClient.fromFile(state.infra.kubeconfig);
    try {
      texts.push(...(await eventTexts(infra, server)));
      const collected = await statusTexts(infra, server);
      texts.push(...collected.texts);
      unreadable.push(...collected.unreadable);
    } finally {
      infra.close();
    }
    texts.push(...serverLogTexts(dirname(state.infra.kubeconfig)));
  }
  return { credentials, texts, unreadable };
}

function kcpWildcardClient(kubeconfig: string): RestClient {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfig);
  kubeConfig.setCurrentContext(KCP_WILDCARD_CONTEXT);
  return new RestClient(kubeConfig);
}

/** A credential the run must never show; `origin` names it in findings. */
export interface KnownCredential {
  readonly origin: string;
  readonly value: string;
}

/** Some text the run produced, and where it came from. */
export interface ScannedText {
  readonly where: string;
  readonly text: string;
}

export interface Finding {
  readonly where: string;
  /** The credential's origin, not its value. */
  readonly credential: string;
}

export interface GuardReport {
  /** How many texts and credentials were compared; of the credentials, how many the run generated and recorded. */
  readonly scanned: { readonly texts: number; readonly credentials: number; readonly generated: number };
  readonly findings: readonly Finding[];
  /** Sources that could not be read (a resource the server refused to list); reported, not failed. */
  readonly unreadable: readonly string[];
  /** Set when the guard itself failed: then it proved nothing. */
  readonly error?: string;
}

/** Every place where a credential, in any form `scrubText` would hide, appears. */
export function findCredentials(texts: Iterable<ScannedText>, credentials: readonly KnownCredential[]): Finding[] {
  const searched = credentials
    .filter((credential) => credential.value.length >= MIN_SECRET_LENGTH)
    .map((credential) => ({ origin: credential.origin, forms: credentialForms(credential.value) }));
  const findings: Finding[] = [];
  for (const { where, text } of texts) {
    for (const { origin, forms } of searched) {
      if (forms.some((form) => text.includes(form))) findings.push({ where, credential: origin });
    }
  }
  return findings;
}

/** The lines a report prints: what failed and where, never a credential. */
export function describeReport(report: GuardReport): string[] {
  const lines = [`credential guard: ${report.scanned.texts} texts scanned for ${report.scanned.credentials} credentials (${report.scanned.generated} generated by the run)`];
  if (report.error !== undefined) lines.push(`credential guard failed to run: ${report.error}`);
  for (const finding of report.findings) lines.push(`credential guard: ${finding.credential} appeared in ${finding.where}`);
  for (const source of report.unreadable) lines.push(`credential guard: could not read ${source}`);
  return lines;
}

/** True when the report proves the run clean. */
export function reportPassed(report: GuardReport): boolean {
  return report.error === undefined && report.findings.length === 0;
}

export function writeReport(path: string, report: GuardReport): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
}

/** Every credential a kubeconfig file holds, as the client registers them. */
export function kubeconfigCredentials(path: string, name: string): KnownCredential[] {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(path);
  return credentialsOf(kubeConfig).map(({ user, field, value }) => ({ origin: `${name} kubeconfig user "${user}" ${field}`, value }));
}

/**
 * The credentials the run generated and recorded next to `logDir`
 * (recordE2eCredentials: a Platform's tenant passwords, the chaos run's
 * generated input), once each.
 */
export function generatedCredentials(logDir: string | undefined): KnownCredential[] {
  // Without a log directory there is no record: e2eCredentialsDir would fall back to this process's.
  if (logDir === undefined) return [];
  const found = new Map<string, KnownCredential>();
  for (const { origin, value } of recordedE2eCredentials(e2eCredentialsDir(logDir))) {
    if (!found.has(value)) found.set(value, { origin: `generated ${origin}`, value });
  }
  return [...found.values()];
}

const CREDENTIAL_LITERAL = /\b(accessKey|secretKey|securityToken|password)\s*:\s*"([^"\\\n]+)"/g;

/**
 * The fake OTC credentials of the test sources: `accessKey`, `secretKey`,
 * `securityToken` and `password` string literals in the TypeScript under `dirs`
 * (relative to `root`). Reading them from the sources, rather than keeping
 * a list, covers the next fixture too.
 */
export function fixtureCredentials(root: string, dirs: readonly string[]): KnownCredential[] {
  const found = new Map<string, KnownCredential>();
  for (const file of dirs.flatMap((dir) => typeScriptFiles(join(root, dir)))) {
    for (const [, field, value] of readFileSync(file, "utf8").matchAll(CREDENTIAL_LITERAL)) {
      if (value === undefined || value.length < MIN_SECRET_LENGTH || found.has(value)) continue;
      found.set(value, { origin: `OTC ${field} of ${relative(root, file)}`, value });
    }
  }
  return [...found.values()];
}

function typeScriptFiles(dir: string): string[] {
  return filesUnder(dir, (name) => name !== "node_modules" && name !== "dist").filter((path) => path.endsWith(".ts") && !path.endsWith(".d.ts"));
}

/** Every file under `dir`, recursively, in the folders `enter` accepts (a missing directory has none). */
function filesUnder(dir: string, enter: (name: string) => boolean = () => true): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return enter(entry.name) ? filesUnder(path, enter) : [];
    return entry.isFile() ? [path] : [];
  });
}

/** What a source yielded, and what it could not read. */
export interface Collected {
  readonly texts: ScannedText[];
  readonly unreadable: string[];
}

interface ApiResource {
  name: string;
  verbs?: string[];
}

interface ApiGroupList {
  groups: { name: string; preferredVersion?: { groupVersion: string } }[];
}

const PAGE = 500;

/** Every Event under `client` (all namespaces; on kcp, `/clusters/*` for all clusters). */
export async function eventTexts(client: RestClient, server: string): Promise<ScannedText[]> {
  const events = await listAll(client, "/api/v1/events");
  return events.map((event) => ({ where: `${server} Event ${objectName(event)} (${String(event.reason)})`, text: JSON.stringify(event) }));
}

/** The status of every object of every resource with a status subresource. */
export async function statusTexts(client: RestClient, server: string): Promise<Collected> {
  const collected: Collected = { texts: [], unreadable: [] };
  for (const collection of await statusCollections(client)) {
    let items: KubeObject[];
    try {
      items = await listAll(client, collection);
    } catch (err) {
      // Discovery can list a kind a moment longer than it is served (a CRD or binding going away): nothing to read there.
      if (err instanceof HttpStatusError && err.status === 404) continue;
      collected.unreadable.push(`${server} ${collection}: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    for (const item of items) {
      if (item.status === undefined) continue;
      collected.texts.push({ where: `${server} ${collection} ${objectName(item)} status`, text: JSON.stringify(item.status) });
    }
  }
  return collected;
}

/** Collection paths (`/api/v1/nodes`, `/apis/g/v/widgets`) of resources that have a status and can be listed. */
async function statusCollections(client: RestClient): Promise<string[]> {
  const groups = await client.get<ApiGroupList>("/apis");
  const versions = ["/api/v1", ...groups.groups.flatMap((group) => (group.preferredVersion ? [`/apis/${group.preferredVersion.groupVersion}`] : []))];
  const collections: string[] = [];
  for (const prefix of versions) {
    const { resources } = await client.get<{ resources: ApiResource[] }>(prefix);
    const listable = new Set(resources.filter((resource) => resource.verbs?.includes("list")).map((resource) => resource.name));
    for (const resource of resources) {
      const [name, subresource] = resource.name.split("/");
      if (subresource === "status" && name !== undefined && listable.has(name)) collections.push(`${prefix}/${name}`);
    }
  }
  return collections;
}

async function listAll(client: RestClient, path: string): Promise<KubeObject[]> {
  const items: KubeObject[] = [];
  let token: string | undefined;
  do {
    const page = await client.list(path, { query: { limit: PAGE, continue: token } });
    items.push(...page.items);
    token = page.metadata.continue || undefined;
  } while (token !== undefined);
  return items;
}

function objectName(object: KubeObject): string {
  const cluster = clusterOf(object);
  const namespace = object.metadata?.namespace;
  return [cluster, namespace, object.metadata?.name ?? "?"].filter((part) => part !== undefined && part !== "").join("/");
}

/** Every file under `dir`, recursively, as a text to scan. */
export function logTexts(dir: string, label: (path: string) => string = (path) => path): ScannedText[] {
  return filesUnder(dir).map((path) => ({ where: label(path), text: readFileSync(path, "utf8") }));
}

/** The `*.log` files directly in `dir`: a server's own log, next to its state. */
export function serverLogTexts(dir: string): ScannedText[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((name) => name.endsWith(".log")).map((name) => ({ where: join(dir, name), text: readFileSync(join(dir, name), "utf8") }));
}
