/** Stops what the global setup started and removes its state file. */
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { STATE_ENV_VAR } from "@edgeconnect/testenv";

export default async function globalTeardown(): Promise<void> {
  await globalThis.edgeconnectTestEnvironment?.stop();
  globalThis.edgeconnectTestEnvironment = undefined;
  const stateFile = process.env[STATE_ENV_VAR];
  if (stateFile !== undefined) rmSync(dirname(stateFile), { recursive: true, force: true });
}
