#!/usr/bin/env node
/**
 * `edgeconnect-dev <target>`: what the root Makefile's targets run. Each
 * reads its variables from the environment, says what it did, and exits 0;
 * a mistake in how it was called exits 2 with what to change; a failure on
 * the way exits 1. Ctrl-C stops a waiting target and whatever it started.
 */
import { consoleOutput, type TargetContext } from "./output.js";
import { crossplaneCreateOtcSecret, crossplaneKind } from "./targets/crossplane.js";
import { deployKcpController, runKcpLocal } from "./targets/controller.js";
import { demoApplyCluster, demoKubeconfig, demoSecretCreate, demoUp, otcConfig } from "./targets/demo.js";
import { dockerBuild } from "./targets/docker-build.js";
import { UsageError, Variables } from "./variables.js";

type Target = (vars: Variables, context: TargetContext) => Promise<void>;

const TARGETS: Readonly<Record<string, Target>> = {
  "crossplane-kind": crossplaneKind,
  "crossplane-create-otc-secret": crossplaneCreateOtcSecret,
  "otc-config": otcConfig,
  "demo-secret-create": demoSecretCreate,
  "demo-apply-cluster": demoApplyCluster,
  "demo-up": demoUp,
  "demo-kubeconfig": demoKubeconfig,
  "run-kcp-local": runKcpLocal,
  "deploy-kcp-controller": deployKcpController,
  "docker-build": dockerBuild,
};

async function main(): Promise<number> {
  const name = process.argv[2] ?? "";
  const target = TARGETS[name];
  if (target === undefined) {
    console.error(`usage: edgeconnect-dev <target>, one of: ${Object.keys(TARGETS).join(", ")} (make help describes them)`);
    return 2;
  }
  const stop = new AbortController();
  const abort = (): void => stop.abort(new Error(`${name} stopped`));
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  try {
    await target(new Variables(process.env, name), { out: consoleOutput, signal: stop.signal });
    return 0;
  } catch (err) {
    if (stop.signal.aborted) return 130;
    console.error(`${name}: ${err instanceof Error ? err.message : String(err)}`);
    return err instanceof UsageError ? 2 : 1;
  }
}

process.exitCode = await main();
