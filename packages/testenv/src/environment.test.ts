import { describe, expect, it } from "@jest/globals";
import { STATE_ENV_VAR, workerStatePath } from "./environment.js";

describe("workerStatePath", () => {
  const env = (workerId: string | undefined): NodeJS.ProcessEnv => ({ [STATE_ENV_VAR]: "/a/state.json:/b/state.json", JEST_WORKER_ID: workerId });

  it("gives each Jest worker the environment of its id", () => {
    expect(workerStatePath(env("1"))).toBe("/a/state.json");
    expect(workerStatePath(env("2"))).toBe("/b/state.json");
  });

  it("takes the first when Jest runs in band (no worker id)", () => {
    expect(workerStatePath(env(undefined))).toBe("/a/state.json");
  });

  it("refuses a worker the global setup started no environment for, rather than sharing one", () => {
    expect(() => workerStatePath(env("3"))).toThrow(/names 2 environments, none for Jest worker 3/);
  });

  it("says how to run the suites when nothing is set", () => {
    expect(() => workerStatePath({})).toThrow(/run these tests through the e2e Jest project/);
  });
});
