/**
 * `pnpm bench:redaction`: what redaction costs as the number of credential
 * values a process holds grows: 0, 1 000, 20 000 and 100 000 values (a
 * tenant's credential set is two: an access key and a secret key), then
 * one 1 MiB value.
 *
 * Per size, in a fresh process (`--expose-gc`, so memory is measured after
 * a collection): the cost of one more registration together with the first
 * scrub after it (an implementation may defer work to that scrub), a log
 * line's scrub with and without a held value in it, a whole log line
 * through the runtime's logger against bare pino, and the heap the values
 * take. `--module PATH` benches another build of `@edgeconnect/redaction`
 * (the one before a change, say) through the two functions every build
 * has, `registerSecret` and `scrubText`; the logger rows then stay empty.
 * Table on stdout, every figure in JSON (`--out`, default
 * `.cache/reports/bench-redaction.json`).
 */
import { fork } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { REPO_ROOT } from "@edgeconnect/testenv";
import { flagValues } from "./flags.js";
import { formatTable } from "./report.js";

const SIZES = [0, 1_000, 20_000, 100_000] as const;
/** A size's figures are given up on after this long in total (the implementation before this benchmark took seconds per registration). */
const SIZE_BUDGET_MS = 120_000;
const ONE_MIB = 1 << 20;

const USAGE = `usage: pnpm bench:redaction -- [--module PATH] [--out FILE]
  --module  the redaction build to bench (default: this workspace's @edgeconnect/redaction)
  --out     JSON result path (default .cache/reports/bench-redaction.json)`;

/** What one size measured; NaN where it was not measured (over budget, or no logger for --module). */
interface SizeFigures {
  readonly values: number;
  /** Registering the `values` values, in total. */
  readonly fillMs: number;
  /** One more registration and the first scrub after it, mean. */
  readonly registerUs: number;
  readonly scrubLineUs: number;
  readonly scrubLineWithSecretUs: number;
  readonly loggerLineUs: number;
  readonly barePinoLineUs: number;
  readonly heapMiB: number;
  /** Whether a line holding a held value came out without it. */
  readonly redacted: boolean;
  /** Why the size has no figures: the process measuring it failed (ran out of memory, threw). */
  readonly failed?: string;
}

interface ChildRequest {
  readonly module: string;
  readonly values: number;
  readonly largeValue: boolean;
}

/** A log line as the provider-controller writes one per reconcile. */
const LINE = JSON.stringify({
  level: "info",
  time: "2026-12-01T10:00:00.000Z",
  controller: "kubernetesclusters",
  cluster: "2abcdef3gh45",
  namespace: "default",
  name: "my-cluster",
  reconcileID: "3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c",
  done: false,
  msg: "teardown pass: waiting for NodePoolV3 my-cluster-pool to be deleted",
});

async function main(): Promise<void> {
  const flags = flagValues(process.argv.slice(2), ["module", "out"], USAGE);
  const module = flags.get("module") === undefined ? undefined : resolve(flags.get("module")!);
  const out = resolve(flags.get("out") ?? `${REPO_ROOT}/.cache/reports/bench-redaction.json`);
  const figures: SizeFigures[] = [];
  for (const values of SIZES) {
    process.stderr.write(`[bench:redaction] ${values} values\n`);
    figures.push(await inChild({ module: module ?? "@edgeconnect/redaction", values, largeValue: false }));
  }
  process.stderr.write("[bench:redaction] one 1 MiB value\n");
  const large = await inChild({ module: module ?? "@edgeconnect/redaction", values: 0, largeValue: true });
  console.log(render(figures, large, module));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ module: module ?? "workspace", line: LINE, sizes: figures, oneMiBValue: large }, null, 2)}\n`);
  process.stderr.write(`[bench:redaction] figures in ${out}\n`);
}

function render(figures: readonly SizeFigures[], large: SizeFigures, module: string | undefined): string {
  const us = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(value < 10 ? 2 : 0)} µs` : "n/a");
  const rows = [
    ["values held", "register + 1st scrub", "line, no secret", "line with secret", "logger line", "bare pino line", "heap", "redacted"],
    ...[...figures, large].map((size, index) => [
      index === figures.length ? "1 × 1 MiB" : String(size.values),
      us(size.registerUs),
      us(size.scrubLineUs),
      us(size.scrubLineWithSecretUs),
      us(size.loggerLineUs),
      us(size.barePinoLineUs),
      Number.isFinite(size.heapMiB) ? `${size.heapMiB.toFixed(1)} MiB` : "n/a",
      size.failed === undefined ? (size.redacted ? "yes" : "NO") : `failed: ${size.failed}`,
    ]),
  ];
  return `redaction (${module ?? "this workspace"}), a ${LINE.length}-character log line\n${formatTable(rows)}`;
}

function inChild(request: ChildRequest): Promise<SizeFigures> {
  return new Promise((resolvePromise, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ["--child", JSON.stringify(request)], { execArgv: ["--expose-gc"], serialization: "advanced", stdio: ["ignore", "inherit", "inherit", "ipc"] });
    child.once("message", (message) => resolvePromise(message as SizeFigures));
    child.once("error", reject);
    // A build that cannot hold this many values is a result, not a reason to stop.
    const failed = { fillMs: NaN, registerUs: NaN, scrubLineUs: NaN, scrubLineWithSecretUs: NaN, loggerLineUs: NaN, barePinoLineUs: NaN, heapMiB: NaN, redacted: false };
    child.once("exit", (code, signal) => resolvePromise({ values: request.values, ...failed, failed: `exited with ${code ?? signal}` }));
  });
}

interface RedactionBuild {
  registerSecret(value: unknown): void;
  scrubText(text: string): string;
}

async function measureInChild(request: ChildRequest): Promise<SizeFigures> {
  const started = performance.now();
  const build = (await import(request.module.startsWith("/") ? pathToFileURL(request.module).href : request.module)) as RedactionBuild;
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const fillStarted = performance.now();
  // Two values a tenant, shaped like OTC's access key (20 capitals and digits) and secret key (40 letters and digits), random as real ones are.
  for (let i = 0; i < request.values; i++) build.registerSecret(i % 2 === 0 ? randomText(20, i, ACCESS_KEY_ALPHABET) : randomText(40, i, SECRET_KEY_ALPHABET));
  const secret = request.largeValue ? randomText(ONE_MIB, 7) : `sk-bench-held-value-${randomText(20, 1)}`;
  build.registerSecret(secret);
  build.scrubText(LINE);
  const fillMs = performance.now() - fillStarted;
  gc();
  const heapMiB = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  const withinBudget = (): boolean => performance.now() - started < SIZE_BUDGET_MS;

  const scrubLineUs = meanMicros(withinBudget, 20_000, () => build.scrubText(LINE));
  const lineWithSecret = LINE.replace("my-cluster-pool", `my-cluster-pool ${request.largeValue ? "x" : secret}`);
  const scrubLineWithSecretUs = request.largeValue ? Number.NaN : meanMicros(withinBudget, 20_000, () => build.scrubText(lineWithSecret));
  const redacted = request.largeValue ? !build.scrubText(`<${secret}>`).includes(secret.slice(0, 64)) : !build.scrubText(lineWithSecret).includes(secret);
  const { loggerLineUs, barePinoLineUs } = request.module === "@edgeconnect/redaction" ? await loggerFigures(withinBudget) : { loggerLineUs: Number.NaN, barePinoLineUs: Number.NaN };
  // Last: a build that defers work to the first scrub after a registration may spend the whole budget here.
  const registerUs = meanMicros(withinBudget, 20, (i) => {
    build.registerSecret(`sk-bench-extra-${i}-${randomText(24, i + 100)}`);
    build.scrubText(LINE);
  });
  return { values: request.values, fillMs, registerUs, scrubLineUs, scrubLineWithSecretUs, loggerLineUs, barePinoLineUs, heapMiB, redacted };
}

/** A reconcile's log line (a child with the reconcile's bindings, one info line) through our logger and through bare pino. */
async function loggerFigures(withinBudget: () => boolean): Promise<{ loggerLineUs: number; barePinoLineUs: number }> {
  const { createLogger } = await import("@edgeconnect/runtime");
  const { pino } = await import("pino");
  const sink = { write: (): void => undefined };
  const ours = createLogger({ destination: sink });
  const bare = pino({ base: null, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } }, sink);
  const bindings = { controller: "kubernetesclusters", cluster: "2abcdef3gh45", namespace: "default", name: "my-cluster", reconcileID: "3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c" };
  const line = (logger: typeof bare) => (): void => logger.child(bindings).info({ done: false }, "teardown pass: waiting for NodePoolV3 my-cluster-pool to be deleted");
  return { loggerLineUs: meanMicros(withinBudget, 20_000, line(ours)), barePinoLineUs: meanMicros(withinBudget, 20_000, line(bare)) };
}

/** Mean microseconds of `run` over up to `count` runs (after a tenth as warm-up), fewer once the budget is spent. */
function meanMicros(withinBudget: () => boolean, count: number, run: (i: number) => void): number {
  for (let i = 0; i < Math.ceil(count / 10) && withinBudget(); i++) run(i);
  let runs = 0;
  const started = performance.now();
  while (runs < count && withinBudget()) run(count + runs++);
  return runs === 0 ? Number.NaN : ((performance.now() - started) * 1000) / runs;
}

const ACCESS_KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const SECRET_KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const BASE64_ALPHABET = `${SECRET_KEY_ALPHABET}+/`;

/** Deterministic text from `alphabet`: the same values in every run. */
function randomText(length: number, seed: number, alphabet = BASE64_ALPHABET): string {
  let state = (seed * 2654435761) >>> 0 || 1;
  const chars: string[] = [];
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    chars.push(alphabet[(state >>> 0) % alphabet.length]!);
  }
  return chars.join("");
}

if (process.argv[2] === "--child") {
  const request = JSON.parse(process.argv[3] ?? "{}") as ChildRequest;
  measureInChild(request).then(
    (figures) => process.send?.(figures, () => process.exit(0)),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
} else {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
