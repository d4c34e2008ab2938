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
