import { describe, expect, it } from "@jest/globals";
import { createHash } from "node:crypto";
import { shortHash } from "./short-hash.js";

describe("shortHash", () => {
  it.each<[string[], number, string]>([
    [["a"], 8, createHash("sha256").update("a").digest("hex").slice(0, 8)],
    [["a", "b"], 8, createHash("sha256").update("a\0b").digest("hex").slice(0, 8)],
    [["a"], 12, createHash("sha256").update("a").digest("hex").slice(0, 12)],
  ])("%j (%i chars)", (parts, length, hash) => {
    expect(shortHash(parts, length)).toBe(hash);
  });

  it.each([
    [["a-b", "c"], ["a", "b-c"]],
    [["ab", ""], ["a", "b"]],
    [["a"], ["a", ""]],
  ])("separates %j from %j", (a, b) => {
    expect(shortHash(a)).not.toBe(shortHash(b));
  });
});
