/**
 * What the reconciler needs of one MR kind: how Terraform's resource
 * creates, reads, updates and deletes its OTC object (the provider's
 * ExternalClient), each through `@edgeconnect/otc`. Kinds are plain data
 * plus functions (external/*.ts); the reconciler owns the flow.
 */
import type { OtcClient } from "@edgeconnect/otc";
import type { ExternalPhase } from "./conditions.js";
import type { ParameterChange } from "./parameter-diff.js";
import type { ManagedKind, ManagedResource, Parameters } from "./resource.js";

export interface ExternalContext {
  /** Bound to the reconcile's signal already. */
  readonly otc: OtcClient;
  readonly signal: AbortSignal;
}

/** Terraform's refresh of one existing object. */
export interface Observation {
  readonly phase: ExternalPhase;
  /** status.atProvider: the observed values, and the parameters echoed as Terraform's state keeps them. */
  readonly atProvider: Parameters;
  /** forProvider's arguments as OTC reports them: what `parameterChanges` compares against. */
  readonly reported: Parameters;
  /**
   * What Terraform's create does next once OTC's part is done (ClusterV3:
   * bind the master EIP). The phase stays settling until it has run.
   */
  readonly followUp?: (context: ExternalContext) => Promise<void>;
}

export interface ExternalKind extends ManagedKind {
  /**
   * What Terraform's create waits for before it orders anything (NodePoolV3:
   * its cluster to be Available): undefined once there is nothing to wait
   * for, else what it waits for. Throws when the wait would fail.
   */
  waitBeforeCreate?(context: ExternalContext, parameters: Parameters): Promise<string | undefined>;
  /** Creates the object from forProvider (initProvider filled in); resolves with its external name. */
  create(context: ExternalContext, parameters: Parameters): Promise<string>;
  /** Reads the object named `externalName`; undefined once OTC no longer has it. */
  observe(context: ExternalContext, externalName: string, parameters: Parameters, mr: ManagedResource): Promise<Observation | undefined>;
  /** Starts (or does) the deletion; OTC may answer 404 later only. */
  delete(context: ExternalContext, externalName: string, parameters: Parameters, observation: Observation): Promise<void>;
  /**
   * Terraform arguments it replaces the object for (snake_case; `*` for a
   * list index; a list or object argument covers all below it). Upjet
   * refuses such a change.
   */
  readonly forceNew: ReadonlySet<string>;
  /** Arguments that change in place (same notation), and the change. Others are not simulated. */
  readonly inPlace?: {
    readonly arguments: ReadonlySet<string>;
    apply(context: ExternalContext, externalName: string, parameters: Parameters, changes: readonly ParameterChange[]): Promise<void>;
  };
  /** Ready only once settled: Terraform records a CCE cluster only after it is Available. */
  readonly readyOnlyWhenSettled?: boolean;
}

/** Whether `argument` (a change's Terraform path) falls under one of `patterns`. */
export function matchesArgument(patterns: ReadonlySet<string>, argument: string): boolean {
  const segments = argument.split(".").map((segment) => (/^(\d+|#)$/.test(segment) ? "*" : segment));
  for (let length = segments.length; length > 0; length--) {
    if (patterns.has(segments.slice(0, length).join("."))) return true;
  }
  return false;
}

/** A string argument, or undefined. */
export function stringParameter(parameters: Parameters, name: string): string | undefined {
  const value = parameters[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** A required string argument; the error is what Terraform says for a missing one. */
export function requiredString(parameters: Parameters, name: string, argument: string): string {
  const value = stringParameter(parameters, name);
  if (value === undefined) throw new Error(`The argument "${argument}" is required, but no definition was found.`);
  return value;
}

export function numberParameter(parameters: Parameters, name: string): number | undefined {
  const value = parameters[name];
  return typeof value === "number" ? value : undefined;
}

export function booleanParameter(parameters: Parameters, name: string): boolean | undefined {
  const value = parameters[name];
  return typeof value === "boolean" ? value : undefined;
}

/** The first element of a list argument given as `[{...}]`. */
export function firstBlock(parameters: Parameters, name: string): Parameters | undefined {
  const value = parameters[name];
  if (!Array.isArray(value)) return undefined;
  const [first] = value as unknown[];
  return first !== null && typeof first === "object" && !Array.isArray(first) ? (first as Parameters) : undefined;
}

/** `values` without the undefined ones: what an optional echo leaves out. */
export function defined(values: Record<string, unknown>): Parameters {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined && value !== null));
}
