import { describe, expect, it } from "@jest/globals";
import { createIncomplete, sameJson } from "./reconciler.js";
import { EXTERNAL_CREATE_FAILED, EXTERNAL_CREATE_PENDING, EXTERNAL_CREATE_SUCCEEDED } from "./resource.js";

describe("createIncomplete (crossplane-runtime's ExternalCreateIncomplete)", () => {
  const mr = (annotations: Record<string, string>) => ({ metadata: { annotations } });

  it("is true only when creation started after it last succeeded or failed", () => {
    expect(createIncomplete(mr({}))).toBe(false);
    expect(createIncomplete(mr({ [EXTERNAL_CREATE_PENDING]: "2026-12-01T10:00:00Z" }))).toBe(true);
    expect(createIncomplete(mr({ [EXTERNAL_CREATE_PENDING]: "2026-12-01T10:00:00Z", [EXTERNAL_CREATE_SUCCEEDED]: "2026-12-01T10:00:00Z" }))).toBe(false);
    expect(createIncomplete(mr({ [EXTERNAL_CREATE_PENDING]: "2026-12-01T10:00:05Z", [EXTERNAL_CREATE_FAILED]: "2026-12-01T10:00:01Z" }))).toBe(true);
    expect(createIncomplete(mr({ [EXTERNAL_CREATE_PENDING]: "2026-12-01T10:00:05Z", [EXTERNAL_CREATE_FAILED]: "2026-12-01T10:00:07Z" }))).toBe(false);
  });
});

describe("sameJson", () => {
  it("ignores key order and absent members", () => {
    expect(sameJson({ a: 1, b: [{ c: "x", d: undefined }] }, { b: [{ c: "x" }], a: 1 })).toBe(true);
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameJson({ a: 1 }, { a: "1" })).toBe(false);
  });
});
