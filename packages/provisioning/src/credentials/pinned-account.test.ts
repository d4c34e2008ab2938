import { describe, expect, it } from "@jest/globals";
import type { OtcCredentials } from "./credential-parsing.js";
import { accountAnnotations, accountChange, accountOf, recordedAccount, type CloudAccount } from "./pinned-account.js";

const password: OtcCredentials = { mode: "password", authUrl: "https://iam.eu-de.otc.t-systems.com/v3", userName: "alice", password: "pw-unused-here", domainName: "OTC-A", projectName: "eu-de_team", region: "eu-de" };
const accessKey: OtcCredentials = { mode: "accessKey", authUrl: "https://iam.eu-de.otc.t-systems.com/v3", accessKey: "AK", secretKey: "SK-unused-here", projectName: "eu-de_team", region: "eu-de" };
const RECORDED: CloudAccount = { projectId: "p-1", projectName: "eu-de_team", region: "eu-de", domainName: "OTC-A" };

describe("the account a cluster was created in", () => {
  it("round-trips through annotations, with or without a domain", () => {
    const withDomain = accountOf(password, "p-1");
    expect(withDomain).toEqual(RECORDED);
    expect(recordedAccount(accountAnnotations(withDomain))).toEqual(withDomain);
    const withoutDomain = accountOf(accessKey, "p-1");
    expect(withoutDomain).toEqual({ projectId: "p-1", projectName: "eu-de_team", region: "eu-de" });
    expect(recordedAccount(accountAnnotations(withoutDomain))).toEqual(withoutDomain);
  });

  it("is unknown on resources made before accounts were recorded", () => {
    expect(recordedAccount(undefined)).toBeUndefined();
    expect(recordedAccount({ "platform.edgeconnect.eu/uid": "u" })).toBeUndefined();
  });

  it("lets a rotation within the project through, whichever credential kind, also when the new one names no domain", () => {
    expect(accountChange(RECORDED, accountOf(password, "p-1"))).toBeUndefined();
    expect(accountChange(RECORDED, accountOf(accessKey, "p-1"))).toBeUndefined();
  });

  it("refuses another project, region or domain, naming what to restore", () => {
    const other = accountChange(RECORDED, { projectId: "p-2", projectName: "eu-nl_x", region: "eu-nl", domainName: "OTC-B" });
    expect(other).toBe(
      "the credentials now name region eu-nl instead of eu-de, project eu-nl_x (p-2) instead of eu-de_team (p-1), domain OTC-B instead of OTC-A; " +
        "this cluster's cloud resources live in project eu-de_team (p-1) of domain OTC-A in region eu-de: restore credentials of that project (rotating them within it is fine), or create a new KubernetesCluster for the other account",
    );
    expect(accountChange(RECORDED, { ...RECORDED, projectId: "p-3" })).toMatch(/^the credentials now name project eu-de_team \(p-3\) instead of eu-de_team \(p-1\);/);
    expect(accountChange(RECORDED, { ...RECORDED, domainName: "OTC-C" })).toMatch(/domain OTC-C instead of OTC-A/);
  });
});
