import { describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readKubeconfig, writeKubeconfig } from "./kubeconfig.js";

describe("kubeconfig files", () => {
  it("round-trips server, CA and token through a file only its owner can read", () => {
    const dir = mkdtempSync(join(tmpdir(), "kubeconfig-test-"));
    try {
      const spec = { name: "root:tenant", server: "https://127.0.0.1:6443/clusters/root:tenant", caPem: "-----BEGIN CERTIFICATE-----\nabc\n", token: "t0ken" };
      const path = writeKubeconfig(join(dir, "config"), spec);
      expect(readKubeconfig(path)).toEqual(spec);
      expect(statSync(path).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
