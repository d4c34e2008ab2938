/** How targets talk to the user: progress on stdout, warnings on stderr. */
export interface Output {
  readonly info: (line: string) => void;
  readonly warn: (line: string) => void;
}

export const consoleOutput: Output = {
  info: (line) => console.log(line),
  warn: (line) => console.error(`WARNING: ${line}`),
};

/** What every target gets. */
export interface TargetContext {
  readonly out: Output;
  /** Aborted on Ctrl-C or SIGTERM: waits end, children are stopped. */
  readonly signal: AbortSignal;
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", abort);
      resolve();
    }, ms);
    const abort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener("abort", abort, { once: true });
  });
}
