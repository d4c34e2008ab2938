/**
 * What goes wrong while the tenants order: a share of the controller's own
 * OTC calls is answered with faults throughout, and a loop, after each
 * random pause, cuts the controller's connections to the infrastructure
 * cluster, waits until the live controller has recovered from the cut (it
 * finished a change made after it, which it can only see through new
 * watches), and then SIGKILLs it (the Platform starts a new one at once);
 * on its second round it restarts kcp instead, once.
 */
import type { Platform } from "@edgeconnect/demo";
import type { Faults, RequestMatch } from "@edgeconnect/otc-simulator";
import { MANAGED_BY } from "@edgeconnect/provisioning";
import type { StallingProxy } from "@edgeconnect/testenv";
import { sleep } from "../bench/measure.js";
import { errorText } from "../bench/platform-run.js";
import { answeredFaults, type AnsweredFaults } from "./chaos-checks.js";
import { between, seededRandom, type Random } from "./random.js";

export interface ChaosPhaseOptions {
  readonly random: Random;
  readonly killMinMs: number;
  readonly killMaxMs: number;
  readonly platform: Platform;
  /** Between the controller and the infrastructure cluster. */
  readonly proxy: StallingProxy;
  readonly restartKcp: () => Promise<void>;
  /**
   * Called right after a cut: makes a change the controller can finish only
   * through its infrastructure watches, and resolves true once the live
   * controller has, false at its deadline.
   */
  readonly awaitRecovery: () => Promise<boolean>;
  readonly log: (message: string) => void;
}

export interface ChaosFigures {
  /** SIGKILLs that ended the controller (a new one was started after each). */
  readonly kills: number;
  readonly kcpRestarts: number;
  /** Rounds that cut connections, and how many connections were cut. */
  readonly connectionCuts: number;
  readonly connectionsCut: number;
  /** Cuts after which the same controller process finished a change made after the cut; and after which it did not in time. */
  readonly recoveries: number;
  readonly unrecovered: number;
  /** The share of the controller's faulted calls answered with each kind of fault. */
  readonly faultShares: typeof FAULT_SHARES;
  /** Faults the simulator answered to the controller (its User-Agent), from the request log. */
  readonly faultsAnswered: number;
  readonly faultsAnsweredByKind: AnsweredFaults;
}

/** The controller's own OTC calls, IAM tokens and CCE cluster certificates, told from the Crossplane simulator's by its User-Agent. */
const FAULTED: readonly RequestMatch[] = [
  { method: "POST", pathPrefix: "/v3/auth/tokens", agent: MANAGED_BY },
  { method: "POST", pathSuffix: "/clustercert", agent: MANAGED_BY },
];

/**
 * Of the controller's calls FAULTED names: errors, throttling, and answers
 * lost after the request took effect. Shares, not counts: counts armed
 * round after round all fell on the last callers left (a few clusters still
 * asking for their kubeconfigs), which then waited round after round for an
 * answer (the orders took 5 rounds in one run, 16 in another).
 */
const FAULT_SHARES = { errors: 0.15, throttled: 0.1, lost: 0.05 } as const;

/**
 * SIGKILLs the controller (the Platform starts a new one at once); true
 * when the old process ended by that signal and a new one runs.
 */
export async function killController(platform: Platform): Promise<boolean> {
  const before = platform.replica(0);
  await platform.crashController();
  const after = platform.replica(0);
  return (await before.exited).signal === "SIGKILL" && after !== before && after.running;
}

export class ChaosPhase {
  private stopped = false;
  private readonly loop: Promise<void>;
  private kills = 0;
  private kcpRestarts = 0;
  private connectionCuts = 0;
  private connectionsCut = 0;
  private recoveries = 0;
  private unrecovered = 0;
  private readonly firstRequest: number;

  constructor(private readonly options: ChaosPhaseOptions) {
    this.firstRequest = options.platform.otc.faults.requests.length;
    // A stream of its own, drawn at the pace of the calls: the kill intervals stay those of the seed.
    armFaults(options.platform.otc.faults, seededRandom(Math.floor(options.random() * 2 ** 32)));
    this.loop = this.run();
  }

  /** Ends the loop after its current round, and the faults. */
  async stop(): Promise<ChaosFigures> {
    this.stopped = true;
    await this.loop;
    this.options.platform.otc.faults.clear();
    const answered = answeredFaults(this.options.platform.otc.faults.requests.slice(this.firstRequest), MANAGED_BY);
    return {
      kills: this.kills,
      kcpRestarts: this.kcpRestarts,
      connectionCuts: this.connectionCuts,
      connectionsCut: this.connectionsCut,
      recoveries: this.recoveries,
      unrecovered: this.unrecovered,
      faultShares: FAULT_SHARES,
      faultsAnswered: answered.errors + answered.throttled + answered.lost,
      faultsAnsweredByKind: answered,
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
        if (round === 2 && this.kcpRestarts === 0) {
          log("chaos: restarting kcp");
          await this.options.restartKcp();
          this.kcpRestarts++;
          continue;
        }
        const cut = this.options.proxy.cutConnections();
        this.connectionCuts++;
        this.connectionsCut += cut;
        // A round once begun ends with its kill, also when stop() came meanwhile: a cut is never left unproven or unkilled.
        const started = Date.now();
        const live = platform.replica(0);
        // The same process, which the cut reached, must have finished the change: not a successor with fresh watches.
        const recovered = (await this.options.awaitRecovery()) && platform.replica(0) === live && live.running;
        if (recovered) this.recoveries++;
        else this.unrecovered++;
        const recoveredS = Math.round((Date.now() - started) / 100) / 10;
        const killed = await killController(platform);
        if (killed) this.kills++;
        log(`chaos: round ${round}: cut ${cut} infrastructure connections, the controller ${recovered ? "recovered" : "did NOT recover"} in ${recoveredS} s, ${killed ? "SIGKILLed it" : "its SIGKILL did NOT end it"} (${this.kills} kills so far)`);
      } catch (err) {
        log(`chaos: round ${round} failed: ${errorText(err)}`);
      }
    }
  }
}

function armFaults(faults: Faults, random: Random): void {
  for (const match of FAULTED) {
    faults.failShare(match, 500, FAULT_SHARES.errors, { random });
    faults.failShare(match, 429, FAULT_SHARES.throttled, { random, body: { error_msg: "Too many requests", error_code: "APIGW.0308" } });
    faults.failShare(match, 500, FAULT_SHARES.lost, { random, phase: "after" });
  }
}
