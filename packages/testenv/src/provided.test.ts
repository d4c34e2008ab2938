import { afterEach, describe, expect, it, jest } from "@jest/globals";
import { provided } from "./provided.js";

describe("provided", () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it("is true when nothing is missing, in CI or not", () => {
    expect(provided("suite", undefined, {})).toBe(true);
    expect(provided("suite", undefined, { CI: "true" })).toBe(true);
  });

  it("skips with the reason outside CI", () => {
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    expect(provided("console e2e", "no Chromium at /usr/bin/chromium", {})).toBe(false);
    expect(warn).toHaveBeenCalledWith("console e2e skipped: no Chromium at /usr/bin/chromium");
  });

  it("fails in CI", () => {
    expect(() => provided("console e2e", "no Chromium at /usr/bin/chromium", { CI: "true" })).toThrow("console e2e cannot run in CI: no Chromium at /usr/bin/chromium");
  });
});
