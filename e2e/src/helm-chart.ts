/**
 * What the chart tests share: rendering a chart of deploy/ with the
 * repository's pinned helm (`pnpm binaries helm`, or HELM_BIN), and
 * server-side dry-runs of what it renders against a real API server, so that
 * a chart is checked by the API server that will read it rather than by our
 * idea of its schema.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { objectPath, parseManifests, resolveBinary } from "@edgeconnect/testenv";

export const run = promisify(execFile);

export interface HelmChartOptions {
  /** The chart's directory. */
  readonly chart: string;
  readonly release: string;
  /** Where `template` renders when the caller names no namespace. */
  readonly namespace: string;
  /** Prefix of the scratch directory (values files, helm's homes). */
  readonly scratchPrefix: string;
}

/**
 * One chart under test. The scratch directory exists from construction on;
 * call `init()` (resolves helm) in beforeAll and `close()` in afterAll.
 */
export class HelmChart {
  readonly chart: string;
  readonly release: string;
  readonly scratch: string;
  /**
   * helm keeps its repositories and caches under these; the tests use none,
   * and must not write into the home directory.
   */
  readonly env: NodeJS.ProcessEnv;
  private helmBin: string | undefined;
  private valuesFiles = 0;

  constructor(private readonly options: HelmChartOptions) {
    this.chart = options.chart;
    this.release = options.release;
    this.scratch = mkdtempSync(join(tmpdir(), options.scratchPrefix));
    this.env = {
      ...process.env,
      HELM_CACHE_HOME: join(this.scratch, "helm-cache"),
      HELM_CONFIG_HOME: join(this.scratch, "helm-config"),
      HELM_DATA_HOME: join(this.scratch, "helm-data"),
    };
  }

  /** Finds the pinned helm, waiting for the build scripts/test.sh runs in the background (or building it when none runs). */
  async init(): Promise<void> {
    this.helmBin = (await resolveBinary("helm")).path;
  }

  close(): void {
    rmSync(this.scratch, { recursive: true, force: true });
  }

  get bin(): string {
    if (this.helmBin === undefined) throw new Error("HelmChart.init() has not run");
    return this.helmBin;
  }

  /** Values go in as a JSON file so that types survive (helm's --set guesses them). */
  valuesFile(values: object): string {
    const path = join(this.scratch, `values-${this.valuesFiles++}.json`);
    writeFileSync(path, JSON.stringify(values));
    return path;
  }

  async output(args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
    return run(this.bin, [...args], { env: this.env, maxBuffer: 16 * 1024 * 1024 });
  }

  async helm(args: readonly string[]): Promise<string> {
    return (await this.output(args)).stdout;
  }

  /** helm's output (stdout, then stderr) for a command that must fail; throws if it succeeds. */
  async failure(args: readonly string[]): Promise<string> {
    try {
      await this.helm(args);
    } catch (err) {
      const { stdout = "", stderr = String(err) } = err as { stdout?: string; stderr?: string };
      return `${stdout}${stderr}`;
    }
    throw new Error(`helm ${args.join(" ")} succeeded but should have failed`);
  }

  templateArgs(values: object, options: { namespace?: string; showOnly?: string } = {}): string[] {
    const args = ["template", this.release, this.chart, "--namespace", options.namespace ?? this.options.namespace, "-f", this.valuesFile(values)];
    if (options.showOnly !== undefined) args.push("--show-only", options.showOnly);
    return args;
  }

  async template(values: object, options: { namespace?: string; showOnly?: string } = {}): Promise<KubeObject[]> {
    return parseManifests(await this.helm(this.templateArgs(values, options)));
  }

  /** What `helm template` says when it must refuse these values. */
  async templateFailure(values: object, options: { namespace?: string; showOnly?: string } = {}): Promise<string> {
    return this.failure(this.templateArgs(values, options));
  }
}

export function only<T extends KubeObject>(objects: readonly KubeObject[], kind: string): T {
  const found = objects.filter((obj) => obj.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, rendered ${found.length}`);
  return found[0] as T;
}

/** POST with dryRun=All and strict field validation: validation, defaulting and admission, nothing stored. */
export async function dryRunCreate(client: RestClient, obj: KubeObject): Promise<KubeObject> {
  const path = await objectPath(client, obj);
  const collection = path.slice(0, path.lastIndexOf("/"));
  return client.request<KubeObject>("POST", collection, { body: obj, query: { dryRun: "All", fieldValidation: "Strict" } });
}

/** Dry-runs each object in turn; the API server's answers, in order. */
export async function dryRunAll(client: RestClient, objects: readonly KubeObject[]): Promise<KubeObject[]> {
  const accepted: KubeObject[] = [];
  for (const obj of objects) accepted.push(await dryRunCreate(client, obj));
  return accepted;
}

/** The API server's refusal; fails if it accepted. */
export async function rejection(promise: Promise<unknown>): Promise<HttpStatusError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof HttpStatusError) return err;
    throw err;
  }
  throw new Error("the API server accepted what it should have rejected");
}
