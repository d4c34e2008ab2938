/**
 * Where a test server keeps state that must be written synchronously to
 * mean anything: kcp's embedded etcd fsyncs every write, and kcp offers no
 * flag to turn that off (the kube-apiservers' etcd runs with
 * `--unsafe-no-fsync`). On a disk shared with Go builds and other suites'
 * servers an fsync can take seconds, long enough for a controller's leader
 * Lease renewal to miss its deadline. A tmpfs makes fsync free; the state
 * lives only as long as the test run anyway.
 */
import { accessSync, constants, statfsSync } from "node:fs";
import { tmpdir } from "node:os";

const TMPFS_MAGIC = 0x01021994;
/** Below this much free space the machine's temporary directory is used instead: a full tmpfs fails writes outright. */
const MIN_FREE_BYTES = 2 * 2 ** 30;

/** A memory-backed directory to make temporary directories in (`/dev/shm` when it is a writable tmpfs with room), else `os.tmpdir()`. */
export function memoryBackedTmpdir(candidate = "/dev/shm"): string {
  try {
    accessSync(candidate, constants.W_OK);
    const stats = statfsSync(candidate);
    if (stats.type === TMPFS_MAGIC && stats.bavail * stats.bsize >= MIN_FREE_BYTES) return candidate;
  } catch {
    // Absent or unreadable: not a place for state.
  }
  return tmpdir();
}
