/**
 * How boot-load-probe.ts's line starts, for the benchmark to find it in a
 * program's stderr; a module of its own so that the benchmark can read it
 * without running the probe in itself.
 */
export const PROBE_PREFIX = "boot-load-probe ";
