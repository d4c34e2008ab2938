/**
 * Whether a declared provider is installed as declared, from the Cluster
 * API Operator object's status (conditions of api/v1alpha2/
 * conditions_consts.go: ProviderInstalled, ProviderUpgraded, Ready; and
 * installedVersion). Pure: the declaration's version and the observed
 * object in, a verdict and the reason out.
 *
 * Ready alone is not enough: after a version change the operator keeps the
 * old release running (Ready=True) while the upgrade fails
 * (ProviderUpgraded=False) or has not happened yet (installedVersion is
 * still the old one).
 */
import { findCondition, scrubText, type Condition, type DeepReadonly } from "@edgeconnect/runtime";
import type { OperatorProvider } from "./operator-providers.js";

export interface ProviderReadiness {
  readonly ready: boolean;
  /** Why it is not ready, for the ProvidersReady condition; empty when ready. */
  readonly message: string;
}

export function providerReadiness(declaredVersion: string, observed: DeepReadonly<OperatorProvider> | undefined): ProviderReadiness {
  if (observed === undefined) return { ready: false, message: "waiting for the Cluster API Operator" };
  const conditions = observed.status?.conditions;
  const installedVersion = observed.status?.installedVersion;
  const problems: string[] = [];
  if (installedVersion !== declaredVersion) {
    problems.push(`installed version ${installedVersion ?? "none yet"}, declared ${declaredVersion}`);
  }
  for (const type of ["ProviderInstalled", "ProviderUpgraded", "Ready"]) {
    const condition = findCondition(conditions, type);
    // An absent ProviderUpgraded means no upgrade was ever needed.
    if (condition !== undefined && condition.status !== "True") problems.push(describe(condition));
  }
  if (problems.length === 0 && findCondition(conditions, "Ready") === undefined) {
    problems.push("waiting for the Cluster API Operator to report it ready");
  }
  return { ready: problems.length === 0, message: problems.join("; ") };
}

function describe(condition: DeepReadonly<Condition>): string {
  return `${condition.type}=${condition.status} (${condition.reason}${condition.message === "" ? "" : `: ${scrubText(condition.message)}`})`;
}
