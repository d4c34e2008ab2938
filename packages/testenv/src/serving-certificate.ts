/**
 * TLS for test servers on loopback: a CA and a serving certificate for
 * 127.0.0.1 signed by it. node:crypto cannot issue X.509 certificates, so
 * the openssl CLI does.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { FatalError } from "./errors.js";

const run = promisify(execFile);

export interface ServingCertificateOptions {
  /** The CA's common name, to tell the CAs of the test servers apart. */
  readonly caName: string;
  /** Who needs the certificate, for the error when openssl fails. */
  readonly purpose: string;
}

/**
 * Writes `ca.crt`/`ca.key` and `tls.crt`/`tls.key` (the names
 * controller-runtime's webhook servers read) into `certDir`; returns the
 * CA's PEM for the clients.
 */
export async function makeServingCertificate(certDir: string, { caName, purpose }: ServingCertificateOptions): Promise<string> {
  mkdirSync(certDir, { recursive: true });
  const at = (name: string): string => join(certDir, name);
  const openssl = async (args: string[]): Promise<void> => {
    try {
      await run("openssl", args, { cwd: certDir });
    } catch (err) {
      const detail = err instanceof Error && "stderr" in err ? String(err.stderr) : String(err);
      throw new FatalError(`openssl ${args[0] ?? ""} failed (${purpose} needs it for certificates): ${detail}`);
    }
  };
  await openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", `/CN=${caName}`, "-keyout", at("ca.key"), "-out", at("ca.crt")]);
  await openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", at("tls.key"), "-out", at("tls.csr")]);
  // Go's TLS verification takes only subjectAltName into account, not the CN.
  writeFileSync(at("san.ext"), "subjectAltName = IP:127.0.0.1\nextendedKeyUsage = serverAuth\n");
  await openssl(["x509", "-req", "-in", at("tls.csr"), "-CA", at("ca.crt"), "-CAkey", at("ca.key"), "-CAcreateserial", "-days", "2", "-extfile", at("san.ext"), "-out", at("tls.crt")]);
  return readFileSync(at("ca.crt"), "utf8");
}
