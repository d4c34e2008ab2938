import { afterEach, beforeEach, describe, expect, it, jest } from "@jest/globals";
import { LeadershipLostError } from "./manager.js";
import { exitOnLeadershipLost } from "./process.js";

describe("exitOnLeadershipLost", () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  const fakes = () => ({ exit: jest.fn<(code: number) => void>(), log: { warn: jest.fn<(obj: object, msg: string) => void>() } });

  it("exits with code 1 once the grace has passed, whatever is still running", () => {
    const { exit, log } = fakes();
    expect(exitOnLeadershipLost(new LeadershipLostError("lost"), { log, exit, graceMs: 500 })).toBe(true);
    expect(log.warn).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(499);
    expect(exit).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(exit).toHaveBeenCalledWith(1);
  });

  it("gives work in flight at most 2 s by default", () => {
    const { exit, log } = fakes();
    exitOnLeadershipLost(new LeadershipLostError("lost"), { log, exit });
    jest.advanceTimersByTime(2_000);
    expect(exit).toHaveBeenCalledWith(1);
  });

  it("leaves any other error to the caller", () => {
    const { exit, log } = fakes();
    expect(exitOnLeadershipLost(new Error("boom"), { log, exit })).toBe(false);
    jest.runAllTimers();
    expect(exit).not.toHaveBeenCalled();
    expect(log.warn).not.toHaveBeenCalled();
  });
});
