import { describe, expect, it } from "@jest/globals";
import type { ProviderMachineFlavor } from "@edgeconnect/api";
import { capabilityMisses, matchFlavor, MAX_REJECTED, type FlavorRequest } from "./flavor-matching.js";

interface FlavorOptions {
  gpu?: string | null;
  available?: boolean;
  type?: string;
}

function flavor(name: string, vCPUCount: number, memorySize: string | number, availableZones: string[], options: FlavorOptions = {}): ProviderMachineFlavor {
  return {
    metadata: { name: `otc-${name.replaceAll(".", "-")}` },
    spec: {
      available: options.available ?? true,
      providerRef: { type: (options.type ?? "OTC") as "OTC" },
      flavor: name,
      capabilities: { vCPUCount, memorySize, gpuModelName: options.gpu ?? null },
      availableZones,
    },
  };
}

const ALL_ZONES = ["eu-de-01", "eu-de-02", "eu-de-03"];

const CATALOGUE = [
  flavor("s3.large.2", 2, "4Gi", ALL_ZONES),
  flavor("s3.xlarge.4", 4, "16Gi", ALL_ZONES),
  flavor("s3.xlarge.2", 4, "8Gi", ["eu-de-01", "eu-de-02"]),
  flavor("s3.2xlarge.4", 8, "32Gi", ALL_ZONES),
  flavor("c4.8xlarge.2", 32, "64Gi", ["eu-de-02"]),
  flavor("p2.2xlarge.8", 8, "64Gi", ["eu-de-01"], { gpu: "V100" }),
  flavor("p3.2xlarge.8", 8, "64Gi", ["eu-de-02"], { gpu: "A100" }),
  flavor("s2.xlarge.2", 4, "8Gi", ALL_ZONES, { available: false }),
];

function request(overrides: Partial<FlavorRequest> & { vCPUs?: number; memory?: string | number; gpu?: string | null }): FlavorRequest {
  const { vCPUs = 4, memory = "8Gi", gpu, ...rest } = overrides;
  return { providerType: "OTC", capabilities: { vCPUCount: vCPUs, memorySize: memory, gpuModelName: gpu }, flavors: CATALOGUE, zone: "random", ...rest };
}

describe("matchFlavor: matching", () => {
  it.each<[string, Parameters<typeof request>[0], string, string]>([
    ["the smallest flavor with enough vCPUs and memory", {}, "s3.xlarge.2", "random"],
    ["more memory than the smallest offers", { memory: "12Gi" }, "s3.xlarge.4", "random"],
    ["fewer vCPUs before less memory", { vCPUs: 3, memory: "4Gi" }, "s3.xlarge.2", "random"],
    ["memory in another binary unit", { memory: "8192Mi" }, "s3.xlarge.2", "random"],
    ["memory as bytes", { memory: 8 * 2 ** 30 }, "s3.xlarge.2", "random"],
    ["decimal memory units", { memory: "8.5G" }, "s3.xlarge.2", "random"],
    ["a zone only some flavors are in", { zone: "eu-de-03" }, "s3.xlarge.4", "eu-de-03"],
    ["a GPU, case-insensitively", { gpu: "a100" }, "p3.2xlarge.8", "random"],
    ["a GPU in its zone", { gpu: "V100", zone: "eu-de-01" }, "p2.2xlarge.8", "eu-de-01"],
    ["no GPU when none is requested", { vCPUs: 8, memory: "64Gi" }, "c4.8xlarge.2", "random"],
    ["an empty GPU name as none", { vCPUs: 8, memory: "64Gi", gpu: " " }, "c4.8xlarge.2", "random"],
  ])("picks %s", (_case, overrides, expected, zone) => {
    const result = matchFlavor(request(overrides));
    expect(result).toMatchObject({ ok: true, flavor: expected, zone, source: "Matched" });
  });

  it("says why in a short reason", () => {
    expect(matchFlavor(request({}))).toMatchObject({ reason: "smallest match of 4: 4 vCPUs, 8Gi memory" });
    expect(matchFlavor(request({ gpu: "A100" }))).toMatchObject({ reason: "smallest match: 8 vCPUs, 64Gi memory, GPU A100" });
  });

  it("breaks ties by name, whatever the order of the catalogue", () => {
    const tied = [flavor("b.xlarge.2", 4, "8Gi", ALL_ZONES), flavor("a.xlarge.2", 4, "8Gi", ALL_ZONES), flavor("c.xlarge.2", 4, "8Gi", ALL_ZONES)];
    expect(matchFlavor(request({ flavors: tied }))).toMatchObject({ flavor: "a.xlarge.2" });
    expect(matchFlavor(request({ flavors: [...tied].reverse() }))).toMatchObject({ flavor: "a.xlarge.2" });
  });

  it("skips unavailable flavors and those of other provider types", () => {
    const flavors = [
      flavor("x.small", 4, "8Gi", ALL_ZONES, { available: false }),
      flavor("y.small", 4, "8Gi", ALL_ZONES, { type: "EquinixMetal" }),
      flavor("z.large", 8, "16Gi", ALL_ZONES),
    ];
    const result = matchFlavor(request({ flavors }));
    expect(result).toMatchObject({ ok: true, flavor: "z.large" });
    expect(result.rejected).toEqual([{ flavor: "x.small", reason: "not available" }]);
  });

  it.each<[string, Parameters<typeof request>[0], string]>([
    ["a flavor found sold out in the zone", { zone: "eu-de-01", exclude: [{ flavor: "s3.xlarge.2", zone: "eu-de-01" }] }, "s3.xlarge.4"],
    ["a flavor found sold out everywhere (random)", { exclude: [{ flavor: "s3.xlarge.2", zone: "random" }] }, "s3.xlarge.4"],
    ["two sold-out flavors", { exclude: [{ flavor: "s3.xlarge.2", zone: "random" }, { flavor: "s3.xlarge.4", zone: "random" }] }, "s3.2xlarge.4"],
    ["an exclusion for another zone, which does not apply", { zone: "eu-de-01", exclude: [{ flavor: "s3.xlarge.2", zone: "eu-de-02" }] }, "s3.xlarge.2"],
    ["an exclusion of one zone, which does not apply to random", { exclude: [{ flavor: "s3.xlarge.2", zone: "eu-de-01" }] }, "s3.xlarge.2"],
  ])("falls back past %s", (_case, overrides, expected) => {
    const result = matchFlavor(request(overrides));
    expect(result).toMatchObject({ ok: true, flavor: expected });
  });

  it("lists sold-out flavors as rejected", () => {
    const result = matchFlavor(request({ zone: "eu-de-01", exclude: [{ flavor: "s3.xlarge.2", zone: "eu-de-01" }] }));
    expect(result.rejected).toContainEqual({ flavor: "s3.xlarge.2", reason: "sold out in eu-de-01" });
  });
});

describe("matchFlavor: rejections", () => {
  it("gives each rejected flavor its misses, fewest misses first, then the smallest shortfall", () => {
    const result = matchFlavor(request({ vCPUs: 8, memory: "32Gi", zone: "eu-de-02" }));
    expect(result).toMatchObject({ ok: true, flavor: "s3.2xlarge.4" });
    expect(result.rejected).toEqual([
      { flavor: "p3.2xlarge.8", reason: "GPU A100 (none requested)" },
      { flavor: "p2.2xlarge.8", reason: "GPU V100 (none requested), not offered in eu-de-02" },
      { flavor: "s3.xlarge.4", reason: "4 vCPUs (needs 8), 16Gi memory (needs 32Gi)" },
      { flavor: "s3.xlarge.2", reason: "4 vCPUs (needs 8), 8Gi memory (needs 32Gi)" },
      { flavor: "s3.large.2", reason: "2 vCPUs (needs 8), 4Gi memory (needs 32Gi)" },
      { flavor: "s2.xlarge.2", reason: "not available, 4 vCPUs (needs 8), 8Gi memory (needs 32Gi)" },
    ]);
  });

  it(`keeps at most ${MAX_REJECTED}, the closest`, () => {
    const flavors = Array.from({ length: 30 }, (_, i) => flavor(`f${String(i).padStart(2, "0")}`, i + 1, `${i + 1}Gi`, ALL_ZONES));
    const result = matchFlavor(request({ vCPUs: 64, memory: "1Gi", flavors }));
    expect(result.ok).toBe(false);
    expect(result.rejected).toHaveLength(MAX_REJECTED);
    expect(result.rejected[0]).toEqual({ flavor: "f29", reason: "30 vCPUs (needs 64)" });
    expect(result.rejected.map((r) => r.flavor)).toEqual(["f29", "f28", "f27", "f26", "f25", "f24", "f23", "f22", "f21", "f20"]);
  });

  it("rejects a flavor whose memory size is no quantity", () => {
    const result = matchFlavor(request({ flavors: [flavor("bad", 4, "lots", ALL_ZONES)] }));
    expect(result).toMatchObject({ ok: false, rejected: [{ flavor: "bad", reason: "memory size is not a quantity" }] });
  });
});

describe("matchFlavor: failures", () => {
  it.each<[string, Parameters<typeof request>[0], string]>([
    ["too many vCPUs", { vCPUs: 64, memory: "8Gi", gpu: "A100", zone: "eu-de-02", flavors: [...CATALOGUE, flavor("p3.8xlarge.8", 32, "256Gi", ["eu-de-02"], { gpu: "A100" })] }, "no available OTC flavor offers 64 vCPUs with 8Gi memory and GPU A100 in eu-de-02; the largest offers 32 vCPUs"],
    ["too much memory", { vCPUs: 8, memory: "128Gi" }, "no available OTC flavor offers 8 vCPUs with 128Gi memory; the most memory with 8 or more vCPUs is 64Gi"],
    ["an unknown GPU", { gpu: "H100" }, "no available OTC flavor offers 4 vCPUs with 8Gi memory and GPU H100; none has GPU H100"],
    ["a zone nobody serves", { zone: "eu-nl-01" }, "no available OTC flavor offers 4 vCPUs with 8Gi memory in eu-nl-01; none is offered in eu-nl-01"],
    ["only GPU flavors", { flavors: [flavor("p2.2xlarge.8", 8, "64Gi", ["eu-de-01"], { gpu: "V100" })] }, "no available OTC flavor offers 4 vCPUs with 8Gi memory; all of them have a GPU"],
    ["only unavailable flavors", { flavors: [flavor("x", 4, "8Gi", ALL_ZONES, { available: false })] }, "no available OTC flavor offers 4 vCPUs with 8Gi memory; none is available"],
    ["flavors in no zone", { flavors: [flavor("x", 4, "8Gi", [])] }, "no available OTC flavor offers 4 vCPUs with 8Gi memory; none is offered in any zone"],
    ["everything sold out", { zone: "eu-de-03", flavors: [flavor("x", 4, "8Gi", ALL_ZONES)], exclude: [{ flavor: "x", zone: "eu-de-03" }] }, "no available OTC flavor offers 4 vCPUs with 8Gi memory in eu-de-03; all that are offered in eu-de-03 were found sold out"],
    ["an empty catalogue", { flavors: [] }, "no available OTC flavor offers 4 vCPUs with 8Gi memory; the catalogue has no OTC flavors"],
    ["only another provider's flavors", { flavors: [flavor("y", 4, "8Gi", ALL_ZONES, { type: "AWS" })] }, "no available OTC flavor offers 4 vCPUs with 8Gi memory; the catalogue has no OTC flavors"],
    ["a memory size that is no quantity", { memory: "8 gigs" }, 'memorySize "8 gigs" of the MachineCapabilities is not a quantity such as 8Gi'],
  ])("says what is missing: %s", (_case, overrides, message) => {
    expect(matchFlavor(request(overrides))).toMatchObject({ ok: false, message });
  });
});

describe("matchFlavor: pinned", () => {
  it.each<[string, Parameters<typeof request>[0], string]>([
    ["in any zone", { pinned: "c4.8xlarge.2" }, "random"],
    ["in its zone", { pinned: "s3.xlarge.4", zone: "eu-de-03" }, "eu-de-03"],
    ["even when smaller than the capabilities", { pinned: "s3.large.2", vCPUs: 16, memory: "64Gi" }, "random"],
    ["even with a GPU nobody asked for", { pinned: "p2.2xlarge.8", zone: "eu-de-01" }, "eu-de-01"],
    ["sold out in another zone only", { pinned: "s3.xlarge.4", zone: "eu-de-01", exclude: [{ flavor: "s3.xlarge.4", zone: "eu-de-02" }] }, "eu-de-01"],
  ])("takes the pinned flavor %s", (_case, overrides, zone) => {
    const result = matchFlavor(request(overrides));
    expect(result).toMatchObject({ ok: true, flavor: overrides.pinned, zone, source: "Pinned", rejected: [] });
    if (result.ok) expect(result.reason).toMatch(/^pinned by spec.nodeFlavor: \d+ vCPUs/);
  });

  it.each<[string, Parameters<typeof request>[0], string]>([
    ["not in the catalogue", { pinned: "s9.huge.8" }, "nodeFlavor s9.huge.8 is not an OTC flavor of the catalogue; remove spec.nodeFlavor to have one matched, or pin another flavor"],
    ["another provider's", { pinned: "m1.aws", flavors: [flavor("m1.aws", 4, "8Gi", ALL_ZONES, { type: "AWS" })] }, "nodeFlavor m1.aws is not an OTC flavor of the catalogue; remove spec.nodeFlavor to have one matched, or pin another flavor"],
    ["unavailable", { pinned: "s2.xlarge.2" }, "nodeFlavor s2.xlarge.2 is not available; remove spec.nodeFlavor to have one matched, or pin another flavor"],
    ["not in the zone", { pinned: "c4.8xlarge.2", zone: "eu-de-01" }, 'nodeFlavor c4.8xlarge.2 is not offered in eu-de-01 (only in eu-de-02); set spec.nodeAvailableZone to one of those or to "random", or remove spec.nodeFlavor to have one matched, or pin another flavor'],
    ["sold out in the zone", { pinned: "s3.xlarge.4", zone: "eu-de-01", exclude: [{ flavor: "s3.xlarge.4", zone: "eu-de-01" }] }, "nodeFlavor s3.xlarge.4 is sold out in eu-de-01; pin another flavor or zone, or remove spec.nodeFlavor"],
    ["sold out everywhere", { pinned: "s3.xlarge.4", exclude: [{ flavor: "s3.xlarge.4", zone: "random" }] }, "nodeFlavor s3.xlarge.4 is sold out in every zone; pin another flavor, or remove spec.nodeFlavor"],
  ])("fails for a pinned flavor %s, saying what to change", (_case, overrides, message) => {
    const result = matchFlavor(request(overrides));
    expect(result).toMatchObject({ ok: false, message });
    expect(result.rejected).toHaveLength(1);
  });
});

describe("matchFlavor: the region of the credentials", () => {
  const regional = [flavor("s3.xlarge.2", 4, "8Gi", ["eu-nl-01"]), flavor("s3.xlarge.4", 4, "16Gi", ["eu-de-01", "eu-nl-01"])];

  it("counts only the region's zones, also for a random zone", () => {
    expect(matchFlavor(request({ flavors: regional, region: "eu-de" }))).toMatchObject({ ok: true, flavor: "s3.xlarge.4" });
    expect(matchFlavor(request({ flavors: regional, region: "eu-nl" }))).toMatchObject({ ok: true, flavor: "s3.xlarge.2" });
    const rejected = matchFlavor(request({ flavors: regional, region: "eu-de" })).rejected;
    expect(rejected).toEqual([{ flavor: "s3.xlarge.2", reason: "offered in no zone of eu-de" }]);
  });

  it("refuses a pinned flavor offered only in another region", () => {
    expect(matchFlavor(request({ flavors: regional, region: "eu-de", pinned: "s3.xlarge.2" }))).toMatchObject({ ok: false, message: expect.stringMatching(/^nodeFlavor s3.xlarge.2 is offered in no zone of region eu-de;/) });
  });
});

describe("capabilityMisses", () => {
  const base = { providerType: "OTC", flavors: CATALOGUE };

  it("is empty while the running flavor still gives what is asked, whatever the catalogue says of its availability", () => {
    expect(capabilityMisses({ ...base, capabilities: { vCPUCount: 4, memorySize: "8Gi" } }, "s3.xlarge.2")).toEqual([]);
    expect(capabilityMisses({ ...base, capabilities: { vCPUCount: 4, memorySize: "8Gi" } }, "s2.xlarge.2")).toEqual([]);
  });

  it("names what the running flavor lacks after the capabilities grew", () => {
    expect(capabilityMisses({ ...base, capabilities: { vCPUCount: 8, memorySize: "16Gi", gpuModelName: "A100" } }, "s3.xlarge.2")).toEqual([
      "4 vCPUs (needs 8)",
      "8Gi memory (needs 16Gi)",
      "no GPU (needs A100)",
    ]);
  });

  it("cannot tell for a flavor the catalogue does not know", () => {
    expect(capabilityMisses({ ...base, capabilities: { vCPUCount: 1, memorySize: "1Gi" } }, "x9.unknown")).toBeUndefined();
  });
});
