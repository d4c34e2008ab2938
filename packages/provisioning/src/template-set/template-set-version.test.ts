import { describe, expect, it } from "@jest/globals";
import { templateSetVersion } from "./template-set-version.js";

const offered = [{ version: "1.30.9", deprecated: true }, { version: "1.31.2" }, { version: "1.31.10" }, { version: "v1.32.0" }, { version: "1.310.0" }];
const choose = (requested: string, current?: string) => templateSetVersion({ requested, templateSet: "in-memory", offered, ...(current === undefined ? {} : { current }) });

describe("templateSetVersion", () => {
  it.each([
    ["v1.31", "v1.31.10"],
    ["1.31", "v1.31.10"],
    ["v1.31.2", "v1.31.2"],
    ["1.32", "v1.32.0"],
    ["v1.30", "v1.30.9"],
    ["v1.310", "v1.310.0"],
  ])("picks %s → %s, newest by number, not by text", (requested, version) => {
    expect(choose(requested)).toEqual({ ok: true, version });
  });

  it("prefers a version that is not deprecated, and takes a deprecated one when it is all there is", () => {
    const set = [{ version: "1.31.3", deprecated: true }, { version: "1.31.2" }, { version: "1.30.1", deprecated: true }];
    expect(templateSetVersion({ requested: "v1.31", templateSet: "s", offered: set })).toEqual({ ok: true, version: "v1.31.2" });
    expect(templateSetVersion({ requested: "v1.31.3", templateSet: "s", offered: set })).toEqual({ ok: true, version: "v1.31.3" });
    expect(templateSetVersion({ requested: "v1.30", templateSet: "s", offered: set })).toEqual({ ok: true, version: "v1.30.1" });
  });

  it("refuses a version the set does not offer, listing the offers newest first", () => {
    expect(choose("v1.29")).toEqual({
      ok: false,
      reason: "UnsupportedVersion",
      message: 'template set "in-memory" offers no Kubernetes v1.29; set kubernetes.version to one of v1.310.0, v1.32.0, v1.31.10, v1.31.2, v1.30.9 (deprecated)',
    });
    expect(choose("v1.31.5")).toMatchObject({ ok: false, reason: "UnsupportedVersion" });
    expect(templateSetVersion({ requested: "v1.31", templateSet: "empty", offered: [] })).toEqual({
      ok: false,
      reason: "UnsupportedVersion",
      message: 'template set "empty" offers no Kubernetes version',
    });
  });

  it("keeps the version a cluster runs, even one the set no longer offers or a newer patch", () => {
    expect(choose("v1.31", "v1.31.2")).toEqual({ ok: true, version: "v1.31.2" });
    expect(choose("v1.29", "v1.29.4")).toEqual({ ok: true, version: "v1.29.4" });
  });

  it("refuses a version that no longer names the running one, saying what to set back", () => {
    expect(choose("v1.32", "v1.31.2")).toEqual({
      ok: false,
      reason: "UnsupportedChange",
      message: "kubernetes.version cannot change from v1.31.2 to v1.32 in place; set it back to v1.31.2",
    });
    expect(choose("v1.31.10", "v1.31.2")).toMatchObject({ ok: false, reason: "UnsupportedChange" });
  });
});
