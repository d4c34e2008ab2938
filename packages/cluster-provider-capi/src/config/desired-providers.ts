/**
 * The Cluster API Operator objects a ProviderConfig asks for, and how its
 * declarations agree with those of the other ProviderConfigs. Pure: plain
 * objects in, plain objects out.
 *
 * A provider (kind + name) is installed once per management cluster: the
 * operator refuses a second object of one kind and name in any namespace.
 * Several configs may declare it, e.g. two EKS profiles both need `aws`, as
 * long as they declare it identically; the config that sorts first by name
 * wins a disagreement, and the others are told which config to match.
 */
import type { ProviderConfigV1alpha1, ProviderConfigV1alpha1Providers } from "@edgeconnect/capi-provider-api";
import type { DeepReadonly } from "@edgeconnect/runtime";
import { DECLARED_BY_PREFIX, MANAGED_BY } from "../provider/provider-identity.js";

export type OperatorProviderKind = "InfrastructureProvider" | "BootstrapProvider" | "ControlPlaneProvider";

/** What a ProviderConfig says about one provider. */
export type ProviderDeclaration = DeepReadonly<NonNullable<ProviderConfigV1alpha1Providers["infrastructure"]>[number]>;

/** What is read of a ProviderConfig here. */
export type ConfigDeclarations = DeepReadonly<Pick<ProviderConfigV1alpha1, "metadata" | "spec">>;

export interface DeclaredProvider {
  readonly kind: OperatorProviderKind;
  readonly name: string;
  readonly namespace: string;
  readonly declaration: ProviderDeclaration;
}

const KINDS: readonly { readonly field: keyof ProviderConfigV1alpha1Providers; readonly kind: OperatorProviderKind; readonly suffix: string }[] = [
  { field: "infrastructure", kind: "InfrastructureProvider", suffix: "infrastructure" },
  { field: "bootstrap", kind: "BootstrapProvider", suffix: "bootstrap" },
  { field: "controlPlane", kind: "ControlPlaneProvider", suffix: "control-plane" },
];

/**
 * The namespace a provider is installed into when its declaration names
 * none: one per kind and name, so no two providers share one (the operator
 * and clusterctl expect a provider to own its namespace).
 */
export function defaultProviderNamespace(kind: OperatorProviderKind, name: string): string {
  const suffix = KINDS.find((entry) => entry.kind === kind)?.suffix ?? "provider";
  return `${name}-${suffix}-system`;
}

export function declaredProviders(config: Pick<ConfigDeclarations, "spec">): DeclaredProvider[] {
  return KINDS.flatMap(({ field, kind }) =>
    (config.spec.providers?.[field] ?? []).map((declaration) => ({
      kind,
      name: declaration.name,
      // The CRD allows an empty namespace; it means the default, as an absent one does.
      namespace: declaration.namespace || defaultProviderNamespace(kind, declaration.name),
      declaration,
    })),
  );
}

export function providerKey(provider: Pick<DeclaredProvider, "kind" | "name">): string {
  return `${provider.kind}/${provider.name}`;
}

export interface ProviderConflict {
  readonly provider: DeclaredProvider;
  /** The config whose declaration wins. */
  readonly winner: string;
}

/**
 * The providers of `config` that another live config declares differently
 * (other settings or another namespace) and wins: of all configs declaring
 * a provider, the one sorting first by name owns its operator object.
 */
export function providerConflicts(config: ConfigDeclarations, others: readonly ConfigDeclarations[]): ProviderConflict[] {
  const name = config.metadata.name ?? "";
  const earlier = others.filter((other) => (other.metadata.name ?? "") < name).sort((a, b) => ((a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : 1));
  const conflicts: ProviderConflict[] = [];
  for (const provider of declaredProviders(config)) {
    for (const other of earlier) {
      const theirs = declaredProviders(other).find((candidate) => providerKey(candidate) === providerKey(provider));
      if (theirs === undefined) continue;
      if (canonical(theirs) !== canonical(provider)) conflicts.push({ provider, winner: other.metadata.name ?? "" });
      break;
    }
  }
  return conflicts;
}

/** The label that says `configName` declares a provider. */
export function declaredByLabel(configName: string): string {
  return `${DECLARED_BY_PREFIX}${configName}`;
}

/** The ProviderConfigs an operator object's labels say declare it. */
export function declaringConfigs(labels: Readonly<Record<string, string>> | undefined): string[] {
  return Object.keys(labels ?? {})
    .filter((key) => key.startsWith(DECLARED_BY_PREFIX))
    .map((key) => key.slice(DECLARED_BY_PREFIX.length));
}

/**
 * The operator object (`operator.cluster.x-k8s.io/v1alpha2`) for a provider,
 * as `configName` applies it. Its field manager is per config, so each
 * config owns its own declared-by label and a shared object keeps every
 * config's label until that config lets go.
 */
export function operatorProviderObject(provider: DeclaredProvider, configName: string, apiVersion: string): Record<string, unknown> {
  const { declaration } = provider;
  const manager = declaration.manager;
  return {
    apiVersion,
    kind: provider.kind,
    metadata: {
      name: provider.name,
      namespace: provider.namespace,
      labels: { ...MANAGED_BY, [declaredByLabel(configName)]: "" },
    },
    spec: {
      version: declaration.version,
      ...(declaration.fetchConfig === undefined ? {} : { fetchConfig: declaration.fetchConfig }),
      ...(declaration.configSecret === undefined ? {} : { configSecret: declaration.configSecret }),
      // As declared: our CRD takes the operator's own shape of these (ProviderSpec in its api/v1alpha2/provider_types.go).
      ...(declaration.deployment === undefined ? {} : { deployment: declaration.deployment }),
      ...(declaration.patches === undefined ? {} : { patches: declaration.patches }),
      ...(declaration.additionalManifests === undefined ? {} : { additionalManifests: declaration.additionalManifests }),
      ...(manager === undefined
        ? {}
        : {
            manager: {
              ...(manager.featureGates === undefined ? {} : { featureGates: manager.featureGates }),
              ...(manager.additionalArgs === undefined ? {} : { additionalArgs: manager.additionalArgs }),
              ...(manager.verbosity === undefined ? {} : { verbosity: manager.verbosity }),
            },
          }),
    },
  };
}

/** A declaration's content with keys in a fixed order, to compare two of them. */
function canonical(provider: DeclaredProvider): string {
  return JSON.stringify(sortKeys({ namespace: provider.namespace, ...provider.declaration }));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, inner]) => [key, sortKeys(inner)]),
  );
}
