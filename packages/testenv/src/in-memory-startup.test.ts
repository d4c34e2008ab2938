import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseManifests } from "./apply.js";
import { moduleSource } from "./binaries.js";
import { withInMemoryStartup } from "./in-memory-startup.js";

describe("withInMemoryStartup", () => {
  it("sets every part of upstream's in-memory machine templates to the duration, and changes nothing else", async () => {
    const file = join((await moduleSource("capi-dev")).dir, "infrastructure", "docker", "templates", "clusterclass-in-memory.yaml");
    const upstream = parseManifests(readFileSync(file, "utf8"));
    const shortened = withInMemoryStartup(upstream, "1s");

    const durations = (objects: typeof upstream): string[] =>
      [...JSON.stringify(objects).matchAll(/"startupDuration":"([^"]+)"/g)].map((match) => match[1] ?? "");
    // Two templates (control plane, workers), four parts each; read after the call: the input is left as it was.
    expect(durations(upstream)).toEqual(["10s", "2s", "2s", "2s", "10s", "2s", "2s", "2s"]);
    expect(durations(shortened)).toEqual(Array.from({ length: 8 }, () => "1s"));
    expect(JSON.stringify(shortened).replaceAll(/"startupDuration":"[^"]+"/g, "")).toBe(JSON.stringify(upstream).replaceAll(/"startupDuration":"[^"]+"/g, ""));
  });
});
