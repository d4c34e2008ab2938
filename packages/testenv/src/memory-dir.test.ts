import { describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryBackedTmpdir } from "./memory-dir.js";

describe("memoryBackedTmpdir", () => {
  it("falls back to the machine's temporary directory for a path that is absent", () => {
    expect(memoryBackedTmpdir("/nonexistent/edgeconnect")).toBe(tmpdir());
  });

  it("falls back for a directory that is not a tmpfs", () => {
    const dir = mkdtempSync(join(process.cwd(), ".memory-dir-test-"));
    try {
      expect(memoryBackedTmpdir(dir)).toBe(tmpdir());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
