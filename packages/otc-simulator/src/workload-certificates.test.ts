import { createPrivateKey, X509Certificate } from "node:crypto";
import { describe, expect, it } from "@jest/globals";
import { createCertificateAuthority, issueClientCertificate } from "./workload-certificates.js";

describe("workload certificates", () => {
  const ca = createCertificateAuthority("ci-client-ca", 10);

  it("makes a self-signed CA with an RSA 2048 key", () => {
    const cert = new X509Certificate(ca.certPem);
    expect(cert.subject).toBe("CN=ci-client-ca");
    expect(cert.issuer).toBe("CN=ci-client-ca");
    expect(cert.ca).toBe(true);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.publicKey.asymmetricKeyDetails).toMatchObject({ modulusLength: 2048 });
    expect(cert.checkPrivateKey(createPrivateKey(ca.keyPem))).toBe(true);
    expect(new Date(cert.validTo).getTime() - new Date(cert.validFrom).getTime()).toBe(10 * 24 * 60 * 60 * 1000);
  });

  it("issues client certificates with the groups as organizations, for clientAuth only", () => {
    const notBefore = new Date("2026-03-01T12:00:00Z");
    const issued = issueClientCertificate(ca, { commonName: "alice", organizations: ["system:masters", "team"], days: 2, notBefore });
    const cert = new X509Certificate(issued.certPem);
    const authority = new X509Certificate(ca.certPem);
    expect(cert.subject.split("\n").sort()).toEqual(["CN=alice", "O=system:masters", "O=team"]);
    expect(cert.checkIssued(authority)).toBe(true);
    expect(cert.verify(authority.publicKey)).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.keyUsage).toEqual(["1.3.6.1.5.5.7.3.2"]);
    expect(new Date(cert.validFrom)).toEqual(notBefore);
    expect(new Date(cert.validTo)).toEqual(new Date("2026-03-03T12:00:00Z"));
    expect(issued.keyPem).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    expect(cert.checkPrivateKey(createPrivateKey(issued.keyPem))).toBe(true);
    expect(cert.serialNumber).not.toBe(new X509Certificate(issueClientCertificate(ca, { commonName: "bob", organizations: [], days: 1 }).certPem).serialNumber);
  });
});
