import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { OtcApiError } from "@edgeconnect/otc";
import { startOtcSimulator, type OtcSimulator } from "@edgeconnect/otc-simulator";
import type { OtcCredentials } from "@edgeconnect/provisioning";
import type { OtcCallResult, OtcOperation } from "../metrics/provider-metrics.js";
import { OtcGateway } from "./otc-gateway.js";

const USERS = [
  { domainName: "OTC-EU-DE-GATEWAY", userName: "alice", password: "gateway-test-password-alice" },
  { domainName: "OTC-EU-DE-GATEWAY", userName: "bob", password: "gateway-test-password-bob" },
];
const PROJECT = { id: "0a1b2c3d4e5f60718293a4b5c6d7e8f9", name: "eu-de_gateway" };

describe("OtcGateway", () => {
  let sim: OtcSimulator;

  beforeAll(async () => {
    sim = await startOtcSimulator({ credentials: [], users: USERS, projects: [PROJECT] });
  });

  afterAll(async () => {
    await sim.close();
  });

  const credentials = (user: (typeof USERS)[number], password = user.password): OtcCredentials => ({
    mode: "password",
    authUrl: `${sim.url}/v3`,
    userName: user.userName,
    password,
    domainName: user.domainName,
    projectName: PROJECT.name,
    region: "eu-de",
  });
  const tokenRequests = (): number => sim.faults.requests.filter((r) => r.method === "POST" && r.path === "/v3/auth/tokens").length;
  const gateway = (overrides: Partial<ConstructorParameters<typeof OtcGateway>[0]> = {}): OtcGateway =>
    new OtcGateway({ concurrency: 2, timeoutMs: 5_000, verdictTtlMs: 60_000, clientOptions: { retry: { attempts: 1 } }, ...overrides });
  const signal = new AbortController().signal;

  it("asks IAM once per credential set, also when many reconciles ask at once, and caches the acceptance", async () => {
    const subject = gateway();
    const before = tokenRequests();
    const verdicts = await Promise.all([1, 2, 3].map(() => subject.verify(credentials(USERS[0] as never), signal)));
    expect(verdicts).toEqual([1, 2, 3].map(() => ({ accepted: true, projectId: PROJECT.id })));
    await subject.verify(credentials(USERS[0] as never), signal);
    expect(tokenRequests() - before).toBe(1);
    subject.close();
  });

  it("caches a rejection with a backoff, and asks at once for changed credentials", async () => {
    const subject = gateway({ rejectionBackoffMs: 60_000 });
    const user = USERS[1] as (typeof USERS)[number];
    const before = tokenRequests();
    const wrong = credentials(user, "not-the-password-of-bob");
    const verdict = await subject.verify(wrong, signal);
    expect(verdict).toMatchObject({ accepted: false });
    expect(JSON.stringify(verdict)).not.toContain("not-the-password-of-bob");
    await subject.verify(wrong, signal);
    expect(tokenRequests() - before).toBe(1);
    expect(subject.retryAfterMs(wrong)).toBeGreaterThan(50_000);
    expect(await subject.verify(credentials(user), signal)).toMatchObject({ accepted: true });
    expect(tokenRequests() - before).toBe(2);
    subject.close();
  });

  it("gives up on a stalled IAM at its deadline, and a stalled credential set does not hold another's calls", async () => {
    const subject = gateway({ timeoutMs: 300, concurrency: 1 });
    sim.faults.delay({ method: "POST", pathPrefix: "/v3/auth/tokens" }, 800);
    const started = performance.now();
    await expect(subject.verify(credentials(USERS[0] as never, "stalled-password"), signal)).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(5_000);
    sim.faults.clear();
    const other = gateway({ timeoutMs: 2_000, concurrency: 1 });
    expect(await other.verify(credentials(USERS[1] as never), signal)).toMatchObject({ accepted: true });
    subject.close();
    other.close();
  });

  it("waits for clustercert past the per-call timeout, up to the caller's deadline: an abandoned call costs a certificate", async () => {
    const subject = gateway({ timeoutMs: 300 });
    const user = USERS[0] as (typeof USERS)[number];
    await subject.verify(credentials(user), signal);
    sim.faults.delay({ method: "POST", pathSuffix: "/clustercert" }, 800);
    const started = performance.now();
    // No such cluster: CCE's answer, after the delay, is its 404, not the gateway's timeout.
    const answer = subject.clusterCertificate(credentials(user), "no-such-cluster", 30, { name: "gateway-test" }, AbortSignal.timeout(10_000));
    await expect(answer).rejects.toBeInstanceOf(OtcApiError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(700);
    sim.faults.clear();
    subject.close();
  });

  it("ends a call when the reconcile's signal aborts", async () => {
    const subject = gateway({ timeoutMs: 60_000 });
    sim.faults.delay({ method: "POST", pathPrefix: "/v3/auth/tokens" }, 800);
    const stop = new AbortController();
    const pending = subject.verify(credentials(USERS[0] as never, "aborted-password"), stop.signal);
    setTimeout(() => stop.abort(), 100);
    await expect(pending).rejects.toThrow();
    sim.faults.clear();
    subject.close();
  });

  it("reports each IAM call by result with its time, and none that the caller gave up on", async () => {
    const calls: { operation: OtcOperation; result: OtcCallResult; seconds: number }[] = [];
    const observer = { otcCall: (operation: OtcOperation, result: OtcCallResult, seconds: number) => void calls.push({ operation, result, seconds }) };
    const user = USERS[0] as (typeof USERS)[number];
    const subject = gateway({ timeoutMs: 300, observer });
    await subject.verify(credentials(user), signal);
    await subject.verify(credentials(user, "observed-wrong-password"), signal);
    sim.faults.failNext({ method: "POST", pathPrefix: "/v3/auth/tokens" }, 500);
    await expect(subject.verify(credentials(user, "observed-server-error"), signal)).rejects.toThrow();
    sim.faults.delay({ method: "POST", pathPrefix: "/v3/auth/tokens" }, 800);
    await expect(subject.verify(credentials(user, "observed-stalled"), signal)).rejects.toThrow();
    const stop = new AbortController();
    const abandoned = subject.verify(credentials(user, "observed-abandoned"), stop.signal);
    setTimeout(() => stop.abort(), 50);
    await expect(abandoned).rejects.toThrow();
    sim.faults.clear();
    subject.close();

    expect(calls.map(({ operation, result }) => `${operation} ${result}`)).toEqual([
      "iam_validate ok",
      "iam_validate rejected",
      "iam_validate error",
      "iam_validate timeout",
    ]);
    expect(calls[3]?.seconds).toBeGreaterThanOrEqual(0.29);
    expect(calls[3]?.seconds).toBeLessThan(5);
  });
});
