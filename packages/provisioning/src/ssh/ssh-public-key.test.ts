import { describe, expect, it } from "@jest/globals";
import { generateKeyPairSync } from "node:crypto";
import { openSshPublicKey, type RsaPublicJwk } from "./ssh-public-key.js";

/** A 1024-bit key made with `ssh-keygen -t rsa -b 1024`; the JWK is node:crypto's export of its public half. */
const VECTOR = {
  jwk: {
    kty: "RSA",
    n: "0GJcRG_fV0S9kkavFxQ8dI_pD1_1GqL701q7EhdgGzR0si3CMfT4vxGet5r1p2YKiZx9C7Cw3_9ruNINwqTqlaLoTaS2YSkG8IWvvep-VPCaPAaw7gVa2Z_poLh8JYAYxkdlF-9p7u9uiqiEP4X_dpDtYXqNfkc4RQ3zFWCJzZE",
    e: "AQAB",
  },
  openSsh:
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDQYlxEb99XRL2SRq8XFDx0j+kPX/UaovvTWrsSF2AbNHSyLcIx9Pi/EZ63mvWnZgqJnH0LsLDf/2u40g3CpOqVouhNpLZhKQbwha+96n5U8Jo8BrDuBVrZn+mguHwlgBjGR2UX72nu726KqIQ/hf92kO1heo1+RzhFDfMVYInNkQ==",
} as const;

/** Reads the RFC 4253 fields back: string "ssh-rsa", mpint e, mpint n. */
function wireFields(openSsh: string): Buffer[] {
  const wire = Buffer.from(openSsh.split(" ")[1] ?? "", "base64");
  const fields: Buffer[] = [];
  for (let offset = 0; offset < wire.length; ) {
    const length = wire.readUInt32BE(offset);
    fields.push(wire.subarray(offset + 4, offset + 4 + length));
    offset += 4 + length;
  }
  return fields;
}

describe("openSshPublicKey", () => {
  it("matches ssh-keygen for a known key", () => {
    expect(openSshPublicKey(VECTOR.jwk)).toBe(VECTOR.openSsh);
    expect(openSshPublicKey(VECTOR.jwk, "workers")).toBe(`${VECTOR.openSsh} workers`);
  });

  it.each([2048, 3072])("encodes a %i-bit key from node:crypto as the wire format of its n and e", (modulusLength) => {
    const { publicKey } = generateKeyPairSync("rsa", { modulusLength });
    const jwk = publicKey.export({ format: "jwk" }) as RsaPublicJwk;
    const [type, e, n] = wireFields(openSshPublicKey(jwk));
    expect(type?.toString()).toBe("ssh-rsa");
    expect(e?.toString("hex")).toBe("010001");
    // The modulus has its top bit set, so mpint prepends a zero byte.
    expect(n?.[0]).toBe(0);
    expect(n?.subarray(1).equals(Buffer.from(jwk.n, "base64url"))).toBe(true);
  });

  it.each([
    ["another key type", { kty: "EC", n: "AQAB", e: "AQAB" }],
    ["an empty modulus", { kty: "RSA", n: "", e: "AQAB" }],
    ["a modulus that is not base64url", { kty: "RSA", n: "a+b/", e: "AQAB" }],
  ])("refuses %s", (_case, jwk) => {
    expect(() => openSshPublicKey(jwk as RsaPublicJwk)).toThrow("not an RSA public key");
  });
});
