/**
 * Manifests for tests: kcp-ts's server-side apply as the test environment's
 * field manager, and CRDs applied until they are served.
 */
import { applyManifests as apply, manifestPath, parseManifests, type KubeObject, type ManifestTarget, type RestClient } from "@edgeconnect/kcp-ts";
import { eventually, holds, type Check } from "./eventually.js";

export { parseManifests, type ManifestTarget };

export const TESTENV_FIELD_MANAGER = "edgeconnect-testenv";

/** The URL path of `obj` on the server, from its apiVersion, kind and name. */
export const objectPath = manifestPath;

/** Applies each object in order, as the test environment's field manager unless told otherwise. */
export async function applyManifests(
  client: ManifestTarget,
  manifests: string | readonly KubeObject[],
  fieldManager = TESTENV_FIELD_MANAGER,
): Promise<KubeObject[]> {
  return apply(client, manifests, fieldManager);
}

/** What applying CRDs needs of a client: applying, and reading them and their resources back. */
export type CrdTarget = ManifestTarget & Pick<RestClient, "list">;

export interface ApplyCrdsOptions {
  /** Default TESTENV_FIELD_MANAGER. */
  readonly fieldManager?: string;
  /**
   * How long applying them and waiting until every one is served may take,
   * all together. Without it, each CRD has 30 s to be served once the ones
   * before it are.
   */
  readonly timeoutMs?: number;
}

interface Crd extends KubeObject {
  spec?: { group?: string; names?: { plural?: string }; versions?: { name: string; served?: boolean }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

/** The time each CRD has to be served when the caller sets no overall bound. */
const CRD_SERVED_TIMEOUT_MS = 30_000;

/**
 * Applies CRDs and waits until each is served: Established, and a list of it
 * answers. Established comes first; until the API server's storage for the
 * new resource is ready, requests get 429 "storage is (re)initializing".
 */
export async function applyCrds(client: CrdTarget, crds: readonly KubeObject[], options: ApplyCrdsOptions = {}): Promise<void> {
  const started = Date.now();
  await applyManifests(client, crds, options.fieldManager);
  const served = async (crd: Crd): Promise<Check<undefined>> => {
    const name = crd.metadata?.name ?? "";
    const stored = await client.get<Crd>(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    const established = stored.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ?? false;
    if (!established) return holds(false, `${name} not Established yet`);
    const version = crd.spec?.versions?.find((v) => v.served !== false)?.name ?? "";
    await client.list(`/apis/${crd.spec?.group ?? ""}/${version}/${crd.spec?.names?.plural ?? ""}`, { query: { limit: 1 } });
    return holds(true, "");
  };
  if (options.timeoutMs === undefined) {
    for (const crd of crds as readonly Crd[]) {
      await eventually(() => served(crd), { timeoutMs: CRD_SERVED_TIMEOUT_MS, description: `CRD ${crd.metadata?.name ?? ""} served` });
    }
    return;
  }
  // One wait for all, in order, so that the bound holds for the whole set; what is served stays served.
  const pending = [...(crds as readonly Crd[])];
  await eventually(
    async () => {
      for (let crd = pending[0]; crd !== undefined; crd = pending[0]) {
        let check: Check<undefined>;
        try {
          check = await served(crd);
        } catch (err) {
          // Still "not yet", as eventually takes it, but saying which CRD.
          return holds(false, `${crd.metadata?.name ?? ""}: ${err instanceof Error ? err.message : String(err)}`);
        }
        if (!check[0]) return check;
        pending.shift();
      }
      return holds(true, "");
    },
    // The apply counts against the bound too.
    { timeoutMs: Math.max(0, options.timeoutMs - (Date.now() - started)), description: `${crds.length} CRDs served` },
  );
}
