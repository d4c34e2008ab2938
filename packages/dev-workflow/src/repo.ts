/** Files of this repository the targets use, found from the built tool's own place. */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** dist/ (or src/ under the tests) of packages/dev-workflow, three levels below the root. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

export const DEMO_DIR = join(REPO_ROOT, "hack", "examples", "demo");
export const DEMO_NAMESPACE_FILE = join(DEMO_DIR, "01-secret.yaml");
export const DEMO_PROVIDER_CONFIG_FILE = join(DEMO_DIR, "02-providerconfig.yaml");
export const DEMO_CLUSTER_FILE = join(DEMO_DIR, "03-kubernetescluster.yaml");
export const CROSSPLANE_SETUP_FILE = join(REPO_ROOT, "hack", "crossplane-otc-setup.yaml");
export const CROSSPLANE_PROVIDER_CONFIG_FILE = join(REPO_ROOT, "hack", "crossplane-otc-providerconfig.yaml");
export const FLAVORS_FILE = join(REPO_ROOT, "hack", "otc-flavors.yaml");
export const APIEXPORT_DIR = join(REPO_ROOT, "apiexports", "platform.edgeconnect.eu");
export const CONTROLLER_MAIN = join(REPO_ROOT, "packages", "provider-controller", "dist", "main.js");
export const CONTROLLER_CHART = join(REPO_ROOT, "deploy", "provider-controller");
export const CONTROLLER_KCP_RBAC = join(CONTROLLER_CHART, "kcp", "provider-controller-rbac.yaml");
export const CONTROLLER_DOCKERFILE = join(REPO_ROOT, "packages", "provider-controller", "Dockerfile");
/** Where targets keep what they write (kubeconfigs for the controller, fetched kubeconfigs). */
export const WORK_DIR = join(REPO_ROOT, ".cache", "make");

/** A path as the user would type it from the repository's root. */
export function shown(path: string): string {
  return path.startsWith(`${REPO_ROOT}/`) ? path.slice(REPO_ROOT.length + 1) : path;
}
