import { describe, expect, it } from "@jest/globals";
import {
  CORE_PROVIDER_VERSION,
  DEFAULT_INIT_CONFIGURATION,
  InitConfigurationError,
  OPERATOR_VERSION,
  parseInitConfiguration,
  type InitConfiguration,
} from "./init-configuration.js";

const SHA = "4f0c".padEnd(64, "0");
const DEFAULT_CORE = {
  namespace: "capi-system",
  version: "v1.14.2",
  manager: { featureGates: { ClusterTopology: true } },
};

function refused(text: string): string {
  try {
    parseInitConfiguration(text);
  } catch (err) {
    expect(err).toBeInstanceOf(InitConfigurationError);
    return (err as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(text)}`);
}

describe("DEFAULT_INIT_CONFIGURATION", () => {
  it("pins the operator release and the core provider with the topology controller", () => {
    expect(OPERATOR_VERSION).toBe("v0.29.0");
    expect(CORE_PROVIDER_VERSION).toBe("v1.14.2");
    expect(DEFAULT_INIT_CONFIGURATION).toEqual({
      operator: { url: "https://github.com/kubernetes-sigs/cluster-api-operator/releases/download/v0.29.0/operator-components.yaml" },
      coreProvider: DEFAULT_CORE,
    });
  });
});

describe("parseInitConfiguration", () => {
  it.each(["", "\n", "# only a comment\n", "---\n", "~"])("takes the defaults for %j", (text) => {
    expect(parseInitConfiguration(text)).toEqual(DEFAULT_INIT_CONFIGURATION);
  });

  it("takes the defaults for every part left out of an empty mapping", () => {
    expect(parseInitConfiguration("{}")).toEqual(DEFAULT_INIT_CONFIGURATION);
    expect(parseInitConfiguration("coreProvider: {}")).toEqual(DEFAULT_INIT_CONFIGURATION);
  });

  it("reads the documented example", () => {
    const text = [
      "operator:",
      "  url: https://github.com/kubernetes-sigs/cluster-api-operator/releases/download/v0.29.0/operator-components.yaml",
      `  sha256: ${SHA}`,
      "certManager:",
      "  file: /etc/cluster-provider-capi/cert-manager.yaml",
      "coreProvider:",
      "  namespace: capi-system",
      "  version: v1.14.2",
      "  fetchConfig:",
      "    selector: { matchLabels: { provider.cluster.x-k8s.io/name: cluster-api } }",
      "  manager: { featureGates: { ClusterTopology: true } }",
    ].join("\n");
    const expected: InitConfiguration = {
      operator: { url: "https://github.com/kubernetes-sigs/cluster-api-operator/releases/download/v0.29.0/operator-components.yaml", sha256: SHA },
      certManager: { file: "/etc/cluster-provider-capi/cert-manager.yaml" },
      coreProvider: {
        namespace: "capi-system",
        version: "v1.14.2",
        fetchConfig: { selector: { matchLabels: { "provider.cluster.x-k8s.io/name": "cluster-api" } } },
        manager: { featureGates: { ClusterTopology: true } },
      },
    };
    expect(parseInitConfiguration(text)).toEqual(expected);
  });

  describe("manifest sources", () => {
    it.each<[string, string, unknown]>([
      ["url", "operator: { url: https://mirror.example/operator.yaml }", { url: "https://mirror.example/operator.yaml" }],
      ["url pinned", `operator: { url: https://mirror.example/operator.yaml, sha256: ${SHA} }`, { url: "https://mirror.example/operator.yaml", sha256: SHA }],
      ["file", "operator: { file: /etc/operator.yaml }", { file: "/etc/operator.yaml" }],
      ["file pinned", `operator: { file: /etc/operator.yaml, sha256: ${SHA} }`, { file: "/etc/operator.yaml", sha256: SHA }],
      ["configMap with key", "operator: { configMap: { namespace: capi, name: operator, key: manifest.yaml } }", { configMap: { namespace: "capi", name: "operator", key: "manifest.yaml" } }],
      ["configMap without key", "operator: { configMap: { namespace: capi, name: operator } }", { configMap: { namespace: "capi", name: "operator" } }],
      ["configMap pinned", `operator: { configMap: { namespace: capi, name: operator }, sha256: ${SHA} }`, { configMap: { namespace: "capi", name: "operator" }, sha256: SHA }],
    ])("reads the operator from a %s", (_case, text, operator) => {
      expect(parseInitConfiguration(text)).toEqual({ operator, coreProvider: DEFAULT_CORE });
    });

    it("leaves the key out of a configMap source that names none, for the installer's default", () => {
      const { operator } = parseInitConfiguration("operator: { configMap: { namespace: capi, name: operator } }");
      expect("configMap" in operator && Object.keys(operator.configMap)).toEqual(["namespace", "name"]);
    });

    it("reads cert-manager's source like the operator's, keeping the default operator", () => {
      expect(parseInitConfiguration("certManager: { configMap: { namespace: cm, name: cert-manager } }")).toEqual({
        operator: DEFAULT_INIT_CONFIGURATION.operator,
        certManager: { configMap: { namespace: "cm", name: "cert-manager" } },
        coreProvider: DEFAULT_CORE,
      });
    });

    it.each<[string, string, unknown]>([
      ["in any namespace", "operator: { existing: {} }", { existing: {} }],
      ["in a namespace", "operator: { existing: { namespace: capi-operator-system } }", { existing: { namespace: "capi-operator-system" } }],
    ])("takes an operator installed by someone else %s", (_case, text, operator) => {
      expect(parseInitConfiguration(text)).toEqual({ operator, coreProvider: DEFAULT_CORE });
    });

    it.each<[string, string, string]>([
      ["with a source", "operator: { existing: {}, url: https://a.example/o.yaml }", "operator: existing installs nothing, so it takes no url"],
      ["with a pin", `operator: { existing: {}, file: /o.yaml, sha256: ${SHA} }`, "operator: existing installs nothing, so it takes no file, sha256"],
      ["with cert-manager", "operator: { existing: {} }\ncertManager: { file: /c.yaml }", "certManager: not with operator.existing; an operator installed by someone else comes with its cert-manager"],
      ["that is not a mapping", "operator: { existing: true }", "operator.existing must be a mapping"],
      ["with an empty namespace", 'operator: { existing: { namespace: "" } }', "operator.existing.namespace must be a non-empty string"],
    ])("refuses an existing operator %s", (_case, text, message) => {
      expect(refused(text)).toBe(message);
    });

    it("installs no cert-manager unless asked", () => {
      expect(Object.keys(parseInitConfiguration("operator: { file: /o.yaml }"))).toEqual(["operator", "coreProvider"]);
    });

    it.each<[string, string, string]>([
      ["http url", "operator: { url: http://mirror.example/operator.yaml }", "operator.url must be an https URL"],
      ["scheme-less url", "operator: { url: mirror.example/operator.yaml }", "operator.url must be an https URL"],
      ["upper-case scheme", "operator: { url: HTTPS://mirror.example/operator.yaml }", "operator.url must be an https URL"],
      ["file url", "certManager: { url: file:///etc/cm.yaml }", "certManager.url must be an https URL"],
      ["empty url", 'operator: { url: "" }', "operator.url must be a non-empty string"],
      ["numeric url", "operator: { url: 443 }", "operator.url must be a non-empty string"],
      ["empty file", 'certManager: { file: "" }', "certManager.file must be a non-empty string"],
      ["url and file", "operator: { url: https://a.example/o.yaml, file: /o.yaml }", "operator: set exactly one of url, file and configMap"],
      ["file and configMap", "certManager: { file: /c.yaml, configMap: { namespace: a, name: b } }", "certManager: set exactly one of url, file and configMap"],
      ["all three", "operator: { url: https://a.example/o.yaml, file: /o.yaml, configMap: { namespace: a, name: b } }", "operator: set exactly one of url, file and configMap"],
      ["null url next to a file", "operator: { url: null, file: /o.yaml }", "operator: set exactly one of url, file and configMap"],
      ["no source", `operator: { sha256: ${SHA} }`, "operator: set exactly one of url, file and configMap"],
      ["empty source", "certManager: {}", "certManager: set exactly one of url, file and configMap"],
      ["source that is a string", "operator: https://a.example/o.yaml", "operator must be a mapping"],
      ["source that is a list", "certManager: [ { file: /c.yaml } ]", "certManager must be a mapping"],
      ["null source", "operator:", "operator must be a mapping"],
      ["configMap that is a string", "operator: { configMap: operator }", "operator.configMap must be a mapping"],
      ["configMap without name", "operator: { configMap: { namespace: capi } }", "operator.configMap needs namespace and name"],
      ["configMap without namespace", "certManager: { configMap: { name: cm } }", "certManager.configMap needs namespace and name"],
      ["configMap with an empty name", 'operator: { configMap: { namespace: capi, name: "" } }', "operator.configMap.name must be a non-empty string"],
      ["configMap with a numeric namespace", "operator: { configMap: { namespace: 1, name: o } }", "operator.configMap.namespace must be a non-empty string"],
      ["configMap with an empty key", 'operator: { configMap: { namespace: capi, name: o, key: "" } }', "operator.configMap.key must be a non-empty string"],
    ])("refuses a %s, naming the field", (_case, text, message) => {
      expect(refused(text)).toBe(message);
    });

    it.each<[string, string]>([
      ["too short", SHA.slice(1)],
      ["too long", `${SHA}0`],
      ["upper-case", SHA.toUpperCase()],
      ["not hex", "g".repeat(64)],
      ["prefixed", `sha256:${SHA.slice(7)}`],
    ])("refuses a sha256 that is %s", (_case, sha256) => {
      expect(refused(`operator: { file: /o.yaml, sha256: "${sha256}" }`)).toBe("operator.sha256 must be 64 lower-case hex digits");
      expect(refused(`certManager: { url: https://a.example/c.yaml, sha256: "${sha256}" }`)).toBe("certManager.sha256 must be 64 lower-case hex digits");
    });

    it.each(['""', "123", "null"])("refuses a sha256 of %s as not a string", (sha256) => {
      expect(refused(`operator: { file: /o.yaml, sha256: ${sha256} }`)).toBe("operator.sha256 must be a non-empty string");
    });
  });

  describe("coreProvider", () => {
    it.each<[string, string, Record<string, unknown>]>([
      ["namespace", "coreProvider: { namespace: capi-core }", { ...DEFAULT_CORE, namespace: "capi-core" }],
      ["version", "coreProvider: { version: v1.15.0 }", { ...DEFAULT_CORE, version: "v1.15.0" }],
      ["pre-release version", "coreProvider: { version: v1.15.0-rc.1 }", { ...DEFAULT_CORE, version: "v1.15.0-rc.1" }],
      ["fetchConfig url", "coreProvider: { fetchConfig: { url: https://mirror.example/capi/releases } }", { ...DEFAULT_CORE, fetchConfig: { url: "https://mirror.example/capi/releases" } }],
      [
        "fetchConfig selector",
        "coreProvider: { fetchConfig: { selector: { matchLabels: { provider.cluster.x-k8s.io/name: cluster-api } } } }",
        { ...DEFAULT_CORE, fetchConfig: { selector: { matchLabels: { "provider.cluster.x-k8s.io/name": "cluster-api" } } } },
      ],
      ["configSecret with namespace", "coreProvider: { configSecret: { name: capi-vars, namespace: capi-system } }", { ...DEFAULT_CORE, configSecret: { name: "capi-vars", namespace: "capi-system" } }],
      ["configSecret without namespace", "coreProvider: { configSecret: { name: capi-vars } }", { ...DEFAULT_CORE, configSecret: { name: "capi-vars" } }],
    ])("overrides the %s and keeps the other defaults", (_case, text, coreProvider) => {
      expect(parseInitConfiguration(text)).toEqual({ operator: DEFAULT_INIT_CONFIGURATION.operator, coreProvider });
    });

    it("replaces the default manager as a whole, featureGates included", () => {
      const { coreProvider } = parseInitConfiguration("coreProvider: { manager: { verbosity: 5 } }");
      expect(coreProvider).toEqual({ namespace: "capi-system", version: "v1.14.2", manager: { verbosity: 5 } });
    });

    it("lets a manager turn the topology controller off", () => {
      const { coreProvider } = parseInitConfiguration("coreProvider: { manager: { featureGates: { ClusterTopology: false, MachinePool: true } } }");
      expect(coreProvider.manager).toEqual({ featureGates: { ClusterTopology: false, MachinePool: true } });
    });

    it("keeps the default manager when the file names none", () => {
      expect(parseInitConfiguration("coreProvider: { namespace: x }").coreProvider.manager).toEqual({ featureGates: { ClusterTopology: true } });
    });

    it.each<[string, string, string]>([
      ["version without v", "coreProvider: { version: 1.14.2 }", 'coreProvider.version: "1.14.2" is not a release such as v1.14.2'],
      ["minor version", "coreProvider: { version: v1.14 }", 'coreProvider.version: "v1.14" is not a release such as v1.14.2'],
      ["latest", "coreProvider: { version: latest }", 'coreProvider.version: "latest" is not a release such as v1.14.2'],
      ["numeric version", "coreProvider: { version: 1.14 }", "coreProvider.version must be a non-empty string"],
      ["empty version", 'coreProvider: { version: "" }', "coreProvider.version must be a non-empty string"],
      ["empty namespace", 'coreProvider: { namespace: "" }', "coreProvider.namespace must be a non-empty string"],
      ["list namespace", "coreProvider: { namespace: [a] }", "coreProvider.namespace must be a non-empty string"],
      ["coreProvider list", "coreProvider: [ { namespace: a } ]", "coreProvider must be a mapping"],
      ["coreProvider string", "coreProvider: capi-system", "coreProvider must be a mapping"],
      ["null coreProvider", "coreProvider: null", "coreProvider must be a mapping"],
      ["fetchConfig string", "coreProvider: { fetchConfig: https://mirror.example }", "coreProvider.fetchConfig must be a mapping"],
      ["fetchConfig null", "coreProvider: { fetchConfig: null }", "coreProvider.fetchConfig must be a mapping"],
      ["configSecret string", "coreProvider: { configSecret: capi-vars }", "coreProvider.configSecret must be a mapping"],
      ["configSecret without name", "coreProvider: { configSecret: { namespace: capi-system } }", "coreProvider.configSecret.name is required"],
      ["configSecret with an empty name", 'coreProvider: { configSecret: { name: "" } }', "coreProvider.configSecret.name must be a non-empty string"],
      ["configSecret with an empty namespace", 'coreProvider: { configSecret: { name: s, namespace: "" } }', "coreProvider.configSecret.namespace must be a non-empty string"],
      ["manager list", "coreProvider: { manager: [ verbosity ] }", "coreProvider.manager must be a mapping"],
      ["manager null", "coreProvider: { manager: null }", "coreProvider.manager must be a mapping"],
    ])("refuses a %s, naming the field", (_case, text, message) => {
      expect(refused(text)).toBe(message);
    });
  });

  it.each<[string, string]>([
    ["coreprovider: {}", "the configuration: unknown field coreprovider; expected operator, certManager, coreProvider"],
    ["operator: { file: /o.yaml }\ncertmanager: { file: /c.yaml }", "the configuration: unknown field certmanager; expected operator, certManager, coreProvider"],
    ["providers: []", "the configuration: unknown field providers; expected operator, certManager, coreProvider"],
  ])("refuses the unknown top-level field in %j", (text, message) => {
    expect(refused(text)).toBe(message);
  });

  it.each<[string, string]>([
    ["a list", "- operator"],
    ["a string", "operator"],
    ["a number", "42"],
  ])("refuses a document that is %s", (_case, text) => {
    expect(refused(text)).toBe("the configuration must be a mapping");
  });

  it.each<[string, string, RegExp]>([
    ["an unclosed flow sequence", "operator: [", /^not YAML: /],
    ["tab indentation", "operator:\n\tfile: /o.yaml", /^not YAML: .*Tabs/],
    ["a duplicate key", "operator: { file: /a.yaml }\noperator: { file: /b.yaml }", /^not YAML: Map keys must be unique/],
    ["two documents", "operator: { file: /a.yaml }\n---\ncertManager: { file: /c.yaml }", /^not YAML: Source contains multiple documents/],
  ])("refuses %s as not YAML", (_case, text, message) => {
    expect(refused(text)).toMatch(message);
  });
});

describe("parseInitConfiguration below the top level", () => {
  it.each<[string, string]>([
    ["operator: { url: https://example.com/o.yaml, sha265: abc }", "operator: unknown field sha265; expected url, file, configMap, sha256, existing"],
    ["certManager: { url: https://example.com/c.yaml, existing: {} }", "certManager: unknown field existing; expected url, file, configMap, sha256"],
    ["operator: { existing: { namespaces: [a] } }", "operator.existing: unknown field namespaces; expected namespace"],
    ["coreProvider: { verison: v1.14.2 }", "coreProvider: unknown field verison; expected namespace, version, fetchConfig, configSecret, manager"],
    ["operator: { configMap: { namespace: a, name: b, keys: c } }", "operator.configMap: unknown field keys; expected namespace, name, key"],
    ["coreProvider: { version: v1.2.3garbage }", 'coreProvider.version: "v1.2.3garbage" is not a release such as v1.14.2'],
  ])("refuses %j", (text, message) => {
    expect(refused(text)).toBe(message);
  });
});
