import { randomBytes } from "node:crypto";
import { describe, expect, it } from "@jest/globals";
import { ANCHOR_LENGTH, NeedleIndex, type Spans } from "./needle-index.js";

/** What `find` must return, the slow way: every occurrence of every needle, merged. */
function naive(text: string, needles: Iterable<string>): Spans {
  const spans: [number, number][] = [];
  for (const needle of needles) {
    for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) spans.push([at, at + needle.length]);
  }
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last !== undefined && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([...span]);
  }
  return merged;
}

/** A small alphabet, so that needles and texts overlap often. */
function word(length: number): string {
  return Array.from({ length }, () => "abcAB01-"[Math.floor(Math.random() * 8)]).join("");
}

describe("NeedleIndex", () => {
  it("finds nothing while empty, and nothing in texts shorter than an anchor", () => {
    const index = new NeedleIndex();
    expect(index.find("some text that is long enough")).toEqual([]);
    index.add("abcdefgh");
    expect(index.find("abcdefg")).toEqual([]);
  });

  it("finds needles at the start, the end, and as the whole text", () => {
    const index = new NeedleIndex();
    index.add("needle-one");
    expect(index.find("needle-one")).toEqual([[0, 10]]);
    expect(index.find("needle-one and needle-one")).toEqual([
      [0, 10],
      [15, 25],
    ]);
    expect(index.find("xneedle-on")).toEqual([]);
  });

  it("ignores needles shorter than an anchor, and adding one twice", () => {
    const index = new NeedleIndex();
    index.add("x".repeat(ANCHOR_LENGTH - 1));
    index.add("repeated-needle");
    index.add("repeated-needle");
    expect(index.size).toBe(1);
  });

  it("agrees with a naive search on generated needles and texts, while needles come and go", () => {
    const index = new NeedleIndex();
    const live = new Set<string>();
    for (let round = 0; round < 300; round++) {
      const needle = word(ANCHOR_LENGTH + Math.floor(Math.random() * 12));
      index.add(needle);
      live.add(needle);
      if (round % 3 === 0) {
        const gone = [...live][Math.floor(Math.random() * live.size)]!;
        index.delete(gone);
        live.delete(gone);
      }
      const pieces = [...live];
      const text = Array.from({ length: 6 }, () => (Math.random() < 0.5 ? pieces[Math.floor(Math.random() * pieces.length)] : word(10))).join(word(3));
      expect(index.find(text)).toEqual(naive(text, live));
    }
    expect(index.size).toBe(live.size);
  });

  it("gives needles with a common prefix different anchors, so a hit verifies one needle", () => {
    const index = new NeedleIndex();
    const kubeconfigs = Array.from({ length: 200 }, () => `apiVersion: v1\nkind: Config\nusers:\n- user:\n    token: ${randomBytes(16).toString("hex")}\n`);
    for (const kubeconfig of kubeconfigs) index.add(kubeconfig);
    expect(index.find(`log: ${kubeconfigs[123]}`)).toEqual([[5, 5 + kubeconfigs[123]!.length]]);
    expect(index.find("apiVersion: v1\nkind: Config\nusers:\n- user:\n    token: 00")).toEqual([]);
  });

  it("chooses the anchor of a very long needle among a bounded number of windows, and still finds it", () => {
    const index = new NeedleIndex();
    const needle = randomBytes(1 << 20).toString("base64");
    index.add(needle);
    expect(index.find(`<${needle}>`)).toEqual([[1, 1 + needle.length]]);
    expect(index.find(needle.slice(1))).toEqual([]);
  });

  it("keeps finding after deletions rebuild its filter, and forgets deleted needles", () => {
    const index = new NeedleIndex();
    const needles = Array.from({ length: 5000 }, (_, i) => `needle-${i}-${randomBytes(6).toString("hex")}`);
    for (const needle of needles) index.add(needle);
    for (const needle of needles.slice(0, 4990)) index.delete(needle);
    expect(index.size).toBe(10);
    expect(index.find(needles[4995]!)).toEqual([[0, needles[4995]!.length]]);
    expect(index.find(needles[17]!)).toEqual([]);
  });

  it("matches UTF-16 code units, so any string, binary-decoded ones included, is a needle", () => {
    const index = new NeedleIndex();
    const needle = "päss\u{1F511}wörd\ufffd\ufffd";
    index.add(needle);
    expect(index.find(`«${needle}»`)).toEqual([[1, 1 + needle.length]]);
  });
});
