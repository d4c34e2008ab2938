import { describe, expect, it } from "@jest/globals";
import { diffEndpoints } from "./apiexport-source.js";

describe("diffEndpoints", () => {
  it("starts new URLs and stops vanished ones, leaving the rest running", () => {
    expect(diffEndpoints(["https://a/vw", "https://b/vw"], ["https://b/vw", "https://c/vw"])).toEqual({
      start: ["https://c/vw"],
      stop: ["https://a/vw"],
    });
  });

  it("handles the empty slice kcp shows before the first binding", () => {
    expect(diffEndpoints([], [])).toEqual({ start: [], stop: [] });
    expect(diffEndpoints(["https://a/vw"], [])).toEqual({ start: [], stop: ["https://a/vw"] });
  });
});
