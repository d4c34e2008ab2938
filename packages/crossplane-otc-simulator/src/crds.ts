/**
 * Our copies of the provider's CRDs (`crds/*.yaml`, one CRD per file) and
 * their installation: server-side apply of each, then a wait until every one
 * is Established and its resource is served (discovery lags the condition).
 * The files use YAML anchors and merge keys, as kubectl reads them too.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { parseAllDocuments } from "yaml";

/** From src/ and from dist/ alike: both sit next to crds/. */
const CRD_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "crds");

const CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

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

export interface InstallOptions {
  readonly signal?: AbortSignal;
  /** How long the CRDs may take to be Established and served. Default 60 000 ms. */
  readonly timeoutMs?: number;
}

/**
 * Applies every CRD and resolves once each is Established and listable.
 * Idempotent: several test suites sharing one cluster may all install.
 */
export async function installCrds(client: Pick<RestClient, "apply" | "get" | "list">, options: InstallOptions = {}): Promise<CustomResourceDefinition[]> {
  const signal = AbortSignal.any([AbortSignal.timeout(options.timeoutMs ?? 60_000), ...(options.signal ? [options.signal] : [])]);
  const crds = crdObjects();
  for (const crd of crds) await client.apply(`${CRD_PATH}/${crd.metadata?.name ?? ""}`, crd, CRD_FIELD_MANAGER, { signal });
  const installed: CustomResourceDefinition[] = [];
  for (const crd of crds) installed.push(await waitUntilServed(client, crd, signal));
  return installed;
}

async function waitUntilServed(client: Pick<RestClient, "get" | "list">, crd: CustomResourceDefinition, signal: AbortSignal): Promise<CustomResourceDefinition> {
  const name = crd.metadata?.name ?? "";
  const spec = crd.spec;
  if (spec === undefined) throw new Error(`CRD ${name} has no spec`);
  const version = spec.versions.find((v) => v.storage)?.name ?? spec.versions[0]?.name ?? "";
  const collection = `/apis/${spec.group}/${version}/${spec.names.plural}`;
  let why = "not Established yet";
  for (;;) {
    if (signal.aborted) throw new Error(`CRD ${name}: ${why}`, { cause: signal.reason });
    const current = await client.get<CustomResourceDefinition>(`${CRD_PATH}/${name}`, { signal });
    const established = current.status?.conditions?.find((c) => c.type === "Established");
    if (established?.status === "True") {
      try {
        await client.list(collection, { query: { limit: 1 }, signal });
        return current;
      } catch (err) {
        if (!(err instanceof HttpStatusError && err.status === 404)) throw err;
        why = `Established but ${collection} not served yet`;
      }
    } else if (established?.message) {
      why = established.message;
    }
    await sleep(100, undefined, { signal }).catch(() => undefined);
  }
}
