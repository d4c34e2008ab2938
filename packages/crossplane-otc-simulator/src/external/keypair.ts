/**
 * KeypairV2 (opentelekomcloud_compute_keypair_v2, reference §1.8): an
 * imported public key. Its name is its ID and external name. Every argument
 * is ForceNew. The simulator only imports keys: a keypair OTC generates
 * would put its private key into the MR's status.
 */
import { createKeypair, deleteKeypair, getKeypair } from "@edgeconnect/otc";
import { requiredString, type ExternalKind } from "../managed/external.js";

export const KEYPAIR_V2: ExternalKind = {
  group: "compute.opentelekomcloud.m.crossplane.io",
  version: "v1alpha1",
  kind: "KeypairV2",
  plural: "keypairv2s",
  scope: "Namespaced",
  forceNew: new Set(["name", "public_key", "region", "value_specs"]),
  async create({ otc, signal }, parameters) {
    const name = requiredString(parameters, "name", "name");
    const publicKey = parameters.publicKey;
    if (typeof publicKey !== "string" || publicKey === "") throw new Error("the simulator imports keys only: set publicKey");
    const keypair = await createKeypair(otc, { name, publicKey }, { signal });
    return keypair.name;
  },
  async observe({ otc, signal }, name, parameters) {
    const keypair = await getKeypair(otc, name, { signal });
    if (keypair === undefined) return undefined;
    // The public key is not compared: OTC may normalise its whitespace and comment.
    const reported = { name: keypair.name, region: otc.region };
    return {
      phase: { kind: "settled" },
      atProvider: { ...parameters, ...reported, id: keypair.name, publicKey: keypair.public_key },
      reported,
    };
  },
  async delete({ otc, signal }, name) {
    await deleteKeypair(otc, name, { signal });
  },
};
