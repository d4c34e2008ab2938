import { describe, expect, it } from "@jest/globals";
import { REDACTED, scrubShapes } from "./shapes.js";

const KUBECONFIG = [
  "apiVersion: v1",
  "kind: Config",
  "clusters:",
  "- name: workload",
  "  cluster:",
  "    server: https://203.0.113.10:6443",
  "    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t",
  "users:",
  "- name: admin",
  "  user:",
  "    token: unregistered-service-account-token-0123456789",
  "    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ==",
  "- name: oidc",
  "  user:",
  "    auth-provider:",
  "      config:",
  '        "client-secret": "oidc-client-secret-value"',
  "        refresh-token: oidc-refresh-token-value",
  "",
].join("\n");

describe("scrubShapes", () => {
  it("hides the credentials of kubeconfig-shaped text and keeps the rest readable", () => {
    const scrubbed = scrubShapes(KUBECONFIG);
    for (const secret of ["unregistered-service-account-token", "LS0tLS1CRUdJTiBSU0Eg", "oidc-client-secret-value", "oidc-refresh-token-value"]) {
      expect(scrubbed).not.toContain(secret);
    }
    expect(scrubbed).toContain(`    token: ${REDACTED}\n`);
    expect(scrubbed).toContain(`    client-key-data: ${REDACTED}\n`);
    expect(scrubbed).toContain("certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t");
    expect(scrubbed).toContain("server: https://203.0.113.10:6443");
  });

  it("hides the kubeconfig's credentials inside a message, as the message, and JSON-escaped in a log line", () => {
    expect(scrubShapes(`could not load:\n${KUBECONFIG}`)).not.toContain("unregistered-service-account-token");
    expect(scrubShapes(JSON.stringify({ msg: KUBECONFIG }))).not.toContain("unregistered-service-account-token");
    expect(scrubShapes(JSON.stringify({ msg: KUBECONFIG }))).not.toContain("oidc-refresh-token-value");
  });

  it("hides the OTC credentials file's password= and secret key lines", () => {
    const file = "auth_url=https://iam.example/v3\nuser_name=admin\npassword=tenant-password-9\ndomain_name=OTC-EU-DE\n";
    expect(scrubShapes(file)).toBe(`auth_url=https://iam.example/v3\nuser_name=admin\npassword=${REDACTED}\ndomain_name=OTC-EU-DE\n`);
    expect(scrubShapes('{\n  "access_key": "AKEXAMPLE",\n  "secret_key": "sk-example-value"\n}')).toBe(`{\n  "access_key": "${REDACTED}",\n  "secret_key": "${REDACTED}"\n}`);
  });

  it("hides JSON fields named like credentials, also in escaped JSON, and keeps others and non-strings", () => {
    expect(scrubShapes('{"password":"p-1","name":"n","tokens":3,"nested":"{\\"token\\":\\"t-2\\"}"}')).toBe(
      `{"password":"${REDACTED}","name":"n","tokens":3,"nested":"{\\"token\\":\\"${REDACTED}\\"}"}`,
    );
  });

  it("hides URL query parameters named like credentials, and URL passwords", () => {
    expect(scrubShapes("GET https://vw.example/clusters/*?token=abc123&watch=true")).toBe(`GET https://vw.example/clusters/*?token=${REDACTED}&watch=true`);
    expect(scrubShapes("/x?access_token=a.b.c&X-Amz-Signature=f00d&sig=1")).toBe(`/x?access_token=${REDACTED}&X-Amz-Signature=${REDACTED}&sig=1`);
    expect(scrubShapes("dial https://admin:hunter2-pw@etcd.example:2379 failed")).toBe(`dial https://admin:${REDACTED}@etcd.example:2379 failed`);
    expect(scrubShapes("https://etcd.example:2379/path?limit=500")).toBe("https://etcd.example:2379/path?limit=500");
  });

  it("hides key=value words named like credentials anywhere in prose, and keeps the others", () => {
    expect(scrubShapes("upstream said token=sekr3t-Token-9876 for user alice")).toBe(`upstream said token=${REDACTED} for user alice`);
    expect(scrubShapes("login failed (password=hunter2-pw, domain=OTC-EU-DE)")).toBe(`login failed (password=${REDACTED}, domain=OTC-EU-DE)`);
    expect(scrubShapes("Error: refused secret_key=sk-abc;retry")).toBe(`Error: refused secret_key=${REDACTED};retry`);
    const plain = "retried 3 times (attempts=3, delay=250ms); kind=Secret name=my-cluster-kubeconfig";
    expect(scrubShapes(plain)).toBe(plain);
  });

  it("hides Bearer and Basic values, and keeps the words prose puts after them", () => {
    expect(scrubShapes("curl -H 'authorization: bearer abcdefgh12345678'")).toBe(`curl -H 'authorization: bearer ${REDACTED}'`);
    expect(scrubShapes("header Basic dXNlcjpwYXNzd29yZA== sent")).toBe(`header Basic ${REDACTED} sent`);
    expect(scrubShapes("no Bearer token given; Basic authentication is off.")).toBe("no Bearer token given; Basic authentication is off.");
  });

  it("hides JSON Web Tokens and PEM private keys anywhere", () => {
    const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQifQ.c2lnbmF0dXJl";
    expect(scrubShapes(`token was ${jwt}, rejected`)).toBe(`token was ${REDACTED}, rejected`);
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----";
    expect(scrubShapes(`key ${pem} end`)).toBe(`key ${REDACTED} end`);
    expect(scrubShapes(`cut off: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkq`)).toBe(`cut off: ${REDACTED}`);
  });

  it("leaves ordinary log text alone", () => {
    const text = "reconciled default/my-cluster: 3 managed resources Ready (took 12 ms); next check in 30s; name: my-cluster";
    expect(scrubShapes(text)).toBe(text);
  });

  it("costs time linear in the text, even for text made to trip backtracking", () => {
    for (const unit of ['"token":"', "?token=", "\ntoken: ", "Bearer ", "-----BEGIN PRIVATE KEY-----", "\\\"password\\\":\\\"", "https://a:"]) {
      const text = unit.repeat(Math.ceil(200_000 / unit.length));
      expect(typeof scrubShapes(text)).toBe("string");
    }
  });
});
