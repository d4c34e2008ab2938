/**
 * The opt-in kind path: a kind cluster as the infrastructure cluster instead
 * of the local kube-apiserver. kind needs a Docker engine, which the project's
 * build machines do not have, so availability is checked first and the caller
 * skips with the reason.
 */
import { execa } from "execa";

export type Availability = { readonly available: true } | { readonly available: false; readonly reason: string };

/** Whether `docker info` reaches an engine and a kind binary exists. */
export async function kindAvailability(kindBinary = "kind"): Promise<Availability> {
  const docker = await execa("docker", ["info"], { reject: false, timeout: 20_000 });
  if (docker.failed) {
    const output = typeof docker.stderr === "string" && docker.stderr !== "" ? docker.stderr : (docker.shortMessage ?? "");
    const detail = output.split("\n").find((l) => l.trim() !== "") ?? "";
    return { available: false, reason: `docker info failed (${detail.trim()})` };
  }
  const kind = await execa(kindBinary, ["version"], { reject: false, timeout: 20_000 });
  if (kind.failed) return { available: false, reason: `${kindBinary} version failed (${kind.shortMessage})` };
  return { available: true };
}

export class KindCluster {
  private constructor(
    readonly name: string,
    readonly kubeconfigPath: string,
    private readonly binary: string,
  ) {}

  /** Creates the cluster and waits for its control plane (kind's own --wait). */
  static async create(name: string, kubeconfigPath: string, binary = "kind"): Promise<KindCluster> {
    await execa(binary, ["create", "cluster", "--name", name, "--kubeconfig", kubeconfigPath, "--wait", "180s"]);
    return new KindCluster(name, kubeconfigPath, binary);
  }

  async delete(): Promise<void> {
    await execa(this.binary, ["delete", "cluster", "--name", this.name], { reject: false });
  }
}
