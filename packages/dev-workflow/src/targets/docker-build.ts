/** `make docker-build`: the provider-controller's image, from the repository root. */
import { runCommand } from "../commands.js";
import { requireDocker } from "../docker.js";
import type { TargetContext } from "../output.js";
import { CONTROLLER_DOCKERFILE, REPO_ROOT, shown } from "../repo.js";
import type { Variables } from "../variables.js";

export const DEFAULT_IMAGE = "ghcr.io/edgeconnect/provider-controller:dev";

export async function dockerBuild(vars: Variables, context: TargetContext): Promise<void> {
  await requireDocker("docker-build", "Build the image where Docker runs, or use `make run-kcp-local` to run the controller without one.", vars.withDefault("DOCKER", "docker"));
  const image = vars.withDefault("IMG", DEFAULT_IMAGE);
  context.out.info(`building ${image} from ${shown(CONTROLLER_DOCKERFILE)}`);
  await runCommand(vars.withDefault("DOCKER", "docker"), ["build", "-f", CONTROLLER_DOCKERFILE, "-t", image, REPO_ROOT], { signal: context.signal });
}
