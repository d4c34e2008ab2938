/**
 * What a V8 CPU profile (`node --cpu-prof`, a `.cpuprofile` file) says about
 * where a process spent its time: samples by the package of their self
 * frame (the function running when the sample was taken), the share of
 * samples with a frame of one package anywhere on the stack (inclusive),
 * and the functions with the most self samples.
 *
 * The file is `{nodes, samples, timeDeltas, startTime, endTime}`: a call
 * tree whose nodes name a function (`callFrame`) and list their children's
 * ids, one node id per sample (the stack's top), and the microseconds
 * before each sample.
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

export interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  /** 0-based. */
  readonly lineNumber: number;
  readonly columnNumber?: number;
}

export interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
  readonly startTime?: number;
  readonly endTime?: number;
}

export interface PackageShare {
  /** `packages/<name>`, `node_modules/<name>`, `node:internal`, or V8's `(garbage collector)`, `(program)`, `(idle)`, `(native)`. */
  readonly package: string;
  readonly samples: number;
  /** Of all samples. */
  readonly share: number;
}

export interface FunctionShare {
  readonly functionName: string;
  /** Relative to the repository root when below it. */
  readonly file: string;
  /** 1-based, as editors count. */
  readonly line: number;
  readonly package: string;
  readonly selfSamples: number;
  readonly selfShare: number;
  /** Self time, from the sampling intervals. */
  readonly selfMs: number;
}

/**
 * A stretch of the profiled process's time, in its profile's clock: V8's
 * monotonic microseconds, on Linux the CLOCK_MONOTONIC that another Node
 * process reads as `process.hrtime.bigint() / 1000n`.
 */
export interface ProfileWindow {
  readonly fromMicros: number;
  readonly toMicros: number;
}

export interface SummaryOptions {
  readonly file: string;
  /** The package whose self and inclusive shares are asked for, e.g. `packages/redaction`. */
  readonly focus: string;
  /** File names are shown relative to this directory. */
  readonly root: string;
  /** How many functions and callers to list; default 10. */
  readonly top?: number;
  /** Only the samples taken in this window; default all. */
  readonly window?: ProfileWindow;
}

export interface ProfileSummary {
  readonly file: string;
  readonly window: ProfileWindow | null;
  readonly totalSamples: number;
  /** Samples of V8's `(idle)` node: the process waiting, not working. */
  readonly idleSamples: number;
  /** Time the profile covers. */
  readonly durationMs: number;
  readonly selfByPackage: readonly PackageShare[];
  /** The package asked about (e.g. `packages/redaction`): self, and with a frame anywhere on the stack. */
  readonly focus: {
    readonly package: string;
    readonly selfSamples: number;
    readonly selfShare: number;
    readonly inclusiveSamples: number;
    readonly inclusiveShare: number;
    /** Inclusive samples among the non-idle ones. */
    readonly inclusiveShareOfBusy: number;
    /** Who calls into the package: the frame below its outermost frame on each stack, by inclusive samples. */
    readonly callers: readonly CallerShare[];
  };
  readonly topSelf: readonly FunctionShare[];
}

export interface CallerShare {
  readonly functionName: string;
  readonly file: string;
  readonly line: number;
  readonly package: string;
  /** Samples with this caller below the package's outermost frame. */
  readonly samples: number;
  readonly share: number;
}

/**
 * The package a frame's script belongs to: the last `node_modules/<name>`
 * (scoped names included) of its path, else `packages/<name>` of this
 * repository, else `node:internal` for Node's own modules; frames without a
 * script are V8's pseudo-frames or native code.
 */
export function packageOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === "") return /^\(.*\)$/.test(functionName) ? functionName : "(native)";
  if (url.startsWith("node:")) return "node:internal";
  const modules = [...url.matchAll(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].at(-1);
  // A workspace package reached through its link (only with --preserve-symlinks) is still ours.
  if (modules?.[1]?.startsWith("@edgeconnect/") === true) return `packages/${modules[1].slice("@edgeconnect/".length)}`;
  if (modules?.[1] !== undefined) return `node_modules/${modules[1]}`;
  const workspace = /\/packages\/([^/]+)\//.exec(url);
  if (workspace?.[1] !== undefined) return `packages/${workspace[1]}`;
  return "(other)";
}

export function readCpuProfile(path: string): CpuProfile {
  return JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
}

export function summarizeProfile(profile: CpuProfile, options: SummaryOptions): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const { window } = options;

  // Per node: self samples, self microseconds (the interval until the next sample).
  // A sample's time is the profile's start plus the deltas up to and including its own.
  const selfCount = new Map<number, number>();
  const selfMicros = new Map<number, number>();
  let total = 0;
  let at = profile.startTime ?? 0;
  for (let i = 0; i < samples.length; i++) {
    at += deltas[i] ?? 0;
    if (window !== undefined && (at < window.fromMicros || at > window.toMicros)) continue;
    total++;
    const id = samples[i] as number;
    selfCount.set(id, (selfCount.get(id) ?? 0) + 1);
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + Math.max(0, deltas[i + 1] ?? 0));
  }

  // Whether a node has a frame of the focus package on its stack (itself or an ancestor), memoized.
  const inFocus = new Map<number, boolean>();
  const focusOnStack = (start: number): boolean => {
    const walked: number[] = [];
    let answer = false;
    for (let id: number | undefined = start; id !== undefined; id = parent.get(id)) {
      const known = inFocus.get(id);
      if (known !== undefined) {
        answer = known;
        break;
      }
      walked.push(id);
      const node = byId.get(id);
      if (node !== undefined && packageOf(node.callFrame) === options.focus) {
        answer = true;
        break;
      }
    }
    for (const id of walked) inFocus.set(id, answer);
    return answer;
  };

  /** The frame that called into the focus package on `start`'s stack (below its outermost focus frame); undefined without one. */
  const focusCaller = (start: number): ProfileNode | undefined => {
    let caller: ProfileNode | undefined;
    let inside = false;
    for (let id: number | undefined = start; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id);
      if (node === undefined) break;
      const focus = packageOf(node.callFrame) === options.focus;
      if (inside && !focus) {
        caller = node;
        inside = false;
      }
      if (focus) inside = true;
    }
    return caller;
  };

  const share = (count: number): number => (total === 0 ? Number.NaN : count / total);
  const packages = new Map<string, number>();
  const callers = new Map<string, { frame: CallFrame; samples: number }>();
  const functions = new Map<string, { frame: CallFrame; pkg: string; samples: number; micros: number }>();
  let idle = 0;
  let focusSelf = 0;
  let focusInclusive = 0;
  for (const [id, count] of selfCount) {
    const node = byId.get(id);
    if (node === undefined) continue;
    const pkg = packageOf(node.callFrame);
    packages.set(pkg, (packages.get(pkg) ?? 0) + count);
    if (pkg === "(idle)") idle += count;
    if (pkg === options.focus) focusSelf += count;
    if (focusOnStack(id)) {
      focusInclusive += count;
      const caller = focusCaller(id);
      if (caller !== undefined) {
        const key = frameKey(caller.callFrame);
        const entry = callers.get(key) ?? { frame: caller.callFrame, samples: 0 };
        entry.samples += count;
        callers.set(key, entry);
      }
    }
    const key = frameKey(node.callFrame);
    const entry = functions.get(key) ?? { frame: node.callFrame, pkg, samples: 0, micros: 0 };
    entry.samples += count;
    entry.micros += selfMicros.get(id) ?? 0;
    functions.set(key, entry);
  }

  const busy = total - idle;
  const start = Math.max(profile.startTime ?? Number.NaN, window?.fromMicros ?? Number.NEGATIVE_INFINITY);
  const end = Math.min(profile.endTime ?? Number.NaN, window?.toMicros ?? Number.POSITIVE_INFINITY);
  return {
    file: options.file,
    window: window ?? null,
    totalSamples: total,
    idleSamples: idle,
    durationMs: (end - start) / 1000,
    selfByPackage: [...packages]
      .map(([pkg, count]) => ({ package: pkg, samples: count, share: share(count) }))
      .sort((a, b) => b.samples - a.samples),
    focus: {
      package: options.focus,
      selfSamples: focusSelf,
      selfShare: share(focusSelf),
      inclusiveSamples: focusInclusive,
      inclusiveShare: share(focusInclusive),
      inclusiveShareOfBusy: busy === 0 ? Number.NaN : focusInclusive / busy,
      callers: [...callers.values()]
        .sort((a, b) => b.samples - a.samples)
        .slice(0, options.top ?? 10)
        .map(({ frame, samples: count }) => ({
          functionName: displayName(frame.functionName),
          file: displayFile(frame.url, options.root),
          line: frame.lineNumber + 1,
          package: packageOf(frame),
          samples: count,
          share: share(count),
        })),
    },
    topSelf: [...functions.values()]
      .sort((a, b) => b.samples - a.samples)
      .slice(0, options.top ?? 10)
      .map(({ frame, pkg, samples: count, micros }) => ({
        functionName: displayName(frame.functionName),
        file: displayFile(frame.url, options.root),
        line: frame.lineNumber + 1,
        package: pkg,
        selfSamples: count,
        selfShare: share(count),
        selfMs: micros / 1000,
      })),
  };
}

const frameKey = (frame: CallFrame): string => `${frame.functionName}\u0000${frame.url}\u0000${frame.lineNumber}`;

/**
 * V8 names a compiled regular expression's code `RegExp: <source>`; the
 * redaction registry's pattern is every registered credential, so only its
 * length is shown.
 */
function displayName(name: string): string {
  if (name === "") return "(anonymous)";
  if (name.startsWith("RegExp: ")) return `RegExp (source of ${name.length - "RegExp: ".length} characters)`;
  return name.length > 120 ? `${name.slice(0, 117)}...` : name;
}

function displayFile(url: string, root: string): string {
  if (url === "") return "(no script)";
  if (!url.startsWith("file:")) return url;
  const path = fileURLToPath(url);
  const rel = relative(root, path);
  return rel.startsWith("..") ? path : rel;
}
