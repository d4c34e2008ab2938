import { describe, expect, it } from "@jest/globals";
import { CloudConfigError, effectiveClusterName, parseCloudConfig, parseIni } from "./cloud-config.js";

const FULL = `
; rendered by the chart
[Global]
access-key = AKEXAMPLE
secret-key = "s3cr;et#value"
region = eu-de
project-name = eu-de_team
domain-name = OTC-EU-DE-000

[LoadBalancer]
subnet-id = 5d7b4a3f-neutron-subnet
network-id = 9a8b-neutron-network
bandwidth-mbit = 250
cluster-name = prod-1
`;

describe("parseIni", () => {
  it("reads sections case-insensitively, comments, quoted values and the last of repeated keys", () => {
    const sections = parseIni("[global]\n# c\nregion = eu-nl ; trailing\nregion = eu-de\nkey = \"a ; b\"\n");
    expect(sections.get("global")?.get("region")).toBe("eu-de");
    expect(sections.get("global")?.get("key")).toBe("a ; b");
  });

  it("names the line it cannot read", () => {
    expect(() => parseIni("region = eu-de")).toThrow(/line 1: expected/);
    expect(() => parseIni('[Global]\nkey = "open')).toThrow(/line 2: unterminated/);
  });
});

describe("parseCloudConfig", () => {
  it("reads [Global] and [LoadBalancer] as the chart renders them", () => {
    expect(parseCloudConfig(FULL, {})).toEqual({
      global: { accessKey: "AKEXAMPLE", secretKey: "s3cr;et#value", region: "eu-de", projectName: "eu-de_team", domainName: "OTC-EU-DE-000", endpoints: {} },
      loadBalancer: { subnetId: "5d7b4a3f-neutron-subnet", networkId: "9a8b-neutron-network", bandwidthMbit: 250, clusterName: "prod-1", availabilityZones: ["eu-de-01"] },
    });
  });

  it("turns LoadBalancer support off when subnet-id is empty, and defaults the bandwidth to 100", () => {
    const base = "[Global]\naccess-key = a\nsecret-key = s\nregion = eu-de\n";
    expect(parseCloudConfig(`${base}[LoadBalancer]\nsubnet-id =\ncluster-name = x\n`, {}).loadBalancer).toBeUndefined();
    expect(parseCloudConfig(base, {}).loadBalancer).toBeUndefined();
    expect(parseCloudConfig(`${base}[LoadBalancer]\nsubnet-id = s1\n`, {}).loadBalancer).toEqual({ subnetId: "s1", bandwidthMbit: 100, availabilityZones: ["eu-de-01"] });
    expect(parseCloudConfig(`${base}[LoadBalancer]\nsubnet-id = s1\navailability-zones = eu-de-02, eu-de-03\n`, {}).loadBalancer?.availabilityZones).toEqual([
      "eu-de-02",
      "eu-de-03",
    ]);
  });

  it("falls back to OS_* variables and defaults the project name to the region", () => {
    const config = parseCloudConfig("[Global]\nregion = eu-nl\n", { OS_ACCESS_KEY: "ak", OS_SECRET_KEY: "sk", OS_PROJECT_ID: "p1" });
    expect(config.global).toEqual({ accessKey: "ak", secretKey: "sk", region: "eu-nl", projectName: "eu-nl", projectId: "p1", endpoints: {} });
  });

  it("takes endpoint overrides from [Endpoints], and auth-url for IAM without its /v3", () => {
    const base = "[Global]\naccess-key=a\nsecret-key=s\nregion=eu-de\nauth-url=https://iam.example/v3\n";
    expect(parseCloudConfig(base, {}).global.endpoints).toEqual({ iam: "https://iam.example" });
    const config = parseCloudConfig(`${base}[Endpoints]\niam = http://127.0.0.1:1\nelb = http://127.0.0.1:2/elb\n`, {});
    expect(config.global.endpoints).toEqual({ iam: "http://127.0.0.1:1", elb: "http://127.0.0.1:2/elb" });
    expect(() => parseCloudConfig(`${base}[Endpoints]\nevs = http://x\n`, {})).toThrow("[Endpoints] evs is not a known service");
  });

  it("accepts tenant-name and tenant-id as the older spellings", () => {
    const config = parseCloudConfig("[Global]\naccess-key=a\nsecret-key=s\nregion=eu-de\ntenant-name=eu-de_x\ntenant-id=t1\n", {});
    expect(config.global).toMatchObject({ projectName: "eu-de_x", projectId: "t1" });
  });

  it("says which key is missing or wrong, and never shows a value", () => {
    expect(() => parseCloudConfig("[Global]\nregion = eu-de\nsecret-key = topsecret\n", {})).toThrow(
      new CloudConfigError("[Global] access-key is required (or set OS_ACCESS_KEY)"),
    );
    const wrong = () => parseCloudConfig("[Global]\naccess-key=a\nsecret-key=topsecret\nregion=eu-de\n[LoadBalancer]\nsubnet-id=s\nbandwidth-mbit=-5\n", {});
    expect(wrong).toThrow("[LoadBalancer] bandwidth-mbit must be a positive integer");
    expect(() => wrong()).not.toThrow(/topsecret|-5/);
  });
});

describe("effectiveClusterName", () => {
  const config = (clusterName?: string) =>
    parseCloudConfig(`[Global]\naccess-key=a\nsecret-key=s\nregion=eu-de\n[LoadBalancer]\nsubnet-id=s\n${clusterName ? `cluster-name=${clusterName}\n` : ""}`, {});

  it("prefers cloud.conf's cluster-name over --cluster-name, then the flag, then kubernetes", () => {
    expect(effectiveClusterName(config("from-conf"), "from-flag")).toBe("from-conf");
    expect(effectiveClusterName(config(), "from-flag")).toBe("from-flag");
    expect(effectiveClusterName(config(), undefined)).toBe("kubernetes");
  });
});
