/**
 * What the demos print while they wait for an object: each of its
 * conditions once more whenever it changes, until the object is done.
 */
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import { eventually } from "@edgeconnect/testenv";

/** The part of an object's status this reads. */
export type WithConditions = KubeObject & {
  status?: { phase?: string; conditions?: readonly { type: string; status: string; reason?: string; message?: string }[] };
};

export interface FollowOptions<T> {
  readonly log: (message: string) => void;
  /** Whether the wait is over. */
  readonly done: (obj: T) => boolean;
  /** What a line shows as the phase while the object has none. */
  readonly noPhase: string;
  /** Why the wait is not over yet (the timeout's reason); default the phase, else `noPhase`. */
  readonly pending?: (obj: T) => string;
  readonly timeoutMs: number;
  readonly description: string;
}

/** Reads `path` every 500 ms, logging each condition that changed, until `done` holds; returns the object then. */
export async function followConditions<T extends WithConditions>(client: RestClient, path: string, options: FollowOptions<T>): Promise<T> {
  const seen = new Map<string, string>();
  return eventually<T>(
    async () => {
      const obj = await client.get<T>(path);
      for (const condition of obj.status?.conditions ?? []) {
        const line = `${condition.status} ${condition.reason ?? ""}: ${condition.message ?? ""}`;
        if (seen.get(condition.type) !== line) options.log(`  ${obj.status?.phase ?? options.noPhase} · ${condition.type} ${line}`);
        seen.set(condition.type, line);
      }
      return options.done(obj) ? [true, obj] : [false, options.pending?.(obj) ?? obj.status?.phase ?? options.noPhase];
    },
    { timeoutMs: options.timeoutMs, intervalMs: 500, description: options.description },
  );
}
