import { describe, expect, it } from "@jest/globals";
import { SECRET_LABEL } from "@edgeconnect/api";
import { MAX_CREDENTIALS_BYTES } from "@edgeconnect/provisioning";
import { demoCredentialsSecret, platformCredentialsSecret } from "./otc-credentials.js";

const PASSWORD_FILE = ["auth_url=https://iam.eu-de.otc.t-systems.com/v3", "user_name=platform-admin", "password=pl4tform-Passw0rd-X", "domain_name=OTC-EU-DE-00000000001000000001", "tenant_name=eu-de", ""].join("\n");
const ACCESS_KEY_FILE = JSON.stringify({ access_key: "PLATFORMAK000000001", secret_key: "platform-secret-key-Zq8", auth_url: "https://iam.eu-de.otc.t-systems.com/v3", region: "eu-de" }, null, 2);

function stored(result: ReturnType<typeof platformCredentialsSecret>): Record<string, string> {
  if (!result.ok) throw new Error(result.problems.join("; "));
  return JSON.parse((result.secret["stringData"] as Record<string, string>)["credentials"] ?? "") as Record<string, string>;
}

describe("platformCredentialsSecret", () => {
  it("turns the seed's password file into the JSON object the OTC provider reads", () => {
    const result = platformCredentialsSecret(PASSWORD_FILE);
    expect(result.ok && result.secret.metadata).toEqual({ namespace: "crossplane-system", name: "opentelekomcloud-credentials" });
    expect(result.ok && result.mode).toBe("password");
    expect(stored(result)).toMatchObject({ auth_url: "https://iam.eu-de.otc.t-systems.com/v3", user_name: "platform-admin", password: "pl4tform-Passw0rd-X", domain_name: "OTC-EU-DE-00000000001000000001", tenant_name: "eu-de" });
  });

  it("takes the seed's AK/SK file as well", () => {
    const result = platformCredentialsSecret(ACCESS_KEY_FILE);
    expect(result.ok && result.mode).toBe("accessKey");
    expect(stored(result)).toMatchObject({ access_key: "PLATFORMAK000000001", secret_key: "platform-secret-key-Zq8", region: "eu-de" });
  });

  it("refuses a file the controller would refuse, naming the problem and never a value", () => {
    const result = platformCredentialsSecret("auth_url=https://iam.eu-de.otc.t-systems.com/v3\npassword=only-a-Passw0rd-here\n");
    expect(result.ok).toBe(false);
    const problems = result.ok ? "" : result.problems.join("; ");
    expect(problems).not.toBe("");
    expect(problems).not.toContain("only-a-Passw0rd-here");
  });

  it("refuses a file larger than the controller reads", () => {
    const result = platformCredentialsSecret(`${PASSWORD_FILE}#${"x".repeat(MAX_CREDENTIALS_BYTES)}\n`);
    expect(result).toEqual({ ok: false, problems: [`the credentials file is larger than ${MAX_CREDENTIALS_BYTES} bytes`] });
  });
});

describe("demoCredentialsSecret", () => {
  it("writes demo/otc-creds with the seed's keys, labelled for the platform", () => {
    const result = demoCredentialsSecret({ accessKey: "DEMOAK0000000000001", secretKey: "demo-secret-key-Yw2", authUrl: "https://iam.eu-de.otc.t-systems.com/v3", region: "eu-de", projectName: "eu-de_demo" });
    if (!result.ok) throw new Error(result.problems.join("; "));
    expect(result.secret.metadata).toEqual({ namespace: "demo", name: "otc-creds", labels: { [SECRET_LABEL.key]: SECRET_LABEL.value } });
    expect(JSON.parse((result.secret["stringData"] as Record<string, string>)["credentials"] ?? "")).toEqual({
      access_key: "DEMOAK0000000000001",
      secret_key: "demo-secret-key-Yw2",
      auth_url: "https://iam.eu-de.otc.t-systems.com/v3",
      region: "eu-de",
      tenant_name: "eu-de_demo",
    });
  });

  it("refuses an auth URL the controller would refuse, without quoting the keys", () => {
    const result = demoCredentialsSecret({ accessKey: "DEMOAK0000000000001", secretKey: "demo-secret-key-Yw2", authUrl: "not a url", region: "eu-de", projectName: "eu-de" });
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toContain("demo-secret-key-Yw2");
  });
});
