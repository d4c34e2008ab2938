/** Why `init` failed, as the init Job's log says it. */

/** A wait that ended at the deadline, saying what it waited for. */
export class InstallTimeoutError extends Error {
  override readonly name = "InstallTimeoutError";
}

/**
 * Something init needs and does not install is not on the cluster (e.g.
 * cert-manager for the operator's webhook): waiting would not help, so init
 * says what to install instead of running into its deadline.
 */
export class PrerequisiteMissingError extends Error {
  override readonly name = "PrerequisiteMissingError";
}
