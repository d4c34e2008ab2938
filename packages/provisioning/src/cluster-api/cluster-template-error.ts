/**
 * A Cluster API template, or what a cluster asks of it, that the platform
 * team has to fix: retrying cannot help. `problems` holds every problem
 * found, each saying where and what to change.
 */
export class ClusterTemplateError extends Error {
  override readonly name = "ClusterTemplateError";
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(problems.length === 1 ? (problems[0] ?? "") : `the cluster template has ${problems.length} problems: ${problems.join("; ")}`);
    this.problems = problems;
  }
}
