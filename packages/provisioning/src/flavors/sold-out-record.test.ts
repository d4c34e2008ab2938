import { describe, expect, it } from "@jest/globals";
import { MAX_SOLD_OUT, recordedSoldOut, SOLD_OUT_ANNOTATION, soldOutAnnotation } from "./sold-out-record.js";

describe("the sold-out record", () => {
  it("round-trips through the annotation, and records nothing for none", () => {
    const pairs = [{ flavor: "c4.xlarge.2", zone: "random" }, { flavor: "s3.xlarge.4", zone: "eu-de-01" }];
    expect(recordedSoldOut(soldOutAnnotation(pairs))).toEqual(pairs);
    expect(soldOutAnnotation([])).toEqual({});
    expect(recordedSoldOut(undefined)).toEqual([]);
  });

  it("keeps the newest pairs up to the bound", () => {
    const many = Array.from({ length: MAX_SOLD_OUT + 5 }, (_, i) => ({ flavor: `f${i}`, zone: "random" }));
    const kept = recordedSoldOut(soldOutAnnotation(many));
    expect(kept).toHaveLength(MAX_SOLD_OUT);
    expect(kept[0]?.flavor).toBe("f5");
  });

  it("reads an unreadable or foreign record as none, and drops malformed entries", () => {
    for (const text of ["not json", "{}", "null", '"x"']) expect(recordedSoldOut({ [SOLD_OUT_ANNOTATION]: text })).toEqual([]);
    expect(recordedSoldOut({ [SOLD_OUT_ANNOTATION]: JSON.stringify([{ flavor: "a", zone: "random", extra: 1 }, { flavor: 1 }, null, "x"]) })).toEqual([{ flavor: "a", zone: "random" }]);
  });
});
