import { describe, expect, it } from "@jest/globals";
import { imageValues } from "./controller.js";

describe("imageValues", () => {
  it("splits IMG into the chart's repository and tag, a registry's port not taken for a tag", () => {
    expect(imageValues(undefined)).toEqual([]);
    expect(imageValues("ghcr.io/edgeconnect/provider-controller:dev")).toEqual(["image.repository=ghcr.io/edgeconnect/provider-controller", "image.tag=dev"]);
    expect(imageValues("registry.local:5000/provider-controller")).toEqual(["image.repository=registry.local:5000/provider-controller"]);
    expect(imageValues("registry.local:5000/provider-controller:1.2")).toEqual(["image.repository=registry.local:5000/provider-controller", "image.tag=1.2"]);
  });
});
