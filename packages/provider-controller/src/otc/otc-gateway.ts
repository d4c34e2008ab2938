/**
 * Every call this controller makes to a tenant's OTC account goes through
 * here: one client per credential set (LRU-bounded, closed on eviction),
 * a p-queue per set bounding its calls in flight, a deadline per call, and
 * an LRU with TTL of IAM's verdicts keyed by the credentials' fingerprint.
 *
 * The queue is what keeps one tenant's slow IAM from holding every worker:
 * its reconciles wait behind its own queue, not behind each other's calls.
 * A rejected credential set is asked again only after a backoff that grows
 * with each rejection; a tenant who fixes its Secret changes the
 * fingerprint and is asked at once.
 *
 * Each call that ends is reported to `observer` by operation and result,
 * with its time in the set's queue included: what a reconcile waited.
 */
import { LRUCache } from "lru-cache";
import PQueue from "p-queue";
import {
  endpointsFromAuthUrl,
  getCceClusterCert,
  isCredentialRejection,
  OtcClient,
  validateCredentials,
  type OtcClientOptions,
} from "@edgeconnect/otc";
import { credentialFingerprint, MANAGED_BY, type OtcCredentials } from "@edgeconnect/provisioning";
import type { SecretHolder } from "@edgeconnect/runtime";
import type { OtcCallObserver, OtcCallResult, OtcOperation } from "../metrics/provider-metrics.js";

export type CredentialVerdict =
  | { readonly accepted: true; readonly projectId: string }
  | { readonly accepted: false; readonly message: string };

export interface OtcGatewayOptions {
  /** Calls in flight per credential set. */
  readonly concurrency: number;
  /** Deadline of one call, queueing included. */
  readonly timeoutMs: number;
  /** How long an accepted verdict holds; also the ceiling of the rejection backoff. */
  readonly verdictTtlMs: number;
  /** First backoff after a rejection; it doubles per rejection. Default 15 000. */
  readonly rejectionBackoffMs?: number;
  /** Credential sets kept at once. Default 1 000. */
  readonly maxCredentialSets?: number;
  /** How clients are made; tests inject their own retry settings. */
  readonly clientOptions?: Pick<OtcClientOptions, "retry" | "timeoutMs">;
  /** Told of every call that ended; not of one the caller gave up on (a reconcile aborted), which says nothing of OTC. */
  readonly observer?: OtcCallObserver;
}

interface CredentialSet {
  readonly client: OtcClient;
  readonly queue: PQueue;
  projectClient?: OtcClient;
}

interface Rejection {
  readonly count: number;
  readonly message: string;
  readonly untilMs: number;
}

export class OtcGateway {
  private readonly sets: LRUCache<string, CredentialSet>;
  private readonly accepted: LRUCache<string, { projectId: string }>;
  private readonly rejections: LRUCache<string, Rejection>;
  private readonly inFlight = new Map<string, Promise<CredentialVerdict>>();

  constructor(private readonly options: OtcGatewayOptions) {
    const max = options.maxCredentialSets ?? 1_000;
    this.sets = new LRUCache<string, CredentialSet>({
      max,
      dispose: (set) => {
        set.client.close();
        set.projectClient?.close();
      },
    });
    this.accepted = new LRUCache({ max, ttl: options.verdictTtlMs });
    this.rejections = new LRUCache({ max });
  }

  /**
   * IAM's verdict on `credentials`. Rejects (for the caller to retry with
   * backoff) when IAM could not be asked: unreachable, 5xx, the deadline.
   */
  async verify(credentials: OtcCredentials, signal: AbortSignal): Promise<CredentialVerdict> {
    const key = credentialFingerprint(credentials);
    const accepted = this.accepted.get(key);
    if (accepted !== undefined) return { accepted: true, projectId: accepted.projectId };
    const rejection = this.rejections.get(key);
    if (rejection !== undefined && performance.now() < rejection.untilMs) return { accepted: false, message: rejection.message };
    const running = this.inFlight.get(key);
    if (running !== undefined) return running;
    const verdict = this.ask(key, credentials, rejection, signal).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, verdict);
    return verdict;
  }

  /** When a rejected credential set will be asked again, for the caller's requeue; undefined if it is not rejected. */
  retryAfterMs(credentials: OtcCredentials): number | undefined {
    const rejection = this.rejections.get(credentialFingerprint(credentials));
    return rejection === undefined ? undefined : Math.max(0, rejection.untilMs - performance.now());
  }

  /**
   * CCE's kubeconfig for a cluster; its client key is held by `holder` before
   * it is returned. Bounded by `signal` alone, not by the per-call timeout:
   * each call issues a certificate, so one abandoned while CCE (or the
   * tenant's queue) is slow costs a certificate no one receives, and the
   * caller's deadline is the issuance's whole window.
   */
  async clusterCertificate(credentials: OtcCredentials, clusterId: string, durationDays: number, holder: SecretHolder, signal: AbortSignal): Promise<unknown> {
    const verdict = await this.verify(credentials, signal);
    if (!verdict.accepted) throw new Error(`the credentials were rejected: ${verdict.message}`);
    const set = this.set(credentialFingerprint(credentials), credentials);
    set.projectClient ??= set.client.withProjectId(verdict.projectId);
    const client = set.projectClient;
    return this.call(set, signal, "cce_cluster_cert", (bounded) => getCceClusterCert(client, clusterId, durationDays, { signal: bounded, secretHolder: holder }), { timeout: false });
  }

  close(): void {
    this.sets.clear();
  }

  private async ask(key: string, credentials: OtcCredentials, previous: Rejection | undefined, signal: AbortSignal): Promise<CredentialVerdict> {
    const set = this.set(key, credentials);
    try {
      const { projectId } = await this.call(set, signal, "iam_validate", (bounded) => validateCredentials(set.client, { signal: bounded }));
      this.accepted.set(key, { projectId });
      this.rejections.delete(key);
      return { accepted: true, projectId };
    } catch (err) {
      if (!isCredentialRejection(err)) throw err;
      const count = (previous?.count ?? 0) + 1;
      const backoff = Math.min(this.options.verdictTtlMs, (this.options.rejectionBackoffMs ?? 15_000) * 2 ** (count - 1));
      const message = err instanceof Error ? err.message : String(err);
      this.rejections.set(key, { count, message, untilMs: performance.now() + backoff });
      return { accepted: false, message };
    }
  }

  /** Runs `call` in the set's queue with the reconcile's signal and the per-call timeout (unless `timeout` is false) bound together, and reports how it ended. */
  private async call<T>(set: CredentialSet, signal: AbortSignal, operation: OtcOperation, call: (signal: AbortSignal) => Promise<T>, options: { readonly timeout: boolean } = { timeout: true }): Promise<T> {
    const deadline = options.timeout ? AbortSignal.timeout(this.options.timeoutMs) : new AbortController().signal;
    const bounded = AbortSignal.any([signal, deadline]);
    const started = performance.now();
    const report = (result: OtcCallResult): void => this.options.observer?.otcCall(operation, result, (performance.now() - started) / 1000);
    try {
      const value = await set.queue.add<T>(() => call(bounded), { signal: bounded });
      report("ok");
      return value;
    } catch (err) {
      if (!signal.aborted) report(deadline.aborted ? "timeout" : isCredentialRejection(err) ? "rejected" : "error");
      throw err;
    }
  }

  private set(key: string, credentials: OtcCredentials): CredentialSet {
    const existing = this.sets.get(key);
    if (existing !== undefined) return existing;
    // The set's credentials are held while its client lives; eviction closes it and lets them go.
    // Named in the cloud's access logs as on the objects it manages: the chaos suite tells its calls from Crossplane's by it.
    const client = new OtcClient({ ...clientOptions(credentials, this.options.clientOptions), secretHolder: { name: `otc-credential-set/${key}` }, userAgent: MANAGED_BY });
    const created: CredentialSet = { client, queue: new PQueue({ concurrency: this.options.concurrency }) };
    this.sets.set(key, created);
    return created;
  }
}

function clientOptions(credentials: OtcCredentials, extra: OtcGatewayOptions["clientOptions"] = {}): OtcClientOptions {
  const endpoints = endpointsFromAuthUrl(credentials.authUrl, credentials.region);
  if (credentials.mode === "password") {
    return {
      ...extra,
      region: credentials.region,
      endpoints,
      credentials: {
        kind: "password",
        userName: credentials.userName,
        password: credentials.password,
        domainName: credentials.domainName,
        projectName: credentials.projectName,
      },
    };
  }
  return {
    ...extra,
    region: credentials.region,
    endpoints,
    credentials: { accessKey: credentials.accessKey, secretKey: credentials.secretKey },
    projectName: credentials.projectName,
    ...(credentials.projectId === undefined ? {} : { projectId: credentials.projectId }),
  };
}
