import { describe, expect, it } from "@jest/globals";
import { homedir } from "node:os";
import { join } from "node:path";
import { UsageError, Variables } from "./variables.js";

describe("Variables", () => {
  it("names a missing variable and shows how to set it, for the target called", () => {
    const vars = new Variables({ KCP_WORKSPACE: " " }, "demo-up");
    expect(() => vars.required("KCP_WORKSPACE", "root:orgs")).toThrow(new UsageError("KCP_WORKSPACE is not set: make KCP_WORKSPACE=root:orgs demo-up"));
  });

  it("refuses a malformed workspace path without echoing it", () => {
    const vars = new Variables({ KCP_WORKSPACE: "root:Orgs/../secret-value" }, "demo-up");
    let message = "";
    try {
      vars.workspace("KCP_WORKSPACE");
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^KCP_WORKSPACE must be a kcp workspace path/);
    expect(message).not.toContain("secret-value");
  });

  it("accepts workspace paths and falls back to a default", () => {
    expect(new Variables({ W: "root:orgs:team-1" }, "t").workspace("W")).toBe("root:orgs:team-1");
    expect(new Variables({}, "t").workspace("W", "root:edgeconnect")).toBe("root:edgeconnect");
    expect(() => new Variables({ W: "orgs" }, "t").workspace("W")).toThrow(UsageError);
    expect(() => new Variables({ W: "root:-a" }, "t").workspace("W")).toThrow(UsageError);
  });

  it("reads durations in ms, s, m and h, and refuses others", () => {
    const vars = new Variables({ A: "90s", B: "45m", C: "1h", D: "250ms", E: "10", F: "-1s" }, "t");
    expect([vars.duration("A", "1s"), vars.duration("B", "1s"), vars.duration("C", "1s"), vars.duration("D", "1s")]).toEqual([90_000, 2_700_000, 3_600_000, 250]);
    expect(vars.duration("UNSET", "5s")).toBe(5_000);
    expect(() => vars.duration("E", "1s")).toThrow(UsageError);
    expect(() => vars.duration("F", "1s")).toThrow(UsageError);
  });

  it("takes kcp's kubeconfig from the first file of KUBECONFIG, as kubectl does, else ~/.kube/config", () => {
    expect(new Variables({ KUBECONFIG: "/a/kcp.kubeconfig:/b/other" }, "t").kcpKubeconfig()).toBe("/a/kcp.kubeconfig");
    expect(new Variables({ KUBECONFIG: ":/b/other" }, "t").kcpKubeconfig()).toBe("/b/other");
    expect(new Variables({}, "t").kcpKubeconfig()).toBe(join(homedir(), ".kube", "config"));
  });
});
