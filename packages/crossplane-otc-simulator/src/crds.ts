/**
 * Our copies of the provider's CRDs (`crds/*.yaml`, one CRD per file), as
 * text and as objects. The files use YAML anchors and merge keys, as kubectl
 * reads them too. They are installed with @edgeconnect/testenv's
 * `applyCrds(client, crdObjects(), { fieldManager: CRD_FIELD_MANAGER })`,
 * by the demo and this package's tests: the simulator itself does not
 * depend on testenv.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { parseAllDocuments } from "yaml";

/** From src/ and from dist/ alike: both sit next to crds/. */
const CRD_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "crds");

/** The field manager the CRDs are applied with. */
export const CRD_FIELD_MANAGER = "crossplane-otc-simulator";

export interface CustomResourceDefinition extends KubeObject {
  spec?: {
    group: string;
    names: { kind: string; plural: string };
    scope: "Namespaced" | "Cluster";
    versions: { name: string; served: boolean; storage: boolean }[];
  };
  status?: { conditions?: { type: string; status: string; message?: string }[] };
}

/** Every CRD's YAML text, by file name (`<group>_<plural>.yaml`), in file-name order. */
export function crdManifests(): ReadonlyMap<string, string> {
  const files = readdirSync(CRD_DIR)
    .filter((file) => file.endsWith(".yaml"))
    .sort();
  return new Map(files.map((file) => [file, readFileSync(join(CRD_DIR, file), "utf8")]));
}

/** The CRDs as objects, anchors and merge keys resolved. */
export function crdObjects(): CustomResourceDefinition[] {
  return [...crdManifests()].flatMap(([file, text]) =>
    parseAllDocuments(text, { merge: true }).map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((error) => error.message).join("; ")}`);
      return doc.toJS({ maxAliasCount: -1 }) as CustomResourceDefinition;
    }),
  );
}
