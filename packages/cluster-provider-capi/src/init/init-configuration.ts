/**
 * What `init` installs and from where: the Cluster API Operator's manifest,
 * optionally cert-manager's (the operator's and the providers' webhooks need
 * certificates), and the core provider the operator then installs. Read from
 * the file `--config` names; every part left out takes the pinned default.
 *
 * ```yaml
 * operator:
 *   url: https://github.com/kubernetes-sigs/cluster-api-operator/releases/download/v0.29.0/operator-components.yaml
 *   sha256: 4f0c…        # optional: refuse anything else
 * certManager:           # optional
 *   file: /etc/cluster-provider-capi/cert-manager.yaml
 * coreProvider:
 *   namespace: capi-system
 *   version: v1.14.2
 *   fetchConfig:         # air-gapped: ConfigMaps with the components, selected by label
 *     selector: { matchLabels: { provider.cluster.x-k8s.io/name: cluster-api } }
 *   manager: { featureGates: { ClusterTopology: true } }
 * ```
 * A manifest source is exactly one of `url`, `file` or `configMap`
 * (`{ namespace, name, key? }` on the platform cluster, key default
 * `components`), for installs without a route to GitHub.
 *
 * Where the platform installs the operator itself (its Helm chart),
 * `operator: { existing: { namespace: capi-operator-system } }` (namespace
 * optional: any) makes init install neither the operator nor cert-manager,
 * only check that the operator is there.
 */
import { parse } from "yaml";

export const OPERATOR_VERSION = "v0.29.0";
export const CORE_PROVIDER_VERSION = "v1.14.2";

export type ManifestSource = (
  | { readonly url: string }
  | { readonly file: string }
  | { readonly configMap: { readonly namespace: string; readonly name: string; readonly key?: string } }
) & { readonly sha256?: string };

export interface CoreProviderSettings {
  readonly namespace: string;
  readonly version: string;
  readonly fetchConfig?: Readonly<Record<string, unknown>>;
  readonly configSecret?: { readonly name: string; readonly namespace?: string };
  readonly manager?: Readonly<Record<string, unknown>>;
}

/** An operator someone else installed; init only checks it is there. */
export interface ExistingOperator {
  readonly existing: {
    /** Where its Deployment runs; undefined: any namespace. */
    readonly namespace?: string;
  };
}

export type OperatorSource = ManifestSource | ExistingOperator;

export interface InitConfiguration {
  readonly operator: OperatorSource;
  readonly certManager?: ManifestSource;
  readonly coreProvider: CoreProviderSettings;
}

export const DEFAULT_INIT_CONFIGURATION: InitConfiguration = {
  operator: { url: `https://github.com/kubernetes-sigs/cluster-api-operator/releases/download/${OPERATOR_VERSION}/operator-components.yaml` },
  coreProvider: {
    namespace: "capi-system",
    version: CORE_PROVIDER_VERSION,
    // ClusterClass-based profiles need the topology controller.
    manager: { featureGates: { ClusterTopology: true } },
  },
};

export class InitConfigurationError extends Error {
  override readonly name = "InitConfigurationError";
}

/** The configuration in `text` (YAML) over the defaults; throws InitConfigurationError naming the field. */
export function parseInitConfiguration(text: string): InitConfiguration {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new InitConfigurationError(`not YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (doc === null || doc === undefined) return DEFAULT_INIT_CONFIGURATION;
  const root = record(doc, "the configuration", ["operator", "certManager", "coreProvider"]);
  const core = root.coreProvider === undefined ? {} : record(root.coreProvider, "coreProvider", ["namespace", "version", "fetchConfig", "configSecret", "manager"]);
  const defaults = DEFAULT_INIT_CONFIGURATION.coreProvider;
  const coreProvider: CoreProviderSettings = {
    namespace: optionalString(core.namespace, "coreProvider.namespace") ?? defaults.namespace,
    version: optionalString(core.version, "coreProvider.version") ?? defaults.version,
    ...(core.fetchConfig === undefined ? {} : { fetchConfig: record(core.fetchConfig, "coreProvider.fetchConfig") }),
    ...(core.configSecret === undefined ? {} : { configSecret: secretRef(core.configSecret) }),
    ...(core.manager === undefined ? (defaults.manager === undefined ? {} : { manager: defaults.manager }) : { manager: record(core.manager, "coreProvider.manager") }),
  };
  if (!/^v\d+\.\d+\.\d+([-+].*)?$/.test(coreProvider.version)) throw new InitConfigurationError(`coreProvider.version: ${JSON.stringify(coreProvider.version)} is not a release such as ${CORE_PROVIDER_VERSION}`);
  const operator = root.operator === undefined ? DEFAULT_INIT_CONFIGURATION.operator : operatorSource(root.operator);
  if ("existing" in operator && root.certManager !== undefined) {
    throw new InitConfigurationError("certManager: not with operator.existing; an operator installed by someone else comes with its cert-manager");
  }
  return {
    operator,
    ...(root.certManager === undefined ? {} : { certManager: manifestSource(root.certManager, "certManager") }),
    coreProvider,
  };
}

const MANIFEST_FIELDS = ["url", "file", "configMap", "sha256"];

function operatorSource(value: unknown): OperatorSource {
  const source = record(value, "operator", [...MANIFEST_FIELDS, "existing"]);
  if (source.existing === undefined) return manifestSource(source, "operator");
  const others = MANIFEST_FIELDS.filter((key) => source[key] !== undefined);
  if (others.length > 0) throw new InitConfigurationError(`operator: existing installs nothing, so it takes no ${others.join(", ")}`);
  const existing = record(source.existing, "operator.existing", ["namespace"]);
  const namespace = optionalString(existing.namespace, "operator.existing.namespace");
  return { existing: namespace === undefined ? {} : { namespace } };
}

function manifestSource(value: unknown, field: string): ManifestSource {
  const source = record(value, field, MANIFEST_FIELDS);
  const kinds = ["url", "file", "configMap"].filter((key) => source[key] !== undefined);
  if (kinds.length !== 1) throw new InitConfigurationError(`${field}: set exactly one of url, file and configMap`);
  const sha256 = optionalString(source.sha256, `${field}.sha256`);
  if (sha256 !== undefined && !/^[0-9a-f]{64}$/.test(sha256)) throw new InitConfigurationError(`${field}.sha256 must be 64 lower-case hex digits`);
  const pin = sha256 === undefined ? {} : { sha256 };
  if (source.url !== undefined) {
    const url = optionalString(source.url, `${field}.url`) ?? "";
    if (!/^https:\/\//.test(url)) throw new InitConfigurationError(`${field}.url must be an https URL`);
    return { url, ...pin };
  }
  if (source.file !== undefined) return { file: optionalString(source.file, `${field}.file`) ?? "", ...pin };
  const configMap = record(source.configMap, `${field}.configMap`, ["namespace", "name", "key"]);
  const namespace = optionalString(configMap.namespace, `${field}.configMap.namespace`);
  const name = optionalString(configMap.name, `${field}.configMap.name`);
  if (namespace === undefined || name === undefined) throw new InitConfigurationError(`${field}.configMap needs namespace and name`);
  const key = optionalString(configMap.key, `${field}.configMap.key`);
  return { configMap: { namespace, name, ...(key === undefined ? {} : { key }) }, ...pin };
}

function secretRef(value: unknown): { name: string; namespace?: string } {
  const ref = record(value, "coreProvider.configSecret", ["name", "namespace"]);
  const name = optionalString(ref.name, "coreProvider.configSecret.name");
  if (name === undefined) throw new InitConfigurationError("coreProvider.configSecret.name is required");
  const namespace = optionalString(ref.namespace, "coreProvider.configSecret.namespace");
  return { name, ...(namespace === undefined ? {} : { namespace }) };
}

/** `value` as a mapping; with `known`, a field outside it is refused (a misspelt `sha256` must not drop the check silently). */
function record(value: unknown, field: string, known?: readonly string[]): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new InitConfigurationError(`${field} must be a mapping`);
  const unknown = known === undefined ? [] : Object.keys(value).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw new InitConfigurationError(`${field}: unknown field ${unknown[0] ?? ""}; expected ${(known ?? []).join(", ")}`);
  return value as Record<string, unknown>;
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") throw new InitConfigurationError(`${field} must be a non-empty string`);
  return value;
}
