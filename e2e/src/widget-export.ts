/**
 * The smoke API of the e2e suites and the benchmark: `fixtures/widgets-export.yaml`
 * (an APIResourceSchema for `widgets.smoke.edgeconnect.eu` and its APIExport
 * with a claim on Secrets), installed in a provider workspace and bound by
 * tenants.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { applyManifests, bindApiExport, type Workspace } from "@edgeconnect/testenv";

export const WIDGET_EXPORT = "smoke.edgeconnect.eu";
export const WIDGETS_PATH = "/apis/smoke.edgeconnect.eu/v1alpha1";

/**
 * The claim tenants accept: exactly the export's verbs, since kcp intersects
 * the two lists literally.
 */
const SECRETS_CLAIM = { group: "", resource: "secrets", verbs: ["get", "list", "watch", "create", "update", "patch", "delete"] };

// Tests run this file from e2e/src, the benchmark from e2e/dist/src.
const FIXTURE = ["../fixtures/widgets-export.yaml", "../../fixtures/widgets-export.yaml"]
  .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
  .find((path) => existsSync(path));

/** Applies the schema and the export in the provider workspace. */
export async function installWidgetExport(provider: Workspace): Promise<void> {
  if (FIXTURE === undefined) throw new Error("fixtures/widgets-export.yaml not found next to e2e/src or e2e/dist/src");
  await applyManifests(provider.client, readFileSync(FIXTURE, "utf8"));
}

/** Binds the export in `tenant`, accepting its Secrets claim, and waits for Bound. */
export async function bindWidgetExport(tenant: Workspace, provider: Workspace): Promise<void> {
  await bindApiExport(tenant, provider.path, WIDGET_EXPORT, { acceptClaims: [SECRETS_CLAIM] });
}
