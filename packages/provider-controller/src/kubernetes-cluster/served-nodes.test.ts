import { describe, expect, it } from "@jest/globals";
import { NODE_POOL_V3 } from "@edgeconnect/provisioning";
import type { Observed } from "./observed-infrastructure.js";
import { SERVED_NODES_ANNOTATION, servedAnnotation, servedNodes } from "./provision.js";

/** A NodePoolV3 as read back: asked for `asked` nodes, the provider's last observation of CCE saw `observed`. */
function pool(options: { asked: number; observed: number; ready: boolean; phase?: string; recorded?: string }): Observed {
  const generation = 2;
  return {
    apiVersion: NODE_POOL_V3.apiVersion,
    kind: NODE_POOL_V3.kind,
    metadata: { name: "pool", namespace: "kcp-0123456789ab", labels: {}, generation, ...(options.recorded === undefined ? {} : { annotations: { [SERVED_NODES_ANNOTATION]: options.recorded } }) },
    spec: { forProvider: { initialNodeCount: options.asked }, providerConfigRef: { kind: "ProviderConfig", name: "pc" } },
    status: {
      conditions: [
        { type: "Synced", status: "True", observedGeneration: generation },
        { type: "Ready", status: options.ready ? "True" : "False", reason: options.ready ? "Available" : "Creating", observedGeneration: generation },
      ],
      atProvider: { initialNodeCount: options.observed, status: options.phase ?? "" },
    },
  };
}

describe("the nodes a pool served", () => {
  it("records the count the provider observed in CCE while the pool is Ready", () => {
    expect(servedAnnotation(pool({ asked: 2, observed: 2, ready: true }))).toEqual({ [SERVED_NODES_ANNOTATION]: "2" });
  });

  it("does not take a raised nodeCount for served in the pass that raised it, while the pool still reads Ready", () => {
    // The provider acted on the new generation (Synced), but its observation of CCE predates its update.
    expect(servedAnnotation(pool({ asked: 3, observed: 2, ready: true, recorded: "2" }))).toEqual({ [SERVED_NODES_ANNOTATION]: "2" });
  });

  it("keeps what it recorded while the pool is not Ready, a sold-out scale-up included", () => {
    expect(servedAnnotation(pool({ asked: 3, observed: 3, ready: true, phase: "SoldOut", recorded: "2" }))).toEqual({ [SERVED_NODES_ANNOTATION]: "2" });
    expect(servedAnnotation(pool({ asked: 3, observed: 3, ready: false, recorded: "2" }))).toEqual({ [SERVED_NODES_ANNOTATION]: "2" });
  });

  it("records nothing for a pool that never served", () => {
    expect(servedAnnotation(pool({ asked: 3, observed: 3, ready: false }))).toEqual({});
    expect(servedAnnotation(undefined)).toEqual({});
  });

  it("reads a recorded count only when it is a positive integer", () => {
    expect(servedNodes(pool({ asked: 1, observed: 1, ready: false, recorded: "3" }))).toBe(3);
    for (const recorded of ["-1", "2.5", "x", "1e400"]) expect(servedNodes(pool({ asked: 1, observed: 1, ready: false, recorded }))).toBe(0);
  });
});
