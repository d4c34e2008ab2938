import { describe, expect, it } from "@jest/globals";
import { endpointsFromAuthUrl, resolveEndpoints, serviceUrl } from "./endpoints.js";
import { OtcConfigError } from "./errors.js";

describe("resolveEndpoints", () => {
  it("derives every service from the region", () => {
    const endpoints = resolveEndpoints("eu-nl");
    expect(Object.fromEntries(Object.entries(endpoints).map(([service, url]) => [service, url.href]))).toEqual({
      iam: "https://iam.eu-nl.otc.t-systems.com/",
      ecs: "https://ecs.eu-nl.otc.t-systems.com/",
      vpc: "https://vpc.eu-nl.otc.t-systems.com/",
      elb: "https://elb.eu-nl.otc.t-systems.com/",
      cce: "https://cce.eu-nl.otc.t-systems.com/",
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

describe("endpointsFromAuthUrl", () => {
  const services = (iam: string, ecs: string, vpc: string, elb: string, cce: string) => ({ iam, ecs, vpc, elb, cce });

  it.each([
    [
      "https://iam.eu-de.otc.t-systems.com/v3",
      "eu-de",
      services(
        "https://iam.eu-de.otc.t-systems.com",
        "https://ecs.eu-de.otc.t-systems.com",
        "https://vpc.eu-de.otc.t-systems.com",
        "https://elb.eu-de.otc.t-systems.com",
        "https://cce.eu-de.otc.t-systems.com",
      ),
    ],
    [
      "https://iam.eu-nl.otc.t-systems.com:443/v3/",
      "eu-nl",
      services(
        "https://iam.eu-nl.otc.t-systems.com",
        "https://ecs.eu-nl.otc.t-systems.com",
        "https://vpc.eu-nl.otc.t-systems.com",
        "https://elb.eu-nl.otc.t-systems.com",
        "https://cce.eu-nl.otc.t-systems.com",
      ),
    ],
    [
      "http://iam.otc.internal:8080/v3",
      "eu-de",
      services("http://iam.otc.internal:8080", "http://ecs.otc.internal:8080", "http://vpc.otc.internal:8080", "http://elb.otc.internal:8080", "http://cce.otc.internal:8080"),
    ],
    [
      "https://iam.otc.t-systems.com/v3",
      "eu-de",
      services(
        "https://iam.otc.t-systems.com",
        "https://ecs.eu-de.otc.t-systems.com",
        "https://vpc.eu-de.otc.t-systems.com",
        "https://elb.eu-de.otc.t-systems.com",
        "https://cce.eu-de.otc.t-systems.com",
      ),
    ],
    ["http://127.0.0.1:41234/v3", "eu-de", services(...(Array(5).fill("http://127.0.0.1:41234") as [string, string, string, string, string]))],
    ["http://[::1]:8443/v3", "eu-de", services(...(Array(5).fill("http://[::1]:8443") as [string, string, string, string, string]))],
    ["http://localhost:8443", "eu-de", services(...(Array(5).fill("http://localhost:8443") as [string, string, string, string, string]))],
    [
      "https://iam-pub.eu-ch2.sc.otc.t-systems.com/v3",
      "eu-ch2",
      services(...(Array(5).fill("https://iam-pub.eu-ch2.sc.otc.t-systems.com") as [string, string, string, string, string])),
    ],
  ])("%s (%s)", (authUrl, region, expected) => {
    expect(endpointsFromAuthUrl(authUrl, region)).toEqual(expected);
    // What it derives is what resolveEndpoints takes.
    expect(() => resolveEndpoints(region, endpointsFromAuthUrl(authUrl, region))).not.toThrow();
  });

  it("rejects what is no usable URL or region, without echoing it", () => {
    expect(() => endpointsFromAuthUrl("iam.eu-de.otc.t-systems.com/v3", "eu-de")).toThrow(new OtcConfigError("auth URL is not a URL"));
    expect(() => endpointsFromAuthUrl("ftp://iam.eu-de.otc.t-systems.com", "eu-de")).toThrow(/auth URL must be http\(s\)/);
    expect(() => endpointsFromAuthUrl("https://u:hunter2@iam.eu-de.otc.t-systems.com/v3", "eu-de")).toThrow(
      new OtcConfigError("auth URL must not carry user info, a query or a fragment"),
    );
    expect(() => endpointsFromAuthUrl("https://iam.eu-de.otc.t-systems.com/v3", "EU DE")).toThrow(OtcConfigError);
  });
});
