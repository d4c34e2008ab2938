import { describe, expect, it } from "@jest/globals";
import { scrubText } from "@edgeconnect/redaction";
import { clientOptions, CredentialsError, parseCredentials } from "./credentials.js";

describe("parseCredentials", () => {
  it("reads a JSON object of strings", () => {
    expect(parseCredentials('{"access_key":"AK0123456789","secret_key":"sk-parse-test-value","region":"eu-de"}')).toEqual({
      access_key: "AK0123456789",
      secret_key: "sk-parse-test-value",
      region: "eu-de",
    });
  });

  it("refuses text that is no JSON without quoting it", () => {
    const text = "secret_key=sk-not-json-value-1234";
    expect(() => parseCredentials(text)).toThrow(CredentialsError);
    expect(() => parseCredentials(text)).toThrow("cannot unmarshal opentelekomcloud credentials as JSON: the value is not valid JSON");
    try {
      parseCredentials(text);
    } catch (err) {
      expect((err as Error).message).not.toContain("sk-not-json");
    }
  });

  it("refuses non-string values, naming the keys only (the provider unmarshals into map[string]string)", () => {
    expect(() => parseCredentials('{"max_retries":2,"insecure":false,"password":"pw-non-string-test"}')).toThrow(
      "values must be strings (quote numbers and booleans): max_retries, insecure",
    );
    expect(() => parseCredentials('["a"]')).toThrow("is not a JSON object");
  });

  it("registers the authenticating values for redaction before anything else", () => {
    parseCredentials('{"secret_key":"sk-registered-on-parse","password":"pw-registered-on-parse","max_retries":"3"}');
    expect(scrubText("got sk-registered-on-parse and pw-registered-on-parse")).toBe("got [REDACTED] and [REDACTED]");
  });
});

describe("clientOptions", () => {
  it("takes AK/SK with the endpoints of auth_url and the project named by tenant_name", () => {
    const options = clientOptions({
      access_key: "AKAKSKTEST0001",
      secret_key: "sk-aksk-options-test",
      auth_url: "https://iam.eu-de.otc.t-systems.com/v3",
      tenant_name: "eu-de_edge",
    });
    expect(options).toEqual({
      credentials: { kind: "accessKey", accessKey: "AKAKSKTEST0001", secretKey: "sk-aksk-options-test" },
      region: "eu-de",
      projectName: "eu-de_edge",
      endpoints: expect.objectContaining({ iam: "https://iam.eu-de.otc.t-systems.com", cce: "https://cce.eu-de.otc.t-systems.com" }),
    });
  });

  it("takes a password with domain and project, the region from tenant_name's prefix, and tenant_id as project ID", () => {
    const options = clientOptions({
      user_name: "edge-user",
      password: "pw-password-options-test",
      domain_name: "OTC00000000001000000001",
      tenant_name: "eu-nl_platform",
      tenant_id: "0123456789abcdef0123456789abcdef",
    });
    expect(options).toEqual({
      credentials: { kind: "password", userName: "edge-user", password: "pw-password-options-test", domainName: "OTC00000000001000000001", projectName: "eu-nl_platform" },
      region: "eu-nl",
      projectId: "0123456789abcdef0123456789abcdef",
    });
  });

  it("prefers region, takes project_name, and serves every service at an override", () => {
    const options = clientOptions(
      { user_name: "u", password: "pw-override-test-1", domain_name: "d", project_name: "eu-de", region: "eu-de", auth_url: "https://iam.eu-de.otc.t-systems.com/v3" },
      { endpointOverride: "http://127.0.0.1:4000" },
    );
    expect(options.region).toBe("eu-de");
    expect(options.credentials).toMatchObject({ kind: "password", projectName: "eu-de" });
    expect(options.endpoints).toEqual({ iam: "http://127.0.0.1:4000", ecs: "http://127.0.0.1:4000", vpc: "http://127.0.0.1:4000", elb: "http://127.0.0.1:4000", cce: "http://127.0.0.1:4000" });
  });

  it("serves every service at the auth_url's origin when its host has no iam. label (a simulator)", () => {
    const options = clientOptions({ access_key: "AKSIM00000001", secret_key: "sk-simulator-origin", region: "eu-de", auth_url: "http://127.0.0.1:8443/v3" });
    expect(new Set(Object.values(options.endpoints ?? {}))).toEqual(new Set(["http://127.0.0.1:8443"]));
  });

  it("says what is missing, never a value", () => {
    expect(() => clientOptions({ access_key: "AKONLY000001", region: "eu-de" })).toThrow("access_key and secret_key must be given together");
    expect(() => clientOptions({ user_name: "u", password: "pw-missing-domain", region: "eu-de" })).toThrow("password credentials need domain_name");
    expect(() => clientOptions({ region: "eu-de" })).toThrow("neither access_key and secret_key nor user_name and password");
    expect(() => clientOptions({ access_key: "AKNOREGION01", secret_key: "sk-no-region-value" })).toThrow("cannot determine the region");
  });
});
