/**
 * `pnpm bench:ccm`: the OTC cloud controller manager's service controller
 * under load, against a local kube-apiserver and the OTC simulator.
 *
 * The controller runs in this process wired as the controller manager wires
 * it (Stores filled by Reflectors on /api/v1/nodes and /api/v1/services, the
 * shared and dedicated ELB drivers with their default polling, an
 * EventRecorder, an OtcClient with its default retries), with
 * `--syncs` concurrent syncs and a `--resync-ms` resync period. `--nodes`
 * Nodes with an InternalIP exist before it starts. Then, in order:
 *
 * 1. burst: `--services` LoadBalancer Services (TCP 80 + UDP 53) created at
 *    once; create → `status.loadBalancer.ingress` per Service, seen by a
 *    watch of our own; OTC requests from the simulator's request log; memory.
 * 2. steady: one resync period with everything in step: OTC GETs per
 *    Service, OTC writes (must be none), Kubernetes writes.
 * 3. node churn: one more Node; time until every pool has it as a member.
 * 4. faults: a fifth as many Services again while one ELB POST in 20 is
 *    answered 500; convergence, then exactly one LB and one EIP per Service.
 * 5. delete: every Service at once; time until all are gone and until the
 *    simulator holds nothing.
 *
 * The simulator keeps LBs and EIPs PENDING_* for `--transition-ms` (default
 * 200 ms); real OTC takes seconds, so real latencies are higher, the request
 * counts per Service about the same (plus the polls of the longer waits). A
 * table goes to stdout, progress to stderr, every figure to a JSON file.
 *
 * The drivers poll a busy LB every second (their default), so each LB change
 * costs about a second however short `--transition-ms` is: with the default
 * 200 ms, `--services 10 --nodes 3` takes about 6 minutes at one sync, 2 at
 * `--syncs 8`; `--transition-ms 0` makes it a 30-second smoke run.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import {
  DedicatedLoadBalancerDriver,
  eipAlias,
  loadBalancerName,
  NODES_PATH,
  serviceController,
  SERVICES_PATH,
  SharedLoadBalancerDriver,
  type LoadBalancerConfig,
  type Node,
  type Service,
} from "@edgeconnect/cloud-provider-otc";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import { OtcClient, type Credentials } from "@edgeconnect/otc";
import { startOtcSimulator, type OtcSimulator, type RequestLogEntry } from "@edgeconnect/otc-simulator";
import { createLogger, EventRecorder, Reflector, RuntimeMetrics, Store, type Controller, type DeepReadonly, type EventClient } from "@edgeconnect/runtime";
import { KubeApiServer, Reaper, REPO_ROOT, resolveBinary, resolveControlPlaneBinaries } from "@edgeconnect/testenv";
import { parseCcmFlags, type CcmBenchFlags } from "./ccm-flags.js";
import {
  latencyFigures,
  problems,
  renderCcmTable,
  type BurstPhase,
  type ChurnPhase,
  type DeletePhase,
  type FaultPhase,
  type LatencyFigures,
  type LeakFigures,
  type Leftovers,
  type MemoryFigures,
  type OtcFigures,
  type SteadyPhase,
} from "./ccm-report.js";
import { pool, Probe, retries, sleep, Tracker, withRetry } from "./measure.js";

const CLUSTER = "bench";
const NAMESPACE = "ccm-bench";
const SERVICES = `/api/v1/namespaces/${NAMESPACE}/services`;
const REGION = "eu-de";
const PROJECT = { id: "c0ffee00000000000000000000000001", name: REGION };
const CREDENTIALS: Credentials = { accessKey: "CCMBENCHACCESSKEY001", secretKey: "ccm-bench-secret" };
const SUBNET = {
  vpcSubnetId: "b1111111-1111-4111-8111-111111111111",
  neutronSubnetId: "b2222222-2222-4222-8222-222222222222",
  neutronNetworkId: "b3333333-3333-4333-8333-333333333333",
  cidr: "192.168.0.0/16",
};
const LB_CONFIG: LoadBalancerConfig = {
  subnetId: SUBNET.neutronSubnetId,
  networkId: SUBNET.neutronNetworkId,
  bandwidthMbit: 100,
  availabilityZones: [`${REGION}-01`],
};
/** Client-side creates in flight at once. */
const CREATE_CONCURRENCY = 16;
/** Settled: nothing queued, and no OTC or Service write for this long. */
const QUIET_MS = 2_000;
/** One ELB POST in this many is answered 500 in the fault phase: 5%. */
const FAULT_EVERY = 20;
const ELB_V2 = "/v2.0/lbaas";
/**
 * The test environment's kube-apiserver serves Services from a /24; its
 * own `kubernetes` Service takes one address.
 */
const MAX_SERVICES = 250;

const t0 = performance.now();
const log = (message: string): boolean => process.stderr.write(`[ccm ${String(Math.round(performance.now() - t0)).padStart(7)} ms] ${message}\n`);

/** What setup started, stopped last-started first whatever failed; a failing step is logged, the rest still run. */
class Teardown {
  private readonly steps: { readonly what: string; readonly run: () => Promise<unknown> | void }[] = [];

  add(what: string, run: () => Promise<unknown> | void): void {
    this.steps.push({ what, run });
  }

  async run(): Promise<void> {
    for (let step = this.steps.pop(); step !== undefined; step = this.steps.pop()) {
      await Promise.resolve()
        .then(step.run)
        .catch((err: unknown) => log(`teardown: ${step?.what ?? "?"} failed: ${String(err)}`));
    }
  }
}

/** JSON has no NaN or Infinity; null stands for a figure without samples. */
const finiteOrNull = (_key: string, value: unknown): unknown => (typeof value === "number" && !Number.isFinite(value) ? null : value);

const keyOf = (obj: DeepReadonly<KubeObject>): string => `${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`;
const memory = (): MemoryFigures => {
  const { rss, heapUsed } = process.memoryUsage();
  return { rssBytes: rss, heapUsedBytes: heapUsed };
};

/** The running setup every phase works on, and the counters the phases read. */
class Bench {
  readonly tracker = new Tracker();
  readonly writes = { service: 0, events: 0 };
  /** What our own watch has seen: the Services, as the phases check them. */
  readonly observed = new Store<Service>();
  /** Set once the controller exists: `settled` reads its queue. */
  controller: Controller | undefined;
  private nodeCount = 0;

  constructor(
    readonly flags: CcmBenchFlags,
    readonly kube: RestClient,
    readonly sim: OtcSimulator,
    readonly metrics: RuntimeMetrics,
  ) {}

  /** The controller's client: counts its writes (finalizers, status) as the integration test does. */
  controllerClient(): Pick<RestClient, "request" | "apply"> {
    const { kube, writes } = this;
    return {
      request: (method, path, options) => {
        if (method !== "GET") writes.service++;
        return kube.request(method, path, options);
      },
      apply: (path, body, fieldManager) => {
        writes.service++;
        return kube.apply(path, body, fieldManager);
      },
    };
  }

  /** The EventRecorder's client: counts Event creates and patches. */
  eventClient(): EventClient {
    const { kube, writes } = this;
    return {
      create: (path, body) => {
        writes.events++;
        return kube.create(path, body);
      },
      request: (method, path, options) => {
        if (method !== "GET") writes.events++;
        return kube.request(method, path, options);
      },
    };
  }

  /** Our watch's handlers: a Service seen with an ingress or seen deleted completes its tracked key. */
  watchHandlers(): { added: (svc: Service) => void; updated: (old: Service, svc: Service) => void; deleted: (svc: Service) => void } {
    const ingress = (svc: Service): void => {
      if ((svc.status?.loadBalancer?.ingress ?? []).length > 0) this.tracker.complete(`ingress|${keyOf(svc)}`);
    };
    return { added: ingress, updated: (_, svc) => ingress(svc), deleted: (svc) => this.tracker.complete(`gone|${keyOf(svc)}`) };
  }

  /** A Node with an InternalIP, as a kubelet registers it (status is a subresource). */
  async addNode(): Promise<string> {
    const index = this.nodeCount++;
    const name = `bench-node-${index}`;
    const address = `192.168.${1 + Math.floor(index / 250)}.${1 + (index % 250)}`;
    await withRetry(`create node ${name}`, () => this.kube.create(NODES_PATH, { apiVersion: "v1", kind: "Node", metadata: { name } }));
    await withRetry(`patch node ${name} status`, () =>
      this.kube.request("PATCH", `${NODES_PATH}/${name}/status`, {
        body: { status: { addresses: [{ type: "InternalIP", address }, { type: "Hostname", address: name }] } },
        contentType: "application/merge-patch+json",
      }),
    );
    return address;
  }

  /** Creates `count` Services named `<prefix>-<i>` at once; resolves when our watch saw all their ingresses. */
  async burst(prefix: string, count: number): Promise<{ latency: LatencyFigures; start: number }> {
    const probe = new Probe(`${prefix} burst`);
    const start = performance.now();
    await pool(count, CREATE_CONCURRENCY, async (i) => {
      const name = `${prefix}-${i}`;
      this.tracker.expect(`ingress|${NAMESPACE}/${name}`, probe);
      await withRetry(`create service ${name}`, () =>
        this.kube.create<Service>(SERVICES, {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name },
          spec: {
            type: "LoadBalancer",
            selector: { app: name },
            ports: [
              { name: "http", protocol: "TCP", port: 80 },
              { name: "dns", protocol: "UDP", port: 53 },
            ],
          },
        }),
      );
    });
    // Syncs take seconds each: a line every 30 s shows a long burst is moving.
    const progress = setInterval(() => log(`${prefix}: ${probe.latencies.length}/${count} ingresses`), 30_000);
    try {
      // A sync of a Service on many nodes can take minutes (a wait per member); no progress for 10 min is a stall.
      await probe.drained(undefined, 600_000);
    } finally {
      clearInterval(progress);
    }
    return { latency: latencyFigures(probe.latencies, probe.spanMs()), start };
  }

  /**
   * Waits until the controller is idle: nothing queued, and neither a
   * mutating OTC request nor a Service write for QUIET_MS. Returns when the
   * last activity was, in ms after `since`.
   */
  async settled(since: number, timeoutMs = 600_000): Promise<number> {
    const called = performance.now();
    let last = called;
    let scanned = this.sim.faults.requests.length;
    let writes = this.writes.service;
    for (;;) {
      const now = performance.now();
      const requests = this.sim.faults.requests;
      if (requests.slice(scanned).some((request) => request.method !== "GET")) last = now;
      scanned = requests.length;
      if (this.writes.service !== writes || (this.controller?.queue.length ?? 0) > 0) last = now;
      writes = this.writes.service;
      if (now - last >= QUIET_MS) return last - since;
      if (now - called > timeoutMs) throw new Error(`controller not settled after ${timeoutMs / 1000} s`);
      await sleep(20);
    }
  }

  /** OTC requests logged from index `from` on (to now), per Service of `services`. */
  otc(from: number, services: number, to = this.sim.faults.requests.length): OtcFigures {
    const window: readonly RequestLogEntry[] = this.sim.faults.requests.slice(from, to);
    const byMethod: Record<string, number> = {};
    for (const request of window) byMethod[request.method] = (byMethod[request.method] ?? 0) + 1;
    const tally = (requests: readonly RequestLogEntry[], withStatus: boolean): Record<string, number> => {
      const counts: Record<string, number> = {};
      for (const { method, path, status } of requests) {
        const kind = `${method} ${path.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}/g, "{id}")}${withStatus ? ` ${status}` : ""}`;
        counts[kind] = (counts[kind] ?? 0) + 1;
      }
      return counts;
    };
    const errorKinds = tally(
      window.filter((request) => request.status >= 400),
      true,
    );
    const gets = byMethod.GET ?? 0;
    const mutating = window.length - gets;
    return {
      total: window.length,
      gets,
      mutating,
      errors: Object.values(errorKinds).reduce((sum, n) => sum + n, 0),
      errorKinds,
      byKind: tally(window, false),
      byMethod,
      perService: window.length / services,
      getsPerService: gets / services,
      mutatingPerService: mutating / services,
    };
  }

  /** Each Service we see must own exactly one LB (by name) and one EIP (by alias). */
  leaks(): LeakFigures {
    const tally = (names: Iterable<string | undefined>): Map<string | undefined, number> => {
      const counts = new Map<string | undefined, number>();
      for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
      return counts;
    };
    const { state } = this.sim;
    const lbs = tally([...state.loadbalancers.values()].map((lb) => lb.name));
    const eips = tally([...state.eips.values()].map((eip) => eip.alias));
    const services = this.observed.list();
    const off = (counts: Map<string | undefined, number>, key: (svc: DeepReadonly<Service>) => string): string[] =>
      services.filter((svc) => counts.get(key(svc)) !== 1).map((svc) => `${keyOf(svc)}: ${counts.get(key(svc)) ?? 0}`);
    return {
      servicesChecked: services.length,
      notOneLoadBalancer: off(lbs, (svc) => loadBalancerName(CLUSTER, svc.metadata?.namespace ?? "", svc.metadata?.name ?? "")),
      notOneEip: off(eips, (svc) => eipAlias(svc.metadata?.uid ?? "")),
      loadBalancers: state.loadbalancers.size,
      eips: state.eips.size,
    };
  }

  leftovers(): Leftovers {
    return this.sim.state.counts();
  }

  /** controller_runtime_reconcile_total over every result. */
  async reconciles(): Promise<number> {
    const metric = this.metrics.registry.getSingleMetric("controller_runtime_reconcile_total");
    const values = (await metric?.get())?.values ?? [];
    return values.reduce((sum, sample) => sum + sample.value, 0);
  }
}

/**
 * Answers one ELB POST in FAULT_EVERY with 500 while it runs: after every
 * FAULT_EVERY - 1 answered POSTs it arms one failure, and counts it when the
 * 500 shows in the request log.
 */
class FaultInjector {
  injected = 0;
  elbPosts = 0;
  private armed = false;
  private sinceLast = 0;
  private scanned: number;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly sim: OtcSimulator) {
    this.scanned = sim.faults.requests.length;
    this.timer = setInterval(() => this.tick(), 2);
  }

  private tick(): void {
    const requests = this.sim.faults.requests;
    for (const request of requests.slice(this.scanned)) {
      if (request.method !== "POST" || !request.path.startsWith(ELB_V2)) continue;
      this.elbPosts++;
      if (this.armed && request.status === 500) {
        this.armed = false;
        this.injected++;
      } else {
        this.sinceLast++;
      }
    }
    this.scanned = requests.length;
    if (!this.armed && this.sinceLast >= FAULT_EVERY - 1) {
      this.sim.faults.failNext({ method: "POST", pathPrefix: ELB_V2 }, 500);
      this.armed = true;
      this.sinceLast = 0;
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.tick();
    this.sim.faults.clear();
  }
}

async function main(teardown: Teardown): Promise<void> {
  const flags = parseCcmFlags(process.argv.slice(2));
  const faultServices = Math.max(1, Math.round(flags.services / 5));
  if (flags.services + faultServices > MAX_SERVICES) {
    throw new Error(`--services ${flags.services} plus ${faultServices} in the fault phase exceed the ${MAX_SERVICES} ClusterIPs of the test kube-apiserver's /24`);
  }
  const startedAt = new Date();
  const out = resolve(flags.out ?? join(REPO_ROOT, ".cache", "bench", `ccm-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`));

  // Setup: kube-apiserver, simulator, nodes.
  const reaper = Reaper.start();
  teardown.add("stop the reaper", () => reaper.close());
  const cluster = await KubeApiServer.start({ ...(await resolveControlPlaneBinaries({ log })), reaper });
  // Resolved above already: this only reads its version, for the report.
  const apiserverBinary = await resolveBinary("kube-apiserver", { build: false });
  teardown.add("stop kube-apiserver", () => cluster.stop());
  const kube = cluster.adminClient();
  teardown.add("close Kubernetes connections", () => kube.close());
  log(`kube-apiserver ${apiserverBinary.version} up at ${cluster.url}`);
  const sim = await startOtcSimulator({ credentials: [CREDENTIALS], projects: [PROJECT], region: REGION, transitionDelayMs: flags.transitionMs });
  teardown.add("stop the OTC simulator", () => sim.close());
  sim.addSubnet(SUBNET);
  // The product's OtcClient, default retries included (the fault phase relies on them as the product does).
  const otc = new OtcClient({ credentials: CREDENTIALS, region: REGION, projectId: PROJECT.id, endpoints: sim.endpoints });
  teardown.add("close OTC connections", () => otc.close());
  await kube.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } });
  const bench = new Bench(flags, kube, sim, new RuntimeMetrics());
  for (let i = 0; i < flags.nodes; i++) await bench.addNode();
  log(`${flags.nodes} nodes registered`);

  // The service controller, wired as runControllerManager wires it.
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? "fatal", destination: process.stderr });
  const recorder = new EventRecorder({ client: bench.eventClient(), component: "cloud-controller-manager", instance: "ccm-bench", logger });
  const services = new Store<Service>();
  const nodes = new Store<Node>();
  const part = serviceController({
    client: bench.controllerClient(),
    services,
    nodes,
    drivers: {
      shared: new SharedLoadBalancerDriver(otc),
      dedicated: new DedicatedLoadBalancerDriver(otc, { availabilityZones: LB_CONFIG.availabilityZones }),
    },
    config: LB_CONFIG,
    clusterName: CLUSTER,
    recorder,
    logger,
    metrics: bench.metrics,
    concurrentServiceSyncs: flags.syncs,
    resyncPeriodMs: flags.resyncMs,
  });
  bench.controller = part.controller;
  const reflectors = [
    new Reflector<Node>({ client: kube, path: NODES_PATH, store: nodes, handlers: part.nodeHandlers, logger }),
    new Reflector<Service>({ client: kube, path: SERVICES_PATH, store: services, handlers: part.serviceHandlers, logger }),
    // Ours, for the measurements.
    new Reflector<Service>({ client: kube, path: SERVICES, store: bench.observed, handlers: bench.watchHandlers(), logger }),
  ] as Reflector<KubeObject>[];
  for (const reflector of reflectors) void reflector.start();
  teardown.add("stop reflectors", () => Promise.all(reflectors.map((reflector) => reflector.stop())));
  await Promise.all(reflectors.map((reflector) => reflector.synced));
  const stop = new AbortController();
  const running = part.controller.start(stop.signal);
  teardown.add("stop the controller", async () => {
    stop.abort();
    await running;
    await recorder.flush();
  });
  log(`service controller started: ${flags.syncs} concurrent syncs, resync every ${flags.resyncMs} ms, simulator transitions ${flags.transitionMs} ms`);

  // 1. Burst.
  const memoryBefore = memory();
  let mark = sim.faults.requests.length;
  const first = await bench.burst("svc", flags.services);
  log(`burst: ${flags.services} ingresses in ${first.latency.spanMs.toFixed(0)} ms (p50 ${first.latency.p50Ms.toFixed(0)} ms)`);
  const burst: BurstPhase = {
    latency: first.latency,
    settledMs: await bench.settled(first.start),
    otc: bench.otc(mark, flags.services),
    memoryBefore,
    memoryAfter: memory(),
  };
  log(`burst: settled after ${burst.settledMs.toFixed(0)} ms`);

  // 2. Steady state: one resync period.
  mark = sim.faults.requests.length;
  const writesBefore = { ...bench.writes };
  const reconcilesBefore = await bench.reconciles();
  await sleep(flags.resyncMs);
  const steady: SteadyPhase = {
    windowMs: flags.resyncMs,
    otc: bench.otc(mark, flags.services),
    kubeWrites: { service: bench.writes.service - writesBefore.service, events: bench.writes.events - writesBefore.events },
    reconciles: (await bench.reconciles()) - reconcilesBefore,
  };
  log(`steady: ${steady.otc.gets} GETs, ${steady.otc.mutating} other OTC requests, ${steady.reconciles} reconciles`);

  // 3. Node churn.
  mark = sim.faults.requests.length;
  const churnStart = performance.now();
  const address = await bench.addNode();
  const pools = sim.state.pools.size;
  for (;;) {
    const holding = new Set([...sim.state.members.values()].filter((member) => member.address === address).map((member) => member.poolId));
    if ([...sim.state.pools.keys()].every((id) => holding.has(id))) break;
    if (performance.now() - churnStart > 600_000) throw new Error(`node churn: ${holding.size}/${pools} pools hold the new node after 600 s`);
    await sleep(10);
  }
  const convergedMs = performance.now() - churnStart;
  const churnSettledMs = await bench.settled(churnStart);
  const churn: ChurnPhase = { pools, convergedMs, settledMs: churnSettledMs, otc: bench.otc(mark, flags.services) };
  log(`node churn: ${pools} pools hold the new node after ${convergedMs.toFixed(0)} ms`);

  // 4. Faults.
  mark = sim.faults.requests.length;
  const injector = new FaultInjector(sim);
  let second: { latency: LatencyFigures; start: number };
  try {
    second = await bench.burst("flt", faultServices);
  } finally {
    injector.stop();
  }
  const faultSettledMs = await bench.settled(second.start);
  const faults: FaultPhase = {
    latency: second.latency,
    settledMs: faultSettledMs,
    elbPosts: injector.elbPosts,
    injected500s: injector.injected,
    otc: bench.otc(mark, faultServices),
    leaks: bench.leaks(),
  };
  log(`faults: ${faultServices} ingresses in ${second.latency.spanMs.toFixed(0)} ms, ${injector.injected} injected 500s`);

  // 5. Delete everything.
  mark = sim.faults.requests.length;
  const all = bench.observed.list();
  const deleteProbe = new Probe("delete");
  const deleteStart = performance.now();
  for (const svc of all) bench.tracker.expect(`gone|${keyOf(svc)}`, deleteProbe, deleteStart);
  await withRetry("delete every Service", () => kube.request("DELETE", SERVICES));
  await deleteProbe.drained(undefined, 600_000);
  let cloudEmptyMs = Number.NaN;
  for (let lastChange = performance.now(), left = bench.leftovers(); ; ) {
    const now = bench.leftovers();
    const total = Object.values(now).reduce((sum, n) => sum + n, 0);
    if (total === 0) {
      cloudEmptyMs = performance.now() - deleteStart;
      break;
    }
    if (JSON.stringify(now) !== JSON.stringify(left)) [lastChange, left] = [performance.now(), now];
    if (performance.now() - lastChange > 30_000) break;
    await sleep(20);
  }
  const removed: DeletePhase = {
    latency: latencyFigures(deleteProbe.latencies, deleteProbe.spanMs()),
    cloudEmptyMs,
    otc: bench.otc(mark, all.length),
    leftovers: bench.leftovers(),
  };
  log(`delete: ${all.length} Services gone after ${removed.latency.spanMs.toFixed(0)} ms`);

  const phases = { burst, steady, churn, faults, delete: removed };
  const finishedAt = new Date();
  const result = {
    benchmark: "ccm",
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationSeconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
    parameters: { ...flags, out, faultServices, createConcurrency: CREATE_CONCURRENCY, quietMs: QUIET_MS, faultEvery: FAULT_EVERY },
    host: { node: process.version, os: `${process.platform}/${process.arch}`, cpus: cpus().map((cpu) => cpu.model).slice(0, 1).concat(`x${cpus().length}`), memBytes: totalmem() },
    kubeApiServer: apiserverBinary.version,
    ...phases,
    reconcileTotal: await bench.reconciles(),
    transientKubeRetries: retries.count,
    problems: problems(phases),
  };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, finiteOrNull, 2)}\n`);
  const loud = result.problems.map((line) => `!!! ${line}`).join("\n");
  process.stdout.write(
    `\nccm benchmark: ${flags.services} Services (+${faultServices} with faults), ${flags.nodes} nodes, ${flags.syncs} concurrent syncs, ` +
      `resync ${flags.resyncMs} ms, simulator transitions ${flags.transitionMs} ms; kube-apiserver ${apiserverBinary.version}; ${cpus().length} CPUs; node ${process.version}\n\n` +
      `${renderCcmTable(phases)}\n\n` +
      `${loud === "" ? "no leaks, no writes in the steady state" : loud}\nJSON: ${out}\n`,
  );
}

const teardown = new Teardown();
try {
  await main(teardown);
} catch (err) {
  process.stderr.write(`\nccm benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
} finally {
  await teardown.run();
  log(process.exitCode === 1 ? "failed" : "done");
}
