import { describe, expect, it } from "@jest/globals";
import { formatProviderId, parseProviderId } from "./provider-id.js";

const ID = "5d0f7d0e-6c8a-4a3b-9f53-2b4f0b6c1a01";

describe("formatProviderId", () => {
  it("writes otc://<uuid>", () => {
    expect(formatProviderId(ID)).toBe(`otc://${ID}`);
  });

  it("round-trips through parseProviderId", () => {
    expect(parseProviderId(formatProviderId(ID))).toBe(ID);
  });
});

describe("parseProviderId", () => {
  it.each([`otc://${ID}`, `otc:///${ID}`, ID, `otc://${ID.toUpperCase()}`])("accepts %s", (value) => {
    expect(parseProviderId(value)?.toLowerCase()).toBe(ID);
  });

  it.each([
    `openstack:///${ID}`,
    `aws:///eu-central-1a/${ID}`,
    `otc://eu-de/${ID}`,
    `otc:////${ID}`,
    "otc://",
    "otc://not-a-uuid",
    `${ID}x`,
    "",
  ])("rejects %s", (value) => {
    expect(parseProviderId(value)).toBeUndefined();
  });
});
