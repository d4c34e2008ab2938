import { describe, expect, it } from "@jest/globals";
import { PROFILE_LABEL, PROVIDER_LABEL } from "./constants.js";
import { isResponsibleForAccessRequest, profileBelongsTo, type AccessRequestState } from "./responsibility.js";

// The label keys are checked against openMCP's module in constants.test.ts.
const PROVIDER = PROVIDER_LABEL;
const PROFILE = PROFILE_LABEL;

function ar(labels: Record<string, string> | undefined, phase: string | undefined, generation?: number, observedGeneration?: number): AccessRequestState {
  return {
    metadata: { ...(labels === undefined ? {} : { labels }), ...(generation === undefined ? {} : { generation }) },
    status: { ...(phase === undefined ? {} : { phase }), ...(observedGeneration === undefined ? {} : { observedGeneration }) },
  };
}

const OURS = { [PROVIDER]: "capi", [PROFILE]: "dev.capi.aws" };

describe("isResponsibleForAccessRequest", () => {
  it.each<[string, AccessRequestState | undefined, boolean]>([
    ["Pending with both labels", ar(OURS, "Pending", 1, 0), true],
    ["Granted and up to date", ar(OURS, "Granted", 3, 3), true],
    ["Granted with a stale generation", ar(OURS, "Granted", 4, 3), false],
    ["Granted, generations missing (0 = 0)", ar(OURS, "Granted"), true],
    ["Granted, generation set, observed missing", ar(OURS, "Granted", 1), false],
    ["Pending with a stale generation", ar(OURS, "Pending", 4, 3), true],
    ["brand new: no phase yet", ar(OURS, undefined, 1), false],
    ["empty phase", ar(OURS, "", 1), false],
    ["Denied", ar(OURS, "Denied", 1, 1), false],
    ["an unknown phase", ar(OURS, "Ready", 1, 1), false],
    ["another provider", ar({ [PROVIDER]: "gardener", [PROFILE]: "dev.gardener.x" }, "Pending"), false],
    ["provider label missing", ar({ [PROFILE]: "dev.capi.aws" }, "Pending"), false],
    ["profile label missing", ar({ [PROVIDER]: "capi" }, "Pending"), false],
    ["profile label empty but present", ar({ [PROVIDER]: "capi", [PROFILE]: "" }, "Pending"), true],
    ["no labels", ar(undefined, "Pending"), false],
    ["no status", { metadata: { labels: OURS } }, false],
    ["no request", undefined, false],
  ])("%s", (_case, request, expected) => {
    expect(isResponsibleForAccessRequest(request, "capi")).toBe(expected);
  });

  it("refuses an empty provider name instead of matching every provider", () => {
    expect(() => isResponsibleForAccessRequest(ar(OURS, "Pending"), "")).toThrow(TypeError);
  });
});

describe("profileBelongsTo", () => {
  it.each([
    ["ours", { spec: { providerRef: { name: "capi" } } }, true],
    ["another provider's", { spec: { providerRef: { name: "gardener" } } }, false],
    ["no providerRef", { spec: {} }, false],
    ["no spec", {}, false],
  ])("%s", (_case, profile, expected) => {
    expect(profileBelongsTo(profile, "capi")).toBe(expected);
  });

  it("refuses an empty provider name", () => {
    expect(() => profileBelongsTo({ spec: { providerRef: { name: "" } } }, "")).toThrow(TypeError);
  });
});
