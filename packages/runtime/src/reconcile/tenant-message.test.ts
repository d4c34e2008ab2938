import { describe, expect, it } from "@jest/globals";
import { HttpStatusError, RequestTimeoutError } from "@edgeconnect/kcp-ts";
import { GENERIC_TENANT_MESSAGE, MAX_TENANT_MESSAGE_CHARS, tenantMessage } from "./tenant-message.js";
import { FAILED_PATCH_BODY } from "./write-client.fixture.js";
import { FieldConflictError, StaleObjectError } from "./writes.js";

const NAMESPACE = "kcp-0123456789ab";
const PROJECT = "0123456789abcdef0123456789abcdef";
const INFRA = "https://10.0.12.7:6443";

/** Shaped like @edgeconnect/otc's OtcApiError, which the runtime must not import. */
class OtcApiError extends Error {
  override readonly name = "OtcApiError";

  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

const httpError = (status: number, body: string): HttpStatusError =>
  new HttpStatusError("PATCH", `${INFRA}/api/v1/namespaces/${NAMESPACE}/secrets/kubeconfig`, status, body);

const CASES: readonly [string, unknown, string][] = [
    ["a controller's own message", 'observed color "red"', 'observed color "red"'],
    [
      "URLs and IP:port",
      new Error(`Get "${INFRA}/api/v1/namespaces/${NAMESPACE}/secrets/x": dial tcp 10.0.12.7:6443: connect: connection refused`),
      'Get "[address]": dial tcp [address]: connect: connection refused',
    ],
    ["host:port", "lookup infra-apiserver.internal:6443 failed: no such host", "lookup [address] failed: no such host"],
    ["IPv6 addresses, but not clock times", "dial tcp [fd00:10::2]:443 at 10:05:00: i/o timeout", "dial tcp [address] at 10:05:00: i/o timeout"],
    ["bare IPs", "no route to 192.0.2.10", "no route to [address]"],
    [
      "kcp-<fingerprint> namespaces",
      `secrets is forbidden: User "system:serviceaccount:${NAMESPACE}:default" cannot list secrets`,
      'secrets is forbidden: User "system:serviceaccount:[namespace]:default" cannot list secrets',
    ],
    ["namespaces/<x> path segments", "object namespaces/team-a/configmaps/x not found", "object namespaces/[namespace]/configmaps/x not found"],
    ["API paths without a host", `POST /v2/${PROJECT}/elb/loadbalancers refused the subnet`, "POST [address] refused the subnet"],
    ["OTC project ids", `project ${PROJECT} has no quota left`, "project [project] has no quota left"],
    ["JSON bodies", 'ensure ELB failed: HTTP 400: {"error":{"code":"ELB.8902","message":"subnet 10.1.0.0/16 is full"}}', "ensure ELB failed: HTTP 400"],
    ["JSON arrays of strings", 'rejected ["10.0.0.1","10.0.0.2"] as members', "rejected as members"],
    ["HTML pages", "gateway said: <html><head><title>502 Bad Gateway</title></head><body>nginx/1.25 on 10.0.0.1</body></html>", "gateway said"],
    ["nothing but a truncated body", new Error('HTTP 502: {"error_code":"APIGW.0101","error_msg":"The API does not exist or has not been publ'), GENERIC_TENANT_MESSAGE],
    ["nothing but a request line", new Error(`POST ${INFRA}/apis/x/v1/things: HTTP 500: {"kind":"Status"}`), GENERIC_TENANT_MESSAGE],
    ["an empty error", new Error(""), GENERIC_TENANT_MESSAGE],
    ["a non-error", { url: INFRA }, GENERIC_TENANT_MESSAGE],
    ["a Status from the API server", httpError(409, JSON.stringify({ kind: "Status", reason: "Conflict", message: `at ${INFRA}`, code: 409 })), "the infrastructure API answered Conflict"],
    ["an answer that is not a Status", httpError(503, "<html>upstream down</html>"), "the infrastructure API answered HTTP 503"],
    ["a stale guarded write", new StaleObjectError("/api/v1/namespaces/x/configmaps/y", httpError(422, FAILED_PATCH_BODY)), "the object changed while it was being updated; retrying"],
    [
      "a field conflict",
      new FieldConflictError("/apis/x/v1/things/y/status", httpError(409, JSON.stringify({ kind: "Status", details: { causes: [{ field: ".status.phase" }] } }))),
      "another controller owns status fields this controller writes (.status.phase)",
    ],
    ["an OTC error with a code", new OtcApiError(409, "ELB.8902", `POST /v2/${PROJECT}/elb/loadbalancers: HTTP 409 ELB.8902: busy`), "the cloud API answered ELB.8902"],
    ["an OTC error without a code", new OtcApiError(500, undefined, "POST /v3/x: HTTP 500"), "the cloud API answered HTTP 500"],
    ["an OTC network error", new OtcApiError(0, undefined, "POST /v3/x: network error: ECONNRESET"), "the cloud API could not be reached; retrying"],
    ["a timeout", new DOMException("The operation was aborted due to timeout", "TimeoutError"), "the infrastructure API did not answer in time; retrying"],
    ["a request deadline", new RequestTimeoutError("GET", `${INFRA}/api/v1/namespaces/${NAMESPACE}/secrets/x`, 30_000), "the infrastructure API did not answer in time; retrying"],
];

describe("tenantMessage", () => {
  it.each(CASES)("handles %s", (_what, input, expected) => {
    const message = tenantMessage(input);
    expect(message).toBe(expected);
    expect(message).not.toMatch(/https?:\/\/|\d+\.\d+\.\d+\.\d+|kcp-[0-9a-f]{12}|[0-9a-f]{32}|\{"/);
  });

  it.each(CASES)("changes nothing in its own answer for %s", (_what, input) => {
    const once = tenantMessage(input);
    expect(tenantMessage(once)).toBe(once);
  });

  it.each([
    ["a path behind a name that becomes a placeholder", `failed: ${NAMESPACE}/api/<html> namespaces/`, "failed: [namespace][address]"],
    ["a body whose halves a removed tag joins", 'GET failed{\n<b>"</b>', "GET failed"],
    ["a project id in front of a path", `${PROJECT}/api/namespaces/,:443"…[/api/`, GENERIC_TENANT_MESSAGE],
  ])("strips what one pass exposes: %s", (_what, input, expected) => {
    expect(tenantMessage(input)).toBe(expected);
  });

  it("gives the same answer for its own answer, over many generated messages", () => {
    const fragments = [`${INFRA}/api`, "{", "}", '"', "[", "]", ",", ":", " ", "a", NAMESPACE, "namespaces/", "/api/", "10.0.0.1", ":443", "<b>", "</b>", "<html>", "::", "fd00", "x.y", PROJECT, "GET", "failed", ";", "\n", "…"];
    let seed = 1;
    const next = (below: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * below);
    };
    const unstable: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const input = Array.from({ length: 1 + next(10) }, () => fragments[next(fragments.length)]).join("");
      const once = tenantMessage(input);
      if (tenantMessage(once) !== once) unstable.push(input);
    }
    expect(unstable).toEqual([]);
  });

  it("bounds the length at a word", () => {
    const message = tenantMessage(`the pool ${"has too many members ".repeat(100)}`);
    expect(message.length).toBeLessThanOrEqual(MAX_TENANT_MESSAGE_CHARS);
    expect(message).toMatch(/ (?:has|too|many|members)…$/);
  });
});
