import { describe, expect, it } from "@jest/globals";
import { CLUSTER_API_STEPS, CONDITION, REASON, STEP_CONDITIONS, summarize, TERMINAL_REASONS, type ConditionInput, type StepType } from "./cluster-status.js";

const ok = (type: StepType): ConditionInput => ({ type, status: "True", reason: REASON.Available, message: `${type} ok` });
const no = (type: StepType, reason: string, message = `${type}: ${reason}`): ConditionInput => ({ type, status: "False", reason, message });
const wait = (type: StepType, reason: string = REASON.Creating): ConditionInput => ({ type, status: "Unknown", reason, message: `${type} pending` });

const allTrue = STEP_CONDITIONS.map(ok);

describe("summarize", () => {
  it("is Ready when every step is True", () => {
    const summary = summarize(allTrue);
    expect(summary.phase).toBe("Ready");
    expect(summary.ready).toEqual({ type: "Ready", status: "True", reason: "Ready", message: "the cluster is ready" });
  });

  it("writes the conditions in step order, Ready last, whatever order the steps come in", () => {
    const summary = summarize([...allTrue].reverse());
    expect(summary.conditions.map((c) => c.type)).toEqual([
      "CredentialsValid",
      "FlavorMatched",
      "NetworkReady",
      "ControlPlaneReady",
      "NodePoolReady",
      "KubeconfigReady",
      "Ready",
    ]);
  });

  it("fills steps not given with Unknown/Pending", () => {
    const summary = summarize([ok(CONDITION.CredentialsValid)]);
    expect(summary.conditions[1]).toEqual({ type: "FlavorMatched", status: "Unknown", reason: "Pending", message: "not checked yet" });
    expect(summary.ready).toEqual({ type: "Ready", status: "False", reason: "Pending", message: "not checked yet" });
  });

  it.each<[string, ConditionInput[], string, Pick<ConditionInput, "status" | "reason" | "message">]>([
    ["nothing known yet", [], "Pending", { status: "False", reason: "Pending", message: "not checked yet" }],
    ["a missing ProviderConfig", [no(CONDITION.CredentialsValid, REASON.ProviderConfigNotFound, "ProviderConfig otc not found")], "Pending", { status: "False", reason: "ProviderConfigNotFound", message: "ProviderConfig otc not found" }],
    ["invalid credentials", [no(CONDITION.CredentialsValid, REASON.InvalidCredentials, "missing password")], "Failed", { status: "False", reason: "InvalidCredentials", message: "missing password" }],
    ["no matching flavor", [ok(CONDITION.CredentialsValid), no(CONDITION.FlavorMatched, REASON.NoMatchingFlavor, "no flavor")], "Failed", { status: "False", reason: "NoMatchingFlavor", message: "no flavor" }],
    ["a sold-out flavor being replaced", [ok(CONDITION.CredentialsValid), no(CONDITION.FlavorMatched, REASON.SoldOut), ok(CONDITION.NetworkReady)], "Provisioning", { status: "False", reason: "SoldOut", message: "FlavorMatched: SoldOut" }],
    ["infrastructure being created", [ok(CONDITION.CredentialsValid), ok(CONDITION.FlavorMatched), wait(CONDITION.NetworkReady)], "Provisioning", { status: "False", reason: "Creating", message: "NetworkReady pending" }],
    ["a control plane being created", [...allTrue.slice(0, 3), wait(CONDITION.ControlPlaneReady), wait(CONDITION.NodePoolReady, REASON.Pending)], "Provisioning", { status: "False", reason: "Creating", message: "ControlPlaneReady pending" }],
    ["a retried provisioning failure", [...allTrue.slice(0, 3), no(CONDITION.ControlPlaneReady, REASON.ProvisioningFailed, "quota")], "Provisioning", { status: "False", reason: "ProvisioningFailed", message: "quota" }],
    ["an unsupported change on a ready cluster", [...allTrue.slice(0, 3), no(CONDITION.ControlPlaneReady, REASON.UnsupportedChange, "set it back"), ...allTrue.slice(4)], "Failed", { status: "False", reason: "UnsupportedChange", message: "set it back" }],
    ["a tenant namespace conflict", [ok(CONDITION.CredentialsValid), ok(CONDITION.FlavorMatched), no(CONDITION.NetworkReady, REASON.TenantNamespaceConflict)], "Failed", { status: "False", reason: "TenantNamespaceConflict", message: "NetworkReady: TenantNamespaceConflict" }],
    ["the kubeconfig missing", [...allTrue.slice(0, 5), wait(CONDITION.KubeconfigReady, REASON.Pending)], "Provisioning", { status: "False", reason: "Pending", message: "KubeconfigReady pending" }],
  ])("%s → %s", (_case, steps, phase, ready) => {
    const summary = summarize(steps);
    expect(summary.phase).toBe(phase);
    expect(summary.ready).toEqual({ type: "Ready", ...ready });
  });

  it("carries the first non-True step, not a later one", () => {
    const summary = summarize([ok(CONDITION.CredentialsValid), wait(CONDITION.FlavorMatched), no(CONDITION.NetworkReady, REASON.InvalidSpec, "bad cidr")]);
    expect(summary.ready.reason).toBe("Creating");
    expect(summary.phase).toBe("Failed");
  });

  it("keeps the first of two steps of one type", () => {
    expect(summarize([no(CONDITION.CredentialsValid, REASON.InvalidCredentials), ok(CONDITION.CredentialsValid)]).conditions[0]?.status).toBe("False");
  });

  it("treats a terminal reason on an Unknown step as not terminal", () => {
    expect(summarize([wait(CONDITION.CredentialsValid, REASON.InvalidCredentials)]).phase).toBe("Pending");
  });

  it("has a small set of terminal reasons", () => {
    expect([...TERMINAL_REASONS].sort()).toEqual([
      "ClusterAPINotOffered",
      "InvalidCredentials",
      "InvalidSpec",
      "InvalidTemplate",
      "NoMatchingFlavor",
      "TenantNamespaceConflict",
      "UnsupportedChange",
      "UnsupportedVersion",
    ]);
  });
});

describe("summarize with the ClusterAPI steps", () => {
  const summary = (steps: ConditionInput[]) => summarize(steps, CLUSTER_API_STEPS);

  it("writes only its own steps, in order, and is Ready when they are all True", () => {
    const all = summary([ok(CONDITION.KubeconfigReady), ok(CONDITION.ClusterAvailable), ok(CONDITION.TemplateSetValid)]);
    expect(all.conditions.map((c) => c.type)).toEqual(["TemplateSetValid", "ClusterAvailable", "KubeconfigReady", "Ready"]);
    expect(all.phase).toBe("Ready");
  });

  it.each<[string, ConditionInput[], string]>([
    ["nothing known yet", [], "Pending"],
    ["a template set that does not exist (yet)", [no(CONDITION.TemplateSetValid, REASON.TemplateSetNotFound)], "Pending"],
    ["a version the template set does not offer", [no(CONDITION.TemplateSetValid, REASON.UnsupportedVersion)], "Failed"],
    ["a platform without Cluster API", [no(CONDITION.TemplateSetValid, REASON.ClusterAPINotOffered)], "Failed"],
    ["a template set the API server refuses", [no(CONDITION.TemplateSetValid, REASON.InvalidTemplate)], "Failed"],
    ["the Cluster being made", [ok(CONDITION.TemplateSetValid), wait(CONDITION.ClusterAvailable)], "Provisioning"],
    ["the kubeconfig missing", [ok(CONDITION.TemplateSetValid), ok(CONDITION.ClusterAvailable), wait(CONDITION.KubeconfigReady)], "Provisioning"],
  ])("%s → %s", (_case, steps, phase) => {
    expect(summary(steps).phase).toBe(phase);
  });

  it("does not wait for the OTC steps", () => {
    expect(summary([ok(CONDITION.TemplateSetValid), wait(CONDITION.ClusterAvailable)]).ready.message).toBe("ClusterAvailable pending");
  });
});
