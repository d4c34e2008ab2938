import { describe, expect, it } from "@jest/globals";
import { createHash } from "node:crypto";
import {
  canonicalRequest,
  parseAuthorization,
  sdkDate,
  signature,
  signRequest,
  stringToSign,
  type SignableRequest,
} from "./signer.js";

const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function request(url: string, headers: Record<string, string> = {}, body: string | Uint8Array = "", method = "GET"): SignableRequest {
  return { method, url: new URL(url), headers, body };
}

describe("published vector A (Huawei Java SDK / APIG docs)", () => {
  const AK = "QTWAOYTTINDUT2QVKYUC";
  const SK = "MFyfvK41ba2giqM7Uio6PznpdUKGpownRZlmVmHc";
  const req = request(
    "https://service.region.example.com/v1/77b6a44cba5143ab91d13ab9a8ff44fd/vpcs?limit=2&marker=13551d6b-755d-4757-b956-536f674975c0",
    { "Content-Type": "application/json", "X-Sdk-Date": "20191115T033655Z" },
  );
  const expectedCanonical =
    "GET\n/v1/77b6a44cba5143ab91d13ab9a8ff44fd/vpcs/\nlimit=2&marker=13551d6b-755d-4757-b956-536f674975c0\n" +
    "content-type:application/json\nhost:service.region.example.com\nx-sdk-date:20191115T033655Z\n\n" +
    `content-type;host;x-sdk-date\n${EMPTY_SHA256}`;

  it("builds the canonical request and its hash exactly", () => {
    const canonical = canonicalRequest(req, ["Content-Type", "Host", "X-Sdk-Date"]);
    expect(canonical).toBe(expectedCanonical);
    expect(sha256(canonical)).toBe("b25362e603ee30f4f25e7858e8a7160fd36e803bb2dfe206278659d71a9bcd7a");
  });

  it("signRequest produces the published Authorization", () => {
    const headers = signRequest(req, { accessKey: AK, secretKey: SK }, new Date(Date.UTC(2019, 10, 15, 3, 36, 55)));
    expect(headers.Authorization).toBe(
      "SDK-HMAC-SHA256 Access=QTWAOYTTINDUT2QVKYUC, SignedHeaders=content-type;host;x-sdk-date, " +
        "Signature=7be6668032f70418fcc22abc52071e57aff61b84a1d2381bb430d6870f4f6ebe",
    );
    expect(headers.Host).toBe("service.region.example.com");
    expect(headers["X-Sdk-Date"]).toBe("20191115T033655Z");
    expect(headers["Content-Type"]).toBe("application/json");
  });
});

describe("published vector B (Huawei Go SDK signer_test.go)", () => {
  const SK = "SecretKey";
  const date = "20060102T150405Z";
  const headers = { "Content-Type": "application/json", TEST_UNDERSCORE: "test", "X-Sdk-Date": date };

  it("GET, signing only x-sdk-date", () => {
    const canonical = canonicalRequest(request("https://example.huaweicloud.com/path?limit=1", headers), ["x-sdk-date"]);
    expect(signature(SK, stringToSign(date, canonical))).toBe("5a2ce64c865e0e6046321c6f3d5a77ba8413eeaf355c3166c03d58d02ac79624");
  });

  it("POST hashes the exact body bytes, trailing newline included", () => {
    const url = "https://example.huaweicloud.com/path?key=value";
    const sign = (body: string | Uint8Array): string =>
      signature(SK, stringToSign(date, canonicalRequest(request(url, headers, body, "POST"), ["x-sdk-date"])));
    const body = '{"Name":"test","Id":1}\n';
    expect(sign(body)).toBe("cecc2af119b18ab70b4d094c0750f3b42c02f254903179a0fc2cc72fc9db4f59");
    expect(sign(new TextEncoder().encode(body))).toBe("cecc2af119b18ab70b4d094c0750f3b42c02f254903179a0fc2cc72fc9db4f59");
    expect(sign(body.trimEnd())).not.toBe("cecc2af119b18ab70b4d094c0750f3b42c02f254903179a0fc2cc72fc9db4f59");
  });
});

describe("canonical request details", () => {
  const lines = (url: string, method = "GET", body = ""): string[] =>
    canonicalRequest(request(url, { "X-Sdk-Date": "20200101T000000Z" }, body, method), ["x-sdk-date"]).split("\n");

  it("percent-encodes odd path characters per segment, uppercase hex, unreserved kept", () => {
    expect(lines("https://h/a%20b/c+d/e~f_g-h.i/%E2%82%AC/x(y)*!'")[1]).toBe("/a%20b/c%2Bd/e~f_g-h.i/%E2%82%AC/x%28y%29%2A%21%27/");
    expect(lines("https://h/a:b@c")[1]).toBe("/a%3Ab%40c/");
  });

  it("appends a trailing slash only when missing", () => {
    expect(lines("https://h/v1/x/vpcs")[1]).toBe("/v1/x/vpcs/");
    expect(lines("https://h/v1/x/vpcs/")[1]).toBe("/v1/x/vpcs/");
    expect(lines("https://h")[1]).toBe("/");
  });

  it("sorts keys and multiple values, encodes spaces as %20 and empty values as k=", () => {
    expect(lines("https://h/p?name=b&name=a&flag&z=1&a=x%20y&b=c+d&c=%2F%3D")[2]).toBe("a=x%20y&b=c%20d&c=%2F%3D&flag=&name=a&name=b&z=1");
    expect(lines("https://h/p")[2]).toBe("");
  });

  it("sorts keys and values by their UTF-8 bytes, as Go's sort.Strings does, not by UTF-16 code units", () => {
    // U+FF61 is EF BD A1 in UTF-8 but sorts after the surrogate pair D83D DE00 of U+1F600 (F0 9F 98 80) in UTF-16.
    const query = new URLSearchParams([["\u{1F600}", "2"], ["\uFF61", "1"], ["k", "\u{1F600}"], ["k", "\uFF61"]]);
    expect(lines(`https://h/p?${query.toString()}`)[2]).toBe("k=%EF%BD%A1&k=%F0%9F%98%80&%EF%BD%A1=1&%F0%9F%98%80=2");
  });

  it("hashes an empty body as the sha256 of nothing, and honours X-Sdk-Content-Sha256", () => {
    expect(lines("https://h/p").at(-1)).toBe(EMPTY_SHA256);
    const unsigned = canonicalRequest(
      request("https://h/p", { "X-Sdk-Content-Sha256": "UNSIGNED-PAYLOAD" }, "ignored", "PUT"),
      ["x-sdk-content-sha256"],
    );
    expect(unsigned.split("\n").at(-1)).toBe("UNSIGNED-PAYLOAD");
  });

  it("trims header values and lower-cases and sorts header names", () => {
    const canonical = canonicalRequest(request("https://h:8443/p", { "X-Project-Id": "  p1 ", "X-Sdk-Date": "d" }), ["X-Sdk-Date", "x-project-id", "Host"]);
    expect(canonical.split("\n").slice(3, 8)).toEqual(["host:h:8443", "x-project-id:p1", "x-sdk-date:d", "", "host;x-project-id;x-sdk-date"]);
  });
});

describe("signRequest", () => {
  const credentials = { accessKey: "AK123", secretKey: "very-secret-sk", securityToken: "temporary-token" };
  const now = new Date(Date.UTC(2024, 0, 2, 3, 4, 5));

  it("formats X-Sdk-Date", () => {
    expect(sdkDate(now)).toBe("20240102T030405Z");
  });

  it("signs host, date, content-type, project id and security token, and verifies", () => {
    const req = request("https://ecs.eu-de.otc.t-systems.com/v1/p/cloudservers/detail?name=a b", { "Content-Type": "application/json", "X-Project-Id": "p" }, "{}", "POST");
    const headers = signRequest(req, credentials, now);
    expect(headers["X-Security-Token"]).toBe("temporary-token");
    const parsed = parseAuthorization(headers.Authorization ?? "");
    expect(parsed).toEqual({
      accessKey: "AK123",
      signedHeaders: ["content-type", "host", "x-project-id", "x-sdk-date", "x-security-token"],
      signature: expect.any(String),
    });
    const recomputed = signature("very-secret-sk", stringToSign("20240102T030405Z", canonicalRequest({ ...req, headers }, parsed?.signedHeaders ?? [])));
    expect(recomputed).toBe(parsed?.signature);
  });

  it("signs only host and date when nothing else is present, and replaces a stale date", () => {
    const headers = signRequest(request("https://h/p", { "x-sdk-date": "old", host: "h" }), { accessKey: "A", secretKey: "S" }, now);
    expect(headers["x-sdk-date"]).toBeUndefined();
    expect(headers["X-Sdk-Date"]).toBe("20240102T030405Z");
    expect(headers.Host).toBeUndefined();
    expect(parseAuthorization(headers.Authorization ?? "")?.signedHeaders).toEqual(["host", "x-sdk-date"]);
  });

  it("never puts credentials into error messages", () => {
    const bad = [
      { accessKey: "AK with space", secretKey: "very-secret-sk" },
      { accessKey: "AK,comma", secretKey: "very-secret-sk" },
      { accessKey: "AK123", secretKey: "" },
      { accessKey: "AK123", secretKey: "very-secret-sk", securityToken: "tok\nen-secret" },
    ];
    for (const creds of bad) {
      let message = "";
      try {
        signRequest(request("https://h/p"), creds, now);
      } catch (error) {
        message = String(error) + String((error as Error).stack);
      }
      expect(message).toMatch(/OtcConfigError/);
      expect(message).not.toContain("very-secret-sk");
      expect(message).not.toContain("AK with space");
      expect(message).not.toContain("AK,comma");
      expect(message).not.toContain("en-secret");
    }
  });
});

describe("parseAuthorization", () => {
  it("round-trips what signRequest emits", () => {
    const headers = signRequest(request("https://h/p"), { accessKey: "AK", secretKey: "SK" });
    const parsed = parseAuthorization(headers.Authorization ?? "");
    expect(parsed?.accessKey).toBe("AK");
    expect(parsed?.signedHeaders).toEqual(["host", "x-sdk-date"]);
    expect(parsed?.signature).toMatch(/^[0-9a-f]{64}$/);
  });

  it("rejects malformed values", () => {
    const sig = "a".repeat(64);
    expect(parseAuthorization(`SDK-HMAC-SHA256 Access=AK, SignedHeaders=host, Signature=${sig}`)).toBeDefined();
    for (const value of [
      "",
      `Bearer x`,
      `SDK-HMAC-SHA256 Credential=AK/20200101///sdk_request, SignedHeaders=host, Signature=${sig}`,
      `SDK-HMAC-SHA256 Access=AK, SignedHeaders=, Signature=${sig}`,
      `SDK-HMAC-SHA256 Access=AK, SignedHeaders=host, Signature=abc`,
      `SDK-HMAC-SHA256 Access=AK, Signature=${sig}, SignedHeaders=host`,
    ]) {
      expect(parseAuthorization(value)).toBeUndefined();
    }
  });
});
