import { describe, expect, it } from "@jest/globals";
import { nameHash } from "./name-hash.js";

describe("nameHash", () => {
  it("is the requested number of hex characters, deterministically", () => {
    expect(nameHash(["a", "b"], 16)).toMatch(/^[0-9a-f]{16}$/);
    expect(nameHash(["a", "b"], 16)).toBe(nameHash(["a", "b"], 16));
  });

  it("tells apart parts that read alike when joined", () => {
    expect(nameHash(["a-b", "c"], 16)).not.toBe(nameHash(["a", "b-c"], 16));
    expect(nameHash(["ab", ""], 16)).not.toBe(nameHash(["a", "b"], 16));
  });
});
