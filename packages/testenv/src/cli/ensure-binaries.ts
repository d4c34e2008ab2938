/**
 * `pnpm binaries [name...]`: makes sure the binaries of `BINARIES` (kcp,
 * kube-apiserver, kube-controller-manager, etcd, helm, the Cluster API
 * managers), or the ones named, are available (given, on PATH, cached or
 * built) and prints where each came from and how long it took.
 */
import { BINARIES, resolveBinary, type BinaryName } from "../binaries.js";

function isBinaryName(name: string): name is BinaryName {
  return Object.hasOwn(BINARIES, name);
}

async function main(): Promise<void> {
  const requested = process.argv.slice(2);
  const unknown = requested.filter((name) => !isBinaryName(name));
  if (unknown.length > 0) {
    console.error(`unknown binaries: ${unknown.join(", ")}; known: ${Object.keys(BINARIES).join(", ")}`);
    process.exit(2);
  }
  const names = requested.length > 0 ? requested.filter(isBinaryName) : (Object.keys(BINARIES) as BinaryName[]);
  // Sequential on purpose: each Go build already uses every core.
  for (const name of names) {
    const started = Date.now();
    const binary = await resolveBinary(name, { log: (message) => console.error(`[binaries] ${message}`) });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`${name} ${binary.version}: ${binary.path} (${binary.source}, ${seconds} s)`);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
