/**
 * What goes wrong while the tenants order: a loop that, after each random
 * pause, injects OTC faults into the controller's own calls, cuts the
 * controller's connections to the infrastructure cluster, and SIGKILLs the
 * controller (the Platform starts a new one at once); on its second round it
 * restarts kcp instead, once.
 */
import type { Platform } from "@edgeconnect/demo";
import { requestMatches, type Faults, type RequestMatch } from "@edgeconnect/otc-simulator";
import type { StallingProxy } from "@edgeconnect/testenv";
import { sleep } from "../bench/measure.js";
import { errorText } from "../bench/platform-run.js";
import { between, type Random } from "./random.js";

export interface ChaosPhaseOptions {
  readonly random: Random;
  readonly killMinMs: number;
  readonly killMaxMs: number;
  readonly platform: Platform;
  /** Between the controller and the infrastructure cluster. */
  readonly proxy: StallingProxy;
  readonly restartKcp: () => Promise<void>;
  readonly log: (message: string) => void;
}

export interface ChaosFigures {
  readonly kills: number;
  readonly kcpRestarts: number;
  /** Rounds that cut connections, and how many connections were cut. */
  readonly connectionCuts: number;
  readonly connectionsCut: number;
  readonly faultsInjected: number;
  /** Injected faults by kind: 500, 429, lost answers. */
  readonly faultsByKind: readonly [number, number, number];
  /** Requests the simulator answered with an injected fault (status 500 or 429 on the faulted paths). */
  readonly faultsAnswered: number;
}

/** The controller's own OTC calls: IAM tokens and CCE cluster certificates. */
const FAULTED: readonly RequestMatch[] = [
  { method: "POST", pathPrefix: "/v3/auth/tokens" },
  { method: "POST", pathSuffix: "/clustercert" },
];

export class ChaosPhase {
  private stopped = false;
  private readonly loop: Promise<void>;
  private kills = 0;
  private kcpRestarts = 0;
  private connectionCuts = 0;
  private connectionsCut = 0;
  private readonly faults: [number, number, number] = [0, 0, 0];
  private readonly firstRequest: number;

  constructor(private readonly options: ChaosPhaseOptions) {
    this.firstRequest = options.platform.otc.faults.requests.length;
    this.loop = this.run();
  }

  /** Ends the loop after its current step; clears faults not yet answered. */
  async stop(): Promise<ChaosFigures> {
    this.stopped = true;
    await this.loop;
    this.options.platform.otc.faults.clear();
    const answered = this.options.platform.otc.faults.requests
      .slice(this.firstRequest)
      .filter((entry) => (entry.status === 500 || entry.status === 429) && FAULTED.some((match) => requestMatches(match, entry.method, entry.path))).length;
    return {
      kills: this.kills,
      kcpRestarts: this.kcpRestarts,
      connectionCuts: this.connectionCuts,
      connectionsCut: this.connectionsCut,
      faultsInjected: this.faults[0] + this.faults[1] + this.faults[2],
      faultsByKind: [...this.faults],
      faultsAnswered: answered,
    };
  }

  private async run(): Promise<void> {
    const { random, platform, log } = this.options;
    for (let round = 1; ; round++) {
      // Short slices, so that stop() does not wait out a whole pause.
      const until = Date.now() + between(random, this.options.killMinMs, this.options.killMaxMs);
      while (!this.stopped && Date.now() < until) await sleep(250);
      if (this.stopped) return;
      try {
        this.injectFaults(platform.otc.faults);
        if (round === 2 && this.kcpRestarts === 0) {
          log("chaos: restarting kcp");
          await this.options.restartKcp();
          this.kcpRestarts++;
          continue;
        }
        const cut = this.options.proxy.cutConnections();
        this.connectionCuts++;
        this.connectionsCut += cut;
        await platform.crashController();
        this.kills++;
        log(`chaos: round ${round}: cut ${cut} infrastructure connections, SIGKILLed the controller (${this.kills} so far)`);
      } catch (err) {
        log(`chaos: round ${round} failed: ${errorText(err)}`);
      }
    }
  }

  /** A few of each: errors, throttling, and answers lost after the request took effect. */
  private injectFaults(faults: Faults): void {
    for (const match of FAULTED) {
      faults.failNext(match, 500, 2);
      faults.failNext(match, 429, 2, { error_msg: "Too many requests", error_code: "APIGW.0308" });
      faults.failNextAfterEffect(match, 500, 1);
      this.faults[0] += 2;
      this.faults[1] += 2;
      this.faults[2] += 1;
    }
  }
}

