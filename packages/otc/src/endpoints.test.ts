import { describe, expect, it } from "@jest/globals";
import { resolveEndpoints, serviceUrl } from "./endpoints.js";
import { OtcConfigError } from "./errors.js";

describe("resolveEndpoints", () => {
  it("derives every service from the region", () => {
    const endpoints = resolveEndpoints("eu-nl");
    expect(Object.fromEntries(Object.entries(endpoints).map(([service, url]) => [service, url.href]))).toEqual({
      iam: "https://iam.eu-nl.otc.t-systems.com/",
      ecs: "https://ecs.eu-nl.otc.t-systems.com/",
      vpc: "https://vpc.eu-nl.otc.t-systems.com/",
      elb: "https://elb.eu-nl.otc.t-systems.com/",
    });
  });

  it("takes per-service overrides, e.g. for the Swiss cloud or a simulator with a path prefix", () => {
    const endpoints = resolveEndpoints("eu-ch2", { iam: "https://iam-pub.eu-ch2.sc.otc.t-systems.com", elb: "http://127.0.0.1:8080/sim/" });
    expect(serviceUrl(endpoints.iam, "/v3/projects").href).toBe("https://iam-pub.eu-ch2.sc.otc.t-systems.com/v3/projects");
    expect(serviceUrl(endpoints.elb, "/v2.0/lbaas/pools").href).toBe("http://127.0.0.1:8080/sim/v2.0/lbaas/pools");
    expect(endpoints.ecs.href).toBe("https://ecs.eu-ch2.otc.t-systems.com/");
  });

  it("rejects bad regions and overrides without echoing user info", () => {
    expect(() => resolveEndpoints("EU DE")).toThrow(OtcConfigError);
    expect(() => resolveEndpoints("eu-de", { ecs: "not a url" })).toThrow(OtcConfigError);
    expect(() => resolveEndpoints("eu-de", { ecs: "ftp://h" })).toThrow(/must be http\(s\)/);
    expect(() => resolveEndpoints("eu-de", { ecs: "https://user:hunter2@h" })).toThrow(OtcConfigError);
    try {
      resolveEndpoints("eu-de", { ecs: "https://user:hunter2@h" });
    } catch (error) {
      expect(String(error)).not.toContain("hunter2");
    }
  });
});
