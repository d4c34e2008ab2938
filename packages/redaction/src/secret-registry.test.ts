import { randomBytes } from "node:crypto";
import { describe, expect, it } from "@jest/globals";
import { credentialForms, MIN_SECRET_LENGTH } from "./credential-forms.js";
import { containedFailures } from "./failures.js";
import { RELEASE_GRACE_MS, registerSecret, scrubText, SecretRegistry, UNSCRUBBABLE } from "./secret-registry.js";
import { REDACTED } from "./shapes.js";

/** A registry on a clock the test moves. */
function registryAt(start = 1_000_000): { registry: SecretRegistry; advance: (ms: number) => void } {
  let now = start;
  return { registry: new SecretRegistry({ now: () => now }), advance: (ms) => (now += ms) };
}

const TENANT_A = { tenant: "tenant-a", name: "credentials/default/otc" };
const TENANT_A_KUBECONFIG = { tenant: "tenant-a", name: "kubeconfig/default/my-cluster" };
const TENANT_B = { tenant: "tenant-b", name: "credentials/default/otc" };

// The process registry is shared by every test in this file: each test uses values of its own.
describe("scrubText", () => {
  it("leaves text alone while nothing matches", () => {
    expect(scrubText("GET /api/v1/namespaces: HTTP 404")).toBe("GET /api/v1/namespaces: HTTP 404");
  });

  it("replaces every occurrence of a registered value", () => {
    registerSecret("fake-token-0001");
    expect(scrubText("a fake-token-0001 b fake-token-0001")).toBe(`a ${REDACTED} b ${REDACTED}`);
  });

  it("ignores values shorter than MIN_SECRET_LENGTH, and non-strings", () => {
    const short = "x".repeat(MIN_SECRET_LENGTH - 1);
    registerSecret(short);
    registerSecret(undefined);
    registerSecret(12345678);
    expect(scrubText(`say ${short} 12345678`)).toBe(`say ${short} 12345678`);
  });

  it("treats registered values literally, regular-expression characters included", () => {
    registerSecret("a.b*c+d?e(f)[g]|h\\i$j^k/l");
    expect(scrubText("<a.b*c+d?e(f)[g]|h\\i$j^k/l> axbbcd")).toBe(`<${REDACTED}> axbbcd`);
  });

  it("hides the whole of overlapping values, and of values inside others, in one placeholder", () => {
    registerSecret("overlap-secret");
    registerSecret("overlap-secret-and-more");
    registerSecret("and-more-overlapping");
    expect(scrubText("overlap-secret-and-more!")).toBe(`${REDACTED}!`);
    expect(scrubText("overlap-secret-and-more-overlapping!")).toBe(`${REDACTED}!`);
    expect(scrubText("overlap-secret overlap-secret")).toBe(`${REDACTED} ${REDACTED}`);
  });

  it("finds a value base64-encoded, whole or inside a longer base64 text at any offset", () => {
    const key = "not-a-real-key-material\nwith a second line\n";
    registerSecret(key);
    const whole = Buffer.from(key).toString("base64");
    expect(scrubText(`client-cert: ${whole}`)).toBe(`client-cert: ${REDACTED}`);
    for (const prefix of ["", "a", "ab", "abc"]) {
      const embedded = Buffer.from(`${prefix}${key}trailing bytes`).toString("base64");
      expect(scrubText(embedded)).toContain(REDACTED);
      // What is left is too short to decode to the key.
      expect(scrubText(embedded).replace(REDACTED, "").length).toBeLessThan(whole.length / 2);
    }
  });

  it("finds a value JSON-escaped and URL-encoded", () => {
    const value = 'multi\nline "quoted" value';
    registerSecret(value);
    expect(scrubText(JSON.stringify({ body: value }))).toBe(`{"body":"${REDACTED}"}`);
    expect(scrubText(`/path?q=${encodeURIComponent(value)}`)).toBe(`/path?q=${REDACTED}`);
  });

  it("sees values registered after an earlier scrub", () => {
    expect(scrubText("later-secret-value")).toBe("later-secret-value");
    registerSecret("later-secret-value");
    expect(scrubText("later-secret-value")).toBe(REDACTED);
  });
});

describe("SecretRegistry holders", () => {
  it("keeps a holder's values until it lets them go, then for the grace period, then forgets them", () => {
    const { registry, advance } = registryAt();
    registry.hold(TENANT_A, ["tenant-a-password-1"]);
    expect(registry.size).toBe(1);
    registry.release(TENANT_A);
    advance(RELEASE_GRACE_MS - 1);
    expect(registry.scrub("tenant-a-password-1")).toBe(REDACTED);
    advance(1);
    expect(registry.scrub("tenant-a-password-1")).toBe("tenant-a-password-1");
    expect(registry.size).toBe(0);
  });

  it("replaces what a holder held: values not held again go after the grace period, the others stay", () => {
    const { registry, advance } = registryAt();
    registry.hold(TENANT_A, ["rotated-password-old", "access-key-unchanged"]);
    registry.hold(TENANT_A, ["rotated-password-new", "access-key-unchanged"]);
    expect(registry.scrub("rotated-password-old rotated-password-new access-key-unchanged")).toBe(`${REDACTED} ${REDACTED} ${REDACTED}`);
    advance(RELEASE_GRACE_MS);
    expect(registry.scrub("rotated-password-old rotated-password-new access-key-unchanged")).toBe(`rotated-password-old ${REDACTED} ${REDACTED}`);
    expect(registry.size).toBe(2);
  });

  it("keeps a value while any holder holds it", () => {
    const { registry, advance } = registryAt();
    registry.hold(TENANT_A, ["a-password-shared-by-two"]);
    registry.hold(TENANT_B, ["a-password-shared-by-two"]);
    registry.release(TENANT_A);
    advance(RELEASE_GRACE_MS * 2);
    expect(registry.scrub("a-password-shared-by-two")).toBe(REDACTED);
    registry.release(TENANT_B);
    advance(RELEASE_GRACE_MS);
    expect(registry.size).toBe(0);
  });

  it("lets go of all of a tenant's holders when the tenant is gone, and of no other tenant's", () => {
    const { registry, advance } = registryAt();
    registry.hold(TENANT_A, ["tenant-a-credential"]);
    registry.hold(TENANT_A_KUBECONFIG, ["tenant-a-kubeconfig-key"]);
    registry.hold(TENANT_B, ["tenant-b-credential"]);
    registry.releaseTenant("tenant-a");
    advance(RELEASE_GRACE_MS);
    expect(registry.scrub("tenant-a-credential tenant-a-kubeconfig-key tenant-b-credential")).toBe(`tenant-a-credential tenant-a-kubeconfig-key ${REDACTED}`);
    expect(registry.size).toBe(1);
  });

  it("forgets an expiring value after its expiry plus the grace period, unless it is held otherwise", () => {
    const { registry, advance } = registryAt();
    registry.register("iam-token-expiring-1", { until: 1_000_000 + 60_000 });
    registry.register("iam-token-expiring-2", { until: 1_000_000 + 60_000 });
    registry.register("iam-token-expiring-2");
    advance(60_000 + RELEASE_GRACE_MS - 1);
    expect(registry.scrub("iam-token-expiring-1")).toBe(REDACTED);
    advance(1);
    expect(registry.scrub("iam-token-expiring-1 iam-token-expiring-2")).toBe(`iam-token-expiring-1 ${REDACTED}`);
  });

  it("an expiring holding renewed with a later expiry lives until the later one", () => {
    const { registry, advance } = registryAt();
    registry.hold(TENANT_A_KUBECONFIG, ["kubeconfig-client-key"], { until: 1_000_000 + 1_000 });
    registry.hold(TENANT_A_KUBECONFIG, ["kubeconfig-client-key"], { until: 1_000_000 + 5_000 });
    advance(1_000 + RELEASE_GRACE_MS);
    expect(registry.scrub("kubeconfig-client-key")).toBe(REDACTED);
    advance(4_000);
    expect(registry.size).toBe(0);
  });

  it("holding the same values again costs no new holding (a reconcile does it every time)", () => {
    const { registry, advance } = registryAt();
    for (let i = 0; i < 1000; i++) registry.hold(TENANT_A, ["tenant-a-password-same"]);
    registry.release(TENANT_A);
    advance(RELEASE_GRACE_MS);
    expect(registry.size).toBe(0);
  });

  it("holds 100,000 values and still finds each, and forgets them all", () => {
    const { registry, advance } = registryAt();
    const values = Array.from({ length: 100_000 }, (_, i) => `tenant-${i}-${randomBytes(12).toString("base64url")}`);
    values.forEach((value, i) => registry.hold({ tenant: `t${i}`, name: "credentials" }, [value]));
    expect(registry.size).toBe(100_000);
    for (const i of [0, 1, 4_242, 99_999]) {
      const value = values[i]!;
      expect(registry.scrub(`before ${value} after ${Buffer.from(value).toString("base64")}`)).toBe(`before ${REDACTED} after ${REDACTED}`);
    }
    values.forEach((_, i) => registry.releaseTenant(`t${i}`));
    advance(RELEASE_GRACE_MS);
    expect(registry.size).toBe(0);
    expect(registry.scrub(values[7]!)).toBe(values[7]);
  });
});

describe("SecretRegistry with any value", () => {
  it("holds and finds a 1 MiB value, in every form", () => {
    const { registry } = registryAt();
    const value = randomBytes(768 * 1024).toString("base64");
    expect(value.length).toBeGreaterThanOrEqual(1024 * 1024);
    registry.hold(TENANT_A, [value]);
    expect(registry.scrub(`key: <${value}>`)).toBe(`key: <${REDACTED}>`);
    expect(registry.scrub(`data: "${Buffer.from(value).toString("base64")}"`)).toBe(`data: "${REDACTED}"`);
  });

  it("holds binary values, and values with lone surrogates (which no URL can carry)", () => {
    const { registry } = registryAt();
    const binary = randomBytes(4096).toString("utf8");
    const loneSurrogate = "secret-\ud800-half-a-character";
    const failuresBefore = containedFailures().get("register") ?? 0;
    registry.hold(TENANT_A, [binary, loneSurrogate]);
    expect(registry.size).toBe(2);
    expect(registry.scrub(`x${binary}y ${loneSurrogate}`)).toBe(`x${REDACTED}y ${REDACTED}`);
    expect(registry.scrub(JSON.stringify(binary))).toBe(`"${REDACTED}"`);
    expect(containedFailures().get("register") ?? 0).toBe(failuresBefore);
  });

  it("holds a value of many lines, and finds it in a log line where it is JSON-escaped", () => {
    const { registry } = registryAt();
    const value = Array.from({ length: 20_000 }, (_, i) => `line ${i} of a pasted credentials file`).join("\n");
    registry.hold(TENANT_A, [value]);
    expect(registry.scrub(JSON.stringify({ msg: "parsed", text: value }))).toBe(`{"msg":"parsed","text":"${REDACTED}"}`);
  });

  it("returns a placeholder, and counts it, for a text it cannot scrub, instead of throwing", () => {
    const { registry } = registryAt();
    const before = containedFailures().get("scrub") ?? 0;
    const hostile = { toString: () => "never called", length: 20 } as unknown as string;
    expect(registry.scrub(hostile)).toBe(UNSCRUBBABLE);
    expect(containedFailures().get("scrub")).toBe(before + 1);
  });
});

describe("credentialForms", () => {
  it("gives each form once and none shorter than MIN_SECRET_LENGTH", () => {
    const forms = credentialForms("abcdefgh");
    expect(new Set(forms).size).toBe(forms.length);
    expect(forms).toContain("abcdefgh");
    expect(forms).toContain(Buffer.from("abcdefgh").toString("base64"));
    for (const form of forms) expect(form.length).toBeGreaterThanOrEqual(MIN_SECRET_LENGTH);
  });

  it("leaves out the URL form of a value no URL can carry, and does not throw", () => {
    expect(() => credentialForms("half-\udc00-character")).not.toThrow();
    expect(credentialForms("half-\udc00-character")).toContain("half-\udc00-character");
  });
});
