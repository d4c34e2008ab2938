/**
 * `NeedleIndex`: finds every occurrence of any of a changing set of strings
 * (needles) in a text, in time linear in the text and independent of how
 * many needles there are.
 *
 * Each needle is filed under one anchor: a window of `ANCHOR_LENGTH`
 * characters somewhere inside it, chosen when it is added. A scan rolls a
 * hash over every window of the text; a window whose hash is an anchor's
 * names the needles to verify in place (`startsWith` at the offset the
 * anchor has in its needle). A bit filter in front of the anchor table
 * keeps the common case, a window that is no anchor, to a few arithmetic
 * operations and one array read.
 *
 * Why an anchor anywhere and not the prefix: needles of one kind share
 * prefixes (every kubeconfig starts `apiVersion`, every PEM key `-----BEGIN`),
 * and a prefix table would verify all of them wherever a text holds that
 * prefix. Each needle takes the least crowded window it has, so anchors stay
 * nearly unique and a hit verifies one needle.
 *
 * Adding and deleting cost the needle's length, not the index's size; there
 * is nothing to rebuild on a change but the filter, which grows by doubling.
 */

/** The window length, and so the shortest needle the index takes. */
export const ANCHOR_LENGTH = 8;

/** A needle longer than this has its anchor chosen among this many evenly spread windows. */
const MAX_ANCHOR_CANDIDATES = 512;

/** The hash's multiplier (odd, so that no character's bits are lost mod 2^32). */
const BASE = 0x01000193;
/** BASE^(ANCHOR_LENGTH-1) mod 2^32: what the leaving character was multiplied by. */
const BASE_POW = powMod32(BASE, ANCHOR_LENGTH - 1);
/** The anchor table's keys: 30 bits stay small integers in V8; verification catches the rest. */
const KEY_MASK = 0x3fffffff;

const MIN_FILTER_BITS = 16;
/** The filter has at least this many bits per needle, so about 1 in 16 windows that are no anchor pass it. */
const FILTER_BITS_PER_NEEDLE = 16;

interface Entry {
  readonly needle: string;
  /** Where the anchor starts inside the needle. */
  readonly offset: number;
  readonly hash: number;
}

/** Occurrences as half-open `[start, end)` pairs, sorted and with overlapping ones merged. */
export type Spans = readonly (readonly [number, number])[];

export class NeedleIndex {
  readonly #entries = new Map<string, Entry>();
  readonly #anchors = new Map<number, Entry[]>();
  #filterBits = MIN_FILTER_BITS;
  #filter = new Int32Array(1 << (MIN_FILTER_BITS - 5));
  /** Deletions since the filter was last built: their bits may still be set. */
  #staleBits = 0;

  get size(): number {
    return this.#entries.size;
  }

  has(needle: string): boolean {
    return this.#entries.has(needle);
  }

  /** Files `needle` (at least `ANCHOR_LENGTH` characters; shorter ones are ignored). Adding one twice is free. */
  add(needle: string): void {
    if (needle.length < ANCHOR_LENGTH || this.#entries.has(needle)) return;
    const entry = this.#chooseAnchor(needle);
    this.#entries.set(needle, entry);
    const key = entry.hash & KEY_MASK;
    const bucket = this.#anchors.get(key);
    if (bucket === undefined) this.#anchors.set(key, [entry]);
    else bucket.push(entry);
    if (this.#entries.size * FILTER_BITS_PER_NEEDLE > 1 << this.#filterBits) this.#rebuildFilter(this.#filterBits + 1);
    else this.#setFilterBit(entry.hash);
  }

  delete(needle: string): void {
    const entry = this.#entries.get(needle);
    if (entry === undefined) return;
    this.#entries.delete(needle);
    const key = entry.hash & KEY_MASK;
    const bucket = this.#anchors.get(key) ?? [];
    const rest = bucket.filter((other) => other !== entry);
    if (rest.length === 0) this.#anchors.delete(key);
    else this.#anchors.set(key, rest);
    // Bits are shared, so they are not cleared one by one; once stale ones
    // could outnumber live ones, a fresh filter costs less than the misses.
    this.#staleBits += 1;
    if (this.#staleBits > this.#entries.size + 1024) this.#rebuildFilter(this.#filterBits);
  }

  /** Where needles occur in `text`. */
  find(text: string): Spans {
    const length = text.length;
    if (this.#entries.size === 0 || length < ANCHOR_LENGTH) return [];
    const filter = this.#filter;
    const shift = 32 - this.#filterBits;
    let found: [number, number][] | undefined;
    let hash = 0;
    for (let i = 0; i < ANCHOR_LENGTH; i++) hash = (Math.imul(hash, BASE) + text.charCodeAt(i)) | 0;
    for (let position = 0; ; position++) {
      const bit = mix(hash) >>> shift;
      if ((filter[bit >>> 5]! & (1 << (bit & 31))) !== 0) {
        const bucket = this.#anchors.get(hash & KEY_MASK);
        if (bucket !== undefined) {
          for (const entry of bucket) {
            const start = position - entry.offset;
            const end = start + entry.needle.length;
            if (start >= 0 && end <= length && text.startsWith(entry.needle, start)) (found ??= []).push([start, end]);
          }
        }
      }
      const next = position + ANCHOR_LENGTH;
      if (next >= length) break;
      hash = (Math.imul((hash - Math.imul(text.charCodeAt(position), BASE_POW)) | 0, BASE) + text.charCodeAt(next)) | 0;
    }
    return found === undefined ? [] : merge(found);
  }

  /**
   * The window whose anchor bucket is emptiest (the first empty one, when
   * there is one), among all windows of a short needle and evenly spread
   * ones of a long needle: choosing costs at most MAX_ANCHOR_CANDIDATES
   * look-ups however long the needle is.
   */
  #chooseAnchor(needle: string): Entry {
    const windows = needle.length - ANCHOR_LENGTH + 1;
    const step = windows <= MAX_ANCHOR_CANDIDATES ? 1 : windows / MAX_ANCHOR_CANDIDATES;
    let best: Entry | undefined;
    let bestLoad = Infinity;
    for (let candidate = 0; candidate < Math.min(windows, MAX_ANCHOR_CANDIDATES); candidate++) {
      const offset = Math.floor(candidate * step);
      const hash = windowHash(needle, offset);
      const load = this.#anchors.get(hash & KEY_MASK)?.length ?? 0;
      if (load < bestLoad) {
        best = { needle, offset, hash };
        bestLoad = load;
        if (load === 0) break;
      }
    }
    return best!;
  }

  #setFilterBit(hash: number): void {
    const bit = mix(hash) >>> (32 - this.#filterBits);
    this.#filter[bit >>> 5]! |= 1 << (bit & 31);
  }

  #rebuildFilter(bits: number): void {
    this.#filterBits = Math.max(MIN_FILTER_BITS, bits);
    this.#filter = new Int32Array(1 << (this.#filterBits - 5));
    this.#staleBits = 0;
    for (const entry of this.#entries.values()) this.#setFilterBit(entry.hash);
  }
}

/** The rolling hash of the window of `text` at `offset`, as `find` computes it. */
function windowHash(text: string, offset: number): number {
  let hash = 0;
  for (let i = offset; i < offset + ANCHOR_LENGTH; i++) hash = (Math.imul(hash, BASE) + text.charCodeAt(i)) | 0;
  return hash;
}

/**
 * Spreads the polynomial hash's bits before the filter takes its top bits
 * (murmur3's finaliser, first half): the polynomial alone leaves the top
 * bits to the last characters.
 */
function mix(hash: number): number {
  // Stays a signed 32-bit integer: `>>> 0` would make it a heap number and the scan loop several times slower.
  const h = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  return h ^ (h >>> 13);
}

function powMod32(base: number, exponent: number): number {
  let result = 1;
  for (let i = 0; i < exponent; i++) result = Math.imul(result, base);
  return result;
}

function merge(spans: [number, number][]): Spans {
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [spans[0]!];
  for (const span of spans) {
    const last = merged[merged.length - 1]!;
    if (span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push(span);
  }
  return merged;
}
