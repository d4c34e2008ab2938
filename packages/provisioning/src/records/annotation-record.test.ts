import { describe, expect, it } from "@jest/globals";
import { annotationRecord } from "./annotation-record.js";

describe("annotationRecord", () => {
  it("reads the array in the annotation", () => {
    expect(annotationRecord({ k: '[{"a":1},2]' }, "k")).toEqual([{ a: 1 }, 2]);
  });

  it.each([
    ["no annotations", undefined],
    ["no such key", { other: "[1]" }],
    ["not JSON", { k: "[1," }],
    ["not an array", { k: '{"a":1}' }],
    ["null", { k: "null" }],
  ])("reads %s as an empty record", (_case, annotations) => {
    expect(annotationRecord(annotations, "k")).toEqual([]);
  });
});
