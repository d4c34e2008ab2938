/**
 * A seeded pseudo-random source (mulberry32): the chaos run's kill
 * intervals and generated input repeat for a seed, so a failure can be
 * replayed. Not for anything secret.
 */
export type Random = () => number;

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A number from [min, max). */
export function between(random: Random, min: number, max: number): number {
  return min + random() * (max - min);
}
