/**
 * The status of a KubernetesCluster from the outcome of each provisioning
 * step: one condition per step, in the order the steps run, and a summary
 * `Ready` condition and `phase` for `kubectl get`. Each provider type has
 * its own steps (`OTC_STEPS`, `CLUSTER_API_STEPS`).
 */

export const CONDITION = {
  CredentialsValid: "CredentialsValid",
  FlavorMatched: "FlavorMatched",
  NetworkReady: "NetworkReady",
  ControlPlaneReady: "ControlPlaneReady",
  NodePoolReady: "NodePoolReady",
  KubeconfigReady: "KubeconfigReady",
  TemplateSetValid: "TemplateSetValid",
  ClusterAvailable: "ClusterAvailable",
  /** Not a step: whether the platform reaches the infrastructure the steps' state comes from. */
  InfrastructureReachable: "InfrastructureReachable",
  Ready: "Ready",
} as const;

export type StepType = Exclude<(typeof CONDITION)[keyof typeof CONDITION], "Ready" | "InfrastructureReachable">;

/** The steps of one provider type. */
export interface ClusterSteps {
  /** In the order they run; conditions are written in this order, `Ready` last. */
  readonly order: readonly StepType[];
  /**
   * The checks of the tenant's input that come before anything is created:
   * once they all pass, or any later step got anywhere, the cluster is
   * Provisioning rather than Pending.
   */
  readonly inputs: readonly StepType[];
}

/** The steps of an OTC cluster, in the order they run. */
export const STEP_CONDITIONS: readonly StepType[] = [
  CONDITION.CredentialsValid,
  CONDITION.FlavorMatched,
  CONDITION.NetworkReady,
  CONDITION.ControlPlaneReady,
  CONDITION.NodePoolReady,
  CONDITION.KubeconfigReady,
];

export const OTC_STEPS: ClusterSteps = { order: STEP_CONDITIONS, inputs: [CONDITION.CredentialsValid, CONDITION.FlavorMatched] };

/** A ClusterAPI cluster: the template set and version, the Cluster API Cluster, the kubeconfig handed back. */
export const CLUSTER_API_STEPS: ClusterSteps = {
  order: [CONDITION.TemplateSetValid, CONDITION.ClusterAvailable, CONDITION.KubeconfigReady],
  inputs: [CONDITION.TemplateSetValid],
};

export const REASON = {
  // True
  Valid: "Valid",
  Matched: "Matched",
  Pinned: "Pinned",
  Available: "Available",
  KubeconfigWritten: "KubeconfigWritten",
  Ready: "Ready",
  // Not yet
  Pending: "Pending",
  Creating: "Creating",
  Deleting: "Deleting",
  ProviderConfigNotFound: "ProviderConfigNotFound",
  SecretNotFound: "SecretNotFound",
  MachineCapabilitiesNotFound: "MachineCapabilitiesNotFound",
  TemplateSetNotFound: "TemplateSetNotFound",
  SoldOut: "SoldOut",
  ProvisioningFailed: "ProvisioningFailed",
  /** OTC IAM refused the credentials; asked again later (a password may be fixed at OTC), so not terminal. */
  CredentialsRejected: "CredentialsRejected",
  // Terminal: nothing changes until the tenant changes something.
  InvalidCredentials: "InvalidCredentials",
  NoMatchingFlavor: "NoMatchingFlavor",
  UnsupportedChange: "UnsupportedChange",
  TenantNamespaceConflict: "TenantNamespaceConflict",
  InvalidSpec: "InvalidSpec",
  UnsupportedVersion: "UnsupportedVersion",
  InvalidTemplate: "InvalidTemplate",
  ClusterAPINotOffered: "ClusterAPINotOffered",
} as const;

/** Reasons after which retrying alone will not help: a False step with one makes the phase Failed. */
export const TERMINAL_REASONS: ReadonlySet<string> = new Set([
  REASON.InvalidCredentials,
  REASON.NoMatchingFlavor,
  REASON.UnsupportedChange,
  REASON.TenantNamespaceConflict,
  REASON.InvalidSpec,
  REASON.UnsupportedVersion,
  REASON.InvalidTemplate,
  REASON.ClusterAPINotOffered,
]);

export type ConditionStatus = "True" | "False" | "Unknown";

/** A condition as a controller sets it; observedGeneration and lastTransitionTime are the writer's business. */
export interface ConditionInput {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
}

/** `Deleting` is the caller's: it knows about the deletion timestamp. */
export type ClusterPhase = "Pending" | "Provisioning" | "Ready" | "Failed" | "Deleting";

export interface ClusterStatusSummary {
  phase: ClusterPhase;
  ready: ConditionInput;
  /** Every step of the provider type's order (a step not given is Unknown/Pending), then `ready`. */
  conditions: ConditionInput[];
}

/**
 * Summarizes step outcomes. `Ready` is True only when every step is; else it
 * is False with the reason and message of the first step that is not True,
 * which is what the tenant has to look at.
 */
export function summarize(steps: readonly ConditionInput[], sequence: ClusterSteps = OTC_STEPS): ClusterStatusSummary {
  const byType = new Map<string, ConditionInput>();
  for (const step of steps) if (!byType.has(step.type)) byType.set(step.type, step);
  const ordered = sequence.order.map(
    (type): ConditionInput => byType.get(type) ?? { type, status: "Unknown", reason: REASON.Pending, message: "not checked yet" },
  );
  const blocking = ordered.find((step) => step.status !== "True");
  const ready: ConditionInput =
    blocking === undefined
      ? { type: CONDITION.Ready, status: "True", reason: REASON.Ready, message: "the cluster is ready" }
      : { type: CONDITION.Ready, status: "False", reason: blocking.reason, message: blocking.message };
  return { phase: phaseOf(ordered, blocking === undefined, sequence), ready, conditions: [...ordered, ready] };
}

function phaseOf(steps: readonly ConditionInput[], ready: boolean, sequence: ClusterSteps): ClusterPhase {
  if (steps.some((step) => step.status === "False" && TERMINAL_REASONS.has(step.reason))) return "Failed";
  if (ready) return "Ready";
  const isTrue = (type: string): boolean => steps.some((step) => step.type === type && step.status === "True");
  const started = steps.some((step) => !(sequence.inputs as readonly string[]).includes(step.type) && step.status === "True");
  return started || sequence.inputs.every(isTrue) ? "Provisioning" : "Pending";
}
