import { describe, expect, it } from "@jest/globals";
import { ClusterTemplateError } from "../cluster-api/cluster-template-error.js";
import { templateSetVersion } from "./template-set-version.js";

const offered = [{ version: "1.30.9", deprecated: true }, { version: "1.31.2" }, { version: "1.31.10" }, { version: "v1.32.0" }, { version: "1.310.0" }];
const choose = (requested: string | undefined, current?: string, offers = offered) =>
  templateSetVersion({ offeredBy: 'template set "in-memory"', offered: offers, ...(requested === undefined ? {} : { requested }), ...(current === undefined ? {} : { current }) });

describe("templateSetVersion for a new cluster", () => {
  it.each([
    ["v1.31", "v1.31.10"],
    ["1.31", "v1.31.10"],
    [" 1.31 ", "v1.31.10"],
    ["v1.31.2", "v1.31.2"],
    ["1.32", "v1.32.0"],
    ["v1.30", "v1.30.9"],
    ["v1.310", "v1.310.0"],
  ])("picks %s → %s, the newest offered patch by number, not by text", (requested, version) => {
    expect(choose(requested)).toEqual({ ok: true, version });
  });

  it("picks the newest offered version that is not deprecated when the request names none", () => {
    expect(choose(undefined)).toEqual({ ok: true, version: "v1.310.0" });
    expect(choose("")).toEqual({ ok: true, version: "v1.310.0" });
    expect(choose(undefined, undefined, [{ version: "1.33.5" }, { version: "1.35.0", deprecated: true }, { version: "1.34.1" }])).toEqual({ ok: true, version: "v1.34.1" });
  });

  it("orders pre-releases below their release and builds by their version", () => {
    const offers = [{ version: "1.34.0-rc.1" }, { version: "1.34.0" }, { version: "1.33.5+k3s1" }];
    expect(choose("1.34", undefined, offers)).toEqual({ ok: true, version: "v1.34.0" });
    expect(choose("1.34.0-rc.1", undefined, offers)).toEqual({ ok: true, version: "v1.34.0-rc.1" });
    expect(choose("1.33", undefined, offers)).toEqual({ ok: true, version: "v1.33.5+k3s1" });
  });

  it("prefers a version that is not deprecated, and takes a deprecated one when it is all there is", () => {
    const set = [{ version: "1.31.3", deprecated: true }, { version: "1.31.2" }, { version: "1.30.1", deprecated: true }];
    expect(choose("v1.31", undefined, set)).toEqual({ ok: true, version: "v1.31.2" });
    expect(choose("v1.31.3", undefined, set)).toEqual({ ok: true, version: "v1.31.3" });
    expect(choose("v1.30", undefined, set)).toEqual({ ok: true, version: "v1.30.1" });
  });

  it("refuses a version the set does not offer, listing the offers newest first", () => {
    expect(choose("v1.29")).toEqual({
      ok: false,
      reason: "UnsupportedVersion",
      message: 'template set "in-memory" offers no Kubernetes v1.29; set kubernetes.version to one of v1.310.0, v1.32.0, v1.31.10, v1.31.2, v1.30.9 (deprecated)',
    });
    expect(choose("v1.31.5")).toMatchObject({ ok: false, reason: "UnsupportedVersion" });
    expect(choose("latest")).toMatchObject({ ok: false, reason: "UnsupportedVersion" });
    expect(choose("v1.31", undefined, [])).toEqual({ ok: false, reason: "UnsupportedVersion", message: 'template set "in-memory" offers no Kubernetes version' });
    expect(choose(undefined, undefined, [{ version: "1.31.2", deprecated: true }])).toEqual({
      ok: false,
      reason: "UnsupportedVersion",
      message: 'template set "in-memory" offers no Kubernetes version that is not deprecated; name one in kubernetes.version',
    });
  });

  it("throws for an offered version that is no full version: the set's fault", () => {
    expect(() => choose("1.31", undefined, [{ version: "1.31" }])).toThrow(ClusterTemplateError);
  });
});

describe("templateSetVersion for a running cluster", () => {
  it("keeps the running version when the request names it or nothing, though a newer patch is offered", () => {
    expect(choose("v1.31", "v1.31.2")).toEqual({ ok: true, version: "v1.31.2" });
    expect(choose("1.31.2", "v1.31.2")).toEqual({ ok: true, version: "v1.31.2" });
    expect(choose(undefined, "1.31.2")).toEqual({ ok: true, version: "v1.31.2" });
  });

  it("keeps a version the set no longer offers, without refusing anything", () => {
    expect(choose("v1.29", "v1.29.4")).toEqual({ ok: true, version: "v1.29.4" });
    expect(choose(undefined, "v1.29.4")).toEqual({ ok: true, version: "v1.29.4" });
    expect(choose("1.31", "v1.31.11")).toEqual({ ok: true, version: "v1.31.11" });
  });

  it("upgrades to the newer offered version the request asks for", () => {
    expect(choose("1.31.10", "v1.31.2")).toEqual({ ok: true, version: "v1.31.10" });
    expect(choose("v1.32", "v1.31.2")).toEqual({ ok: true, version: "v1.32.0" });
    expect(choose("v1.31", "v1.30.9")).toEqual({ ok: true, version: "v1.31.10" });
  });

  it("refuses a downgrade, saying what to set back", () => {
    expect(choose("v1.31", "v1.32.0")).toEqual({
      ok: false,
      reason: "UnsupportedChange",
      message: "kubernetes.version cannot change from v1.32.0 to v1.31 in place; set it back to v1.32.0",
    });
    expect(choose("v1.31.2", "v1.31.10")).toMatchObject({ ok: false, reason: "UnsupportedChange" });
  });

  it("refuses a downgrade to a version the set does not offer as a downgrade, not as an unknown version", () => {
    const onlyNewest = [{ version: "1.37.0" }];
    expect(choose("v1.36", "v1.37.0", onlyNewest)).toEqual({
      ok: false,
      reason: "UnsupportedChange",
      message: "kubernetes.version cannot change from v1.37.0 to v1.36 in place; set it back to v1.37.0",
    });
    expect(choose("1.36.4", "v1.37.0", onlyNewest)).toMatchObject({ ok: false, reason: "UnsupportedChange" });
    // What names no version at all is the offer's question.
    expect(choose("latest", "v1.37.0", onlyNewest)).toMatchObject({ ok: false, reason: "UnsupportedVersion" });
  });

  it("refuses an upgrade that skips a minor version, naming the one to take first", () => {
    expect(choose("v1.32", "v1.30.9")).toEqual({
      ok: false,
      reason: "UnsupportedChange",
      message: "kubernetes.version cannot skip minor versions from v1.30.9 to v1.32.0; upgrade to v1.31 first",
    });
  });

  it("refuses an upgrade to a version the set does not offer", () => {
    expect(choose("v1.33", "v1.32.0")).toMatchObject({ ok: false, reason: "UnsupportedVersion" });
  });
});
