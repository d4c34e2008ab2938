import { describe, expect, it } from "@jest/globals";
import { credentialFingerprint, credentialsText, crossplaneCredentials, MAX_CREDENTIALS_BYTES, MAX_CREDENTIALS_LINES, parseOtcCredentials, type OtcCredentials } from "./credential-parsing.js";

/** Appears in no key, message or other value: any problem containing it leaked the password. */
const PASSWORD = "Zq8#unique-pa55word-7f3e";
const SECRET_KEY = "sk-unique-9d41c6b2e0";

const PASSWORD_FILE = [
  "auth_url=https://iam.eu-de.otc.t-systems.com/v3",
  "user_name=alice",
  `password=${PASSWORD}`,
  "domain_name=OTC00000000001000000001",
  "tenant_name=eu-de",
].join("\n");

const ACCESS_KEY_FILE = JSON.stringify(
  { access_key: "AKIDEXAMPLE", secret_key: SECRET_KEY, auth_url: "https://iam.eu-de.otc.t-systems.com/v3", region: "eu-de" },
  null,
  2,
);

function parsed(text: string): OtcCredentials {
  const result = parseOtcCredentials(text);
  if (!result.ok) throw new Error(`unexpected problems: ${result.problems.join("; ")}`);
  return result.credentials;
}

function problems(text: string): string[] {
  const result = parseOtcCredentials(text);
  if (result.ok) throw new Error("expected problems");
  return result.problems;
}

describe("parseOtcCredentials", () => {
  it("reads the password form of the seed", () => {
    expect(parsed(PASSWORD_FILE)).toEqual({
      mode: "password",
      authUrl: "https://iam.eu-de.otc.t-systems.com/v3",
      userName: "alice",
      password: PASSWORD,
      domainName: "OTC00000000001000000001",
      projectName: "eu-de",
      region: "eu-de",
    });
  });

  it("reads the access-key form of the seed", () => {
    expect(parsed(ACCESS_KEY_FILE)).toEqual({
      mode: "accessKey",
      authUrl: "https://iam.eu-de.otc.t-systems.com/v3",
      accessKey: "AKIDEXAMPLE",
      secretKey: SECRET_KEY,
      region: "eu-de",
      projectName: "eu-de",
    });
  });

  it.each<[string, string, Partial<OtcCredentials>]>([
    ["comments, blank lines, CRLF and padding", `# OTC\r\n\r\n  ${PASSWORD_FILE.replaceAll("\n", " \r\n  ")}  \r\n# end`, { password: PASSWORD, userName: "alice" }],
    ["a byte-order mark", `\uFEFF${PASSWORD_FILE}`, { userName: "alice" }],
    ["a value containing = and #", PASSWORD_FILE.replace(`password=${PASSWORD}`, "password=a=b#c"), { password: "a=b#c" }],
    ["a project of the region", PASSWORD_FILE.replace("tenant_name=eu-de", "tenant_name=eu-de_team"), { projectName: "eu-de_team", region: "eu-de" }],
    ["project_name instead of tenant_name", PASSWORD_FILE.replace("tenant_name=eu-de", "project_name=eu-nl_x"), { projectName: "eu-nl_x", region: "eu-nl" }],
    ["region only", PASSWORD_FILE.replace("tenant_name=eu-de", "region=eu-ch2"), { projectName: "eu-ch2", region: "eu-ch2" }],
    ["an explicit region that agrees", `${PASSWORD_FILE}\nregion=eu-de`, { region: "eu-de" }],
    ["a domain id", `${PASSWORD_FILE}\ndomain_id=d1`, { domainId: "d1" }],
    ["a simulator's http auth_url", PASSWORD_FILE.replace("https://iam.eu-de.otc.t-systems.com/v3", "http://127.0.0.1:8443/v3"), { authUrl: "http://127.0.0.1:8443/v3" }],
    ["password keys in JSON", JSON.stringify({ auth_url: "https://iam/v3", user_name: "u", password: PASSWORD, domain_name: "d", tenant_name: "eu-de" }), { mode: "password", password: PASSWORD }],
    [
      "access keys with project and domain",
      JSON.stringify({ access_key: "A", secret_key: SECRET_KEY, auth_url: "https://iam/v3", tenant_name: "eu-de_p", project_id: "p1", domain_name: "d" }),
      { mode: "accessKey", projectName: "eu-de_p", region: "eu-de", projectId: "p1", domainName: "d" },
    ],
    ["access keys as key=value lines", `access_key=A\nsecret_key=${SECRET_KEY}\nauth_url=https://iam/v3\nregion=eu-nl`, { mode: "accessKey", region: "eu-nl", projectName: "eu-nl" }],
  ])("accepts %s", (_case, text, expected) => {
    expect(parsed(text)).toMatchObject(expected);
  });

  it.each<[string, string, string[]]>([
    ["empty text", " \n ", ["the credentials are empty"]],
    ["a line without =", PASSWORD_FILE.replace(`password=${PASSWORD}`, PASSWORD), ["line 3: expected key=value", "missing password"]],
    ["a duplicate key", `${PASSWORD_FILE}\npassword=${PASSWORD}x`, ["line 6: duplicate key password (first on line 3)"]],
    ["an unknown key", `${PASSWORD_FILE}\n${PASSWORD}=1`, [expect.stringMatching(/^line 6: unknown key; expected one of auth_url, /) as unknown as string]],
    ["an empty value", PASSWORD_FILE.replace(`password=${PASSWORD}`, "password= "), ["line 3: password is empty"]],
    ["an empty auth_url", PASSWORD_FILE.replace("https://iam.eu-de.otc.t-systems.com/v3", ""), ["line 1: auth_url is empty"]],
    ["a duplicate key and a missing one", `${PASSWORD_FILE.replace("domain_name=OTC00000000001000000001\n", "")}\nuser_name=bob`, ["line 5: duplicate key user_name (first on line 2)", "missing domain_name"]],
    ["missing keys", "auth_url=https://iam/v3\ntenant_name=eu-de", ["missing user_name", "missing password", "missing domain_name"]],
    ["missing secret_key", JSON.stringify({ access_key: "A", auth_url: "https://iam/v3", region: "eu-de" }), ["missing secret_key"]],
    ["an auth_url that is no URL", PASSWORD_FILE.replace("https://iam.eu-de.otc.t-systems.com/v3", "iam.eu-de"), [expect.stringMatching(/^auth_url \(line 1\) is not an http\(s\) URL/) as unknown as string]],
    ["an ftp auth_url", PASSWORD_FILE.replace("https://", "ftp://"), [expect.stringMatching(/^auth_url \(line 1\) is not an http\(s\) URL/) as unknown as string]],
    ["an auth_url with user info", PASSWORD_FILE.replace("https://", `https://alice:${PASSWORD}@`), [expect.stringMatching(/^auth_url \(line 1\) is not an http\(s\) URL without user info/) as unknown as string]],
    ["a region of another project", `${PASSWORD_FILE}\nregion=eu-nl`, ["region (line 6) is not the region of tenant_name (line 5)"]],
    ["an invalid region", PASSWORD_FILE.replace("tenant_name=eu-de", "region=EU DE"), [expect.stringMatching(/^region \(line 5\) is not a region name/) as unknown as string]],
    ["no region at all", PASSWORD_FILE.replace("tenant_name=eu-de", "tenant_name=myproject"), [expect.stringMatching(/^cannot tell the region/) as unknown as string]],
    ["tenant_name and project_name that differ", `${PASSWORD_FILE}\nproject_name=eu-de_x`, ["tenant_name (line 5) and project_name (line 6) name different projects; keep one"]],
    ["both kinds of credentials", `${PASSWORD_FILE}\naccess_key=A\nsecret_key=${SECRET_KEY}`, [expect.stringMatching(/^both access key .* and password .* are given; keep one$/) as unknown as string]],
    ["broken JSON", `{"access_key": "A", "secret_key": "${SECRET_KEY}",`, ["the credentials start with { but are not valid JSON"]],
    ["a JSON array (read as lines)", `[{"secret_key": "${SECRET_KEY}"}]`, ["line 1: expected key=value"]],
    ["a JSON number where a string belongs", '{\n"access_key": "A",\n"secret_key": 12345,\n"auth_url": "https://iam/v3",\n"region": "eu-de"\n}', ["line 3: secret_key must be a string"]],
    ["a duplicate JSON key", `{\n"access_key": "A",\n"secret_key": "${SECRET_KEY}",\n"auth_url": "https://iam/v3",\n"region": "eu-de",\n"secret_key": "${SECRET_KEY}2"\n}`, ["line 6: duplicate key secret_key (first on line 3)"]],
  ])("reports %s", (_case, text, expected) => {
    expect(problems(text)).toEqual(expected);
  });

  it.each([
    ["a password line without =", PASSWORD_FILE.replace(`password=${PASSWORD}`, PASSWORD)],
    ["the password as a key", `${PASSWORD_FILE}\n${PASSWORD}=x`],
    ["the password in the auth_url", PASSWORD_FILE.replace("https://", `https://alice:${PASSWORD}@`)],
    ["the password as the region", `${PASSWORD_FILE}\nregion=${PASSWORD}`],
    ["the password as a JSON key", `{"${PASSWORD}": "x", "secret_key": "${SECRET_KEY}"}`],
    ["broken JSON around the secret key", `{"access_key": "A", "secret_key": "${SECRET_KEY}" "auth_url": 1}`],
    ["a JSON secret key that is a number", `{"access_key": "A", "secret_key": ["${SECRET_KEY}"], "auth_url": "https://iam/v3", "region": "eu-de"}`],
  ])("never names a value in its problems: %s", (_case, text) => {
    const found = problems(text).join("\n");
    expect(found).not.toContain(PASSWORD);
    expect(found).not.toContain(SECRET_KEY);
  });
});

describe("credentialFingerprint", () => {
  it("is a SHA-256 of the credentials, whatever form they were written in", () => {
    const fromLines = parsed(PASSWORD_FILE);
    const fromJson = parsed(JSON.stringify({ tenant_name: "eu-de", domain_name: "OTC00000000001000000001", password: PASSWORD, user_name: "alice", auth_url: "https://iam.eu-de.otc.t-systems.com/v3" }));
    expect(credentialFingerprint(fromLines)).toMatch(/^[0-9a-f]{64}$/);
    expect(credentialFingerprint(fromJson)).toBe(credentialFingerprint(fromLines));
    expect(credentialFingerprint(fromLines)).not.toContain(PASSWORD);
  });

  it.each([
    ["password", (c: OtcCredentials) => ({ ...c, password: `${PASSWORD}x` })],
    ["project", (c: OtcCredentials) => ({ ...c, projectName: "eu-de_other" })],
    ["auth_url", (c: OtcCredentials) => ({ ...c, authUrl: "https://iam.eu-nl.otc.t-systems.com/v3" })],
  ])("changes with the %s", (_case, change) => {
    const credentials = parsed(PASSWORD_FILE);
    expect(credentialFingerprint(change(credentials))).not.toBe(credentialFingerprint(credentials));
  });
});

describe("crossplaneCredentials", () => {
  it.each<[string, string, Record<string, string>]>([
    [
      "password",
      `${PASSWORD_FILE.replace("tenant_name=eu-de", "tenant_name=eu-de_team")}\ndomain_id=d1`,
      {
        auth_url: "https://iam.eu-de.otc.t-systems.com/v3",
        user_name: "alice",
        password: PASSWORD,
        domain_name: "OTC00000000001000000001",
        domain_id: "d1",
        tenant_name: "eu-de_team",
        region: "eu-de",
      },
    ],
    ["access key", ACCESS_KEY_FILE, { access_key: "AKIDEXAMPLE", secret_key: SECRET_KEY, auth_url: "https://iam.eu-de.otc.t-systems.com/v3", region: "eu-de", tenant_name: "eu-de" }],
    [
      "access key with project id and domain",
      JSON.stringify({ access_key: "A", secret_key: SECRET_KEY, auth_url: "https://iam/v3", region: "eu-de", project_id: "p1", domain_name: "dom" }),
      { access_key: "A", secret_key: SECRET_KEY, auth_url: "https://iam/v3", region: "eu-de", tenant_name: "eu-de", tenant_id: "p1", domain_name: "dom" },
    ],
  ])("gives the provider's keys for %s credentials, all strings", (_case, text, expected) => {
    const result = crossplaneCredentials(parsed(text));
    expect(result).toEqual(expected);
    expect(Object.values(result).every((v) => typeof v === "string")).toBe(true);
  });
});

describe("credentialsText", () => {
  const b64 = (value: string | Buffer): string => Buffer.from(value).toString("base64");
  const problem = (base64: string): string => {
    const result = credentialsText(base64);
    if (result.ok) throw new Error("expected a problem");
    return result.problem;
  };

  it("passes both seed forms through unchanged", () => {
    expect(credentialsText(b64(PASSWORD_FILE))).toEqual({ ok: true, text: PASSWORD_FILE });
    expect(credentialsText(b64(ACCESS_KEY_FILE))).toEqual({ ok: true, text: ACCESS_KEY_FILE });
  });

  it("takes exactly the bound and refuses one byte more, for every base64 padding", () => {
    for (const size of [MAX_CREDENTIALS_BYTES - 2, MAX_CREDENTIALS_BYTES - 1, MAX_CREDENTIALS_BYTES]) expect(credentialsText(b64("a".repeat(size))).ok).toBe(true);
    for (const size of [MAX_CREDENTIALS_BYTES + 1, MAX_CREDENTIALS_BYTES + 2, MAX_CREDENTIALS_BYTES + 3]) expect(problem(b64("a".repeat(size)))).toMatch(/larger than 8192 bytes/);
  });

  it("refuses 100 KB and 1 MiB values without decoding them, and never quotes them", () => {
    const large = b64(`password=${PASSWORD}\n`.repeat(5_000));
    expect(problem(large)).not.toContain(PASSWORD);
    // A value that is not even base64 is refused on its length alone.
    expect(problem("!".repeat(1024 * 1024))).toMatch(/larger than/);
  });

  it("refuses binary content and non-UTF-8 bytes", () => {
    expect(problem(b64(Buffer.from([0xff, 0xfe, 0x00, 0x41])))).toBe("the credentials are not UTF-8 text");
    expect(problem(b64(`user_name=alice\u0000\npassword=${PASSWORD}`))).toMatch(/control characters/);
    expect(problem(b64("\u001b[31m"))).toMatch(/control characters/);
  });

  it("takes tabs and CRLF line ends, and refuses more lines than the bound", () => {
    expect(credentialsText(b64("user_name=\talice\r\n")).ok).toBe(true);
    expect(credentialsText(b64("#\n".repeat(MAX_CREDENTIALS_LINES - 1))).ok).toBe(true);
    expect(problem(b64("\n".repeat(MAX_CREDENTIALS_LINES)))).toBe(`the credentials have more than ${MAX_CREDENTIALS_LINES} lines`);
  });
});
