import { describe, expect, it } from "@jest/globals";
import { HttpStatusError, RequestTimeoutError } from "@edgeconnect/kcp-ts";
import { Backoff } from "@edgeconnect/runtime";
import { InstallTimeoutError } from "./errors.js";
import { isRetryableApplyError, untilAccepted } from "./transient-retry.js";

const PATH = "https://127.0.0.1:6443/apis/operator.cluster.x-k8s.io/v1alpha2/namespaces/capi-system/coreproviders/cluster-api";

function status(code: number, message: string): HttpStatusError {
  return new HttpStatusError("PATCH", PATH, code, JSON.stringify({ kind: "Status", status: "Failure", code, message }));
}

function systemError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:6443`), { code });
}

/** What the API server answers while the operator's webhook has no endpoints yet. */
const WEBHOOK_DOWN = status(
  500,
  'Internal error occurred: failed calling webhook "vcoreprovider.kb.io": failed to call webhook: Post "https://capi-operator-webhook-service.capi-operator-system.svc:443/validate": dial tcp 10.0.0.1:443: connect: connection refused',
);

describe("isRetryableApplyError", () => {
  it.each<[string, unknown]>([
    ["a webhook that is not ready (500)", WEBHOOK_DOWN],
    ["503 from an API server starting", status(503, "the server is currently unable to handle the request")],
    ["429", status(429, "too many requests")],
    ["a webhook timing out (504)", status(504, 'failed calling webhook "vcoreprovider.kb.io": context deadline exceeded')],
    ["a refused connection", systemError("ECONNREFUSED")],
    ["a reset connection, as the cause", new Error("socket hang up", { cause: systemError("ECONNRESET") })],
    ["a request that got no answer within its deadline", new RequestTimeoutError("PATCH", PATH, 30_000)],
  ])("retries %s", (_case, err) => {
    expect(isRetryableApplyError(err)).toBe(true);
  });

  it.each<[string, unknown]>([
    ["an invalid object (422)", status(422, "spec.version: Invalid value")],
    ["a forbidden write (403)", status(403, "forbidden")],
    ["a kind the server does not serve (404)", status(404, "the server could not find the requested resource")],
    ["an unknown host", systemError("ENOTFOUND")],
    ["a plain error", new Error("boom")],
    ["a string", "boom"],
  ])("does not retry %s", (_case, err) => {
    expect(isRetryableApplyError(err)).toBe(false);
  });
});

describe("untilAccepted", () => {
  /** No jitter, 100 ms doubling: the delays are known. */
  const backoff = (): Backoff => new Backoff({ initialMs: 100, maxMs: 1_000, jitter: 0 });

  /** A sleep that returns at once and records the delays asked for. */
  function recordingSleep(): { sleeps: number[]; sleep: (ms: number, signal: AbortSignal) => Promise<void> } {
    const sleeps: number[] = [];
    return {
      sleeps,
      sleep: (ms, signal) => {
        sleeps.push(ms);
        return signal.aborted ? Promise.reject(new Error("aborted")) : Promise.resolve();
      },
    };
  }

  it("retries a write refused while the webhook is not ready, with growing waits, until it is accepted", async () => {
    const refusals: Error[] = [status(503, "unavailable"), systemError("ECONNREFUSED"), WEBHOOK_DOWN];
    const { sleeps, sleep } = recordingSleep();
    const retried: unknown[] = [];
    let attempts = 0;
    const result = await untilAccepted(
      "applying CoreProvider capi-system/cluster-api",
      () => {
        attempts++;
        const refusal = refusals.shift();
        return refusal === undefined ? Promise.resolve("applied") : Promise.reject(refusal);
      },
      { signal: new AbortController().signal, backoff: backoff(), sleep, onRetry: (err) => retried.push(err) },
    );
    expect(result).toBe("applied");
    expect(attempts).toBe(4);
    expect(sleeps).toEqual([100, 200, 400]);
    expect(retried).toHaveLength(3);
  });

  it("fails at once on a refusal that time cannot change", async () => {
    const { sleeps, sleep } = recordingSleep();
    const invalid = status(422, "spec.version: Invalid value");
    await expect(untilAccepted("applying x", () => Promise.reject(invalid), { signal: new AbortController().signal, backoff: backoff(), sleep })).rejects.toBe(invalid);
    expect(sleeps).toEqual([]);
  });

  it("gives up at the deadline while waiting to retry, naming the write and the last refusal", async () => {
    const deadline = new AbortController();
    const sleep = (): Promise<void> => {
      deadline.abort();
      return Promise.reject(new Error("aborted"));
    };
    const run = untilAccepted("applying CoreProvider capi-system/cluster-api", () => Promise.reject(WEBHOOK_DOWN), { signal: deadline.signal, backoff: backoff(), sleep });
    await expect(run).rejects.toThrow(InstallTimeoutError);
    await expect(run).rejects.toThrow(/^timed out applying CoreProvider capi-system\/cluster-api; the last attempt failed: .*failed calling webhook "vcoreprovider\.kb\.io"/);
  });

  it("gives up at the deadline during an attempt that stalls, instead of waiting for an answer", async () => {
    const deadline = new AbortController();
    let attempts = 0;
    // A write that never gets an answer: it ends only when the deadline aborts the request.
    const stalled = (): Promise<never> => {
      attempts++;
      return new Promise((_resolve, reject) => deadline.signal.addEventListener("abort", () => reject(new DOMException("This operation was aborted", "AbortError"))));
    };
    const run = untilAccepted("applying CoreProvider capi-system/cluster-api", stalled, { signal: deadline.signal, backoff: backoff(), sleep: recordingSleep().sleep });
    deadline.abort();
    await expect(run).rejects.toThrow(InstallTimeoutError);
    await expect(run).rejects.toThrow("timed out applying CoreProvider capi-system/cluster-api; the last attempt failed: This operation was aborted");
    expect(attempts).toBe(1);
  });

  it("retries a write whose request timed out on a stalled server, and takes the answer once the server answers", async () => {
    const { sleeps, sleep } = recordingSleep();
    let attempts = 0;
    const result = await untilAccepted(
      "applying x",
      () => (++attempts < 3 ? Promise.reject(new RequestTimeoutError("PATCH", PATH, 30_000)) : Promise.resolve("applied")),
      { signal: new AbortController().signal, backoff: backoff(), sleep },
    );
    expect(result).toBe("applied");
    expect(sleeps).toEqual([100, 200]);
  });
});
