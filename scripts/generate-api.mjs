#!/usr/bin/env node
// Generates, from our CRDs in packages/api/crds/ (the source of truth):
// - packages/api/src/generated/: TypeScript types of platform.edgeconnect.eu
//   and resources.ts (group, version, kind, plural, scope of every kind, the
//   export's name and permission claims, at runtime);
// - apiexports/platform.edgeconnect.eu/: an APIResourceSchema per exported
//   kind, the APIExport, the WorkspaceType whose workspaces bind it, and the
//   ProviderMachineFlavor CRD (the catalogue, applied in the provider
//   workspace and not exported).
//
//   node scripts/generate-api.mjs          write the files (only those that changed)
//   node scripts/generate-api.mjs --check  exit 1 if the committed files differ
//
// An APIResourceSchema's spec is immutable in kcp, so its name carries a hash
// of the spec: `v<YYMMDD>-<sha256 of the spec, 8 hex>.<plural>.<group>`. A
// schema whose hash is unchanged keeps the name (and date) it has on disk;
// only a changed schema gets a new name, dated today.
//
// Types come from the normalisation and compiler settings generate-kcp-types.mjs
// uses too (scripts/lib/crd-typescript.mjs), with the names our contract
// fixes: `KubernetesCluster`, `KubernetesClusterSpec`, one shared `Condition`,
// and every root field optional.
import { createHash } from "node:crypto";
import { join, relative } from "node:path";
import { parse, stringify } from "yaml";
import {
  checkTypeNames,
  clone,
  cmp,
  committedFiles,
  compileTypes,
  namedParts,
  normalize,
  readYaml,
  ROOT,
  runGenerator,
  UserError,
} from "./lib/crd-typescript.mjs";

const CRD_DIR = join(ROOT, "packages/api/crds");
const TYPES_DIR = join(ROOT, "packages/api/src/generated");
const EXPORT_DIR = join(ROOT, "apiexports/platform.edgeconnect.eu");

const GROUP = "platform.edgeconnect.eu";
const API_EXPORT_NAME = GROUP;
const WORKSPACE_TYPE_NAME = "edgeconnect-tenant";

/** CRD files and whether tenants get the kind through the APIExport. */
const CRDS = [
  { file: "platform.edgeconnect.eu_kubernetesclusters.yaml", exported: true },
  { file: "platform.edgeconnect.eu_providerconfigs.yaml", exported: true },
  { file: "platform.edgeconnect.eu_machinecapabilities.yaml", exported: true },
  { file: "platform.edgeconnect.eu_providermachineflavors.yaml", exported: false },
];

/**
 * Core resources the provider controller works on in tenant workspaces.
 * Secrets: it reads the credentials a ProviderConfig names and writes the
 * kubeconfig Secret. Events: the runtime's EventRecorder creates Events and
 * patches them to count repeats (packages/runtime/src/events/event-recorder.ts).
 */
/**
 * The label a tenant puts on a Secret to let the platform see it (its
 * credentials Secrets; the kubeconfig Secrets we write carry it too): the
 * Secrets claim selects only labelled ones, so a tenant's other Secrets never
 * reach the controller's caches.
 */
const SECRET_LABEL = { key: `${GROUP}/visible-to-platform`, value: "true" };

const PERMISSION_CLAIMS = [
  { group: "", resource: "secrets", verbs: ["get", "list", "watch", "create", "patch", "delete"], defaultSelector: { matchLabels: { [SECRET_LABEL.key]: SECRET_LABEL.value } } },
  { group: "", resource: "events", verbs: ["create", "patch"] },
];

/** Version fields an APIResourceSchema takes over from the CRD (kcp's apiresourceschemas CRD). */
const SCHEMA_VERSION_FIELDS = ["name", "served", "storage", "deprecated", "deprecationWarning", "subresources", "additionalPrinterColumns"];

/** JSON with sorted keys: what the schema hash is taken of. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort(cmp);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

// ---------------------------------------------------------------- source

function readCrd({ file, exported }) {
  const path = join(CRD_DIR, file);
  const { text, docs } = readYaml(path, "CRD", relative(ROOT, path));
  const where = `packages/api/crds/${file}`;
  if (docs.length !== 1 || docs[0].kind !== "CustomResourceDefinition" || docs[0].apiVersion !== "apiextensions.k8s.io/v1") {
    throw new UserError(`${where}: expected exactly one apiextensions.k8s.io/v1 CustomResourceDefinition`);
  }
  const crd = docs[0];
  const { group, names, scope, versions } = crd.spec ?? {};
  if (group !== GROUP) throw new UserError(`${where}: group ${group}, expected ${GROUP}`);
  if (crd.metadata?.name !== `${names?.plural}.${group}`) throw new UserError(`${where}: metadata.name must be ${names?.plural}.${group}`);
  if (file !== `${group}_${names.plural}.yaml`) throw new UserError(`${where}: file must be named ${group}_${names.plural}.yaml`);
  if (versions?.length !== 1 || versions[0].served !== true || versions[0].storage !== true) {
    // More versions need a conversion strategy in the CRD and the APIResourceSchema; add it here first.
    throw new UserError(`${where}: expected exactly one served storage version`);
  }
  const version = versions[0];
  if (version.schema?.openAPIV3Schema?.properties === undefined) throw new UserError(`${where}: no openAPIV3Schema properties`);
  for (const key of Object.keys(version)) {
    if (key !== "schema" && !SCHEMA_VERSION_FIELDS.includes(key)) {
      throw new UserError(`${where}: versions[].${key} has no counterpart in an APIResourceSchema`);
    }
  }
  return { file, where, text, group, names, scope, version, exported };
}

// ---------------------------------------------------------------- types

/**
 * Refuses the schema constructs our CRDs do not use yet. normalize types them
 * for kcp's CRDs, some only loosely (`unknown`, open objects, "one of" rules
 * in doc comments only); our types are the contract clients program against,
 * so using one should be a decision taken with the resulting types in view,
 * not a side effect of a CRD change: drop its check here when it is taken.
 */
function rejectUnreviewed(schema, where) {
  if (schema === null || typeof schema !== "object") throw new UserError(`${where}: schema is not an object`);
  for (const keyword of ["oneOf", "allOf", "not", "additionalProperties", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource"]) {
    if (schema[keyword] !== undefined) throw new UserError(`${where}: ${keyword} is not supported by the generator`);
  }
  if (schema["x-kubernetes-int-or-string"] === true) return;
  if (schema.anyOf !== undefined) {
    throw new UserError(`${where}: anyOf is only supported for x-kubernetes-int-or-string`);
  } else if (schema.type === "array") {
    if (schema.items === undefined) throw new UserError(`${where}: array without items`);
    rejectUnreviewed(schema.items, `${where}[]`);
  } else if (schema.type === "object") {
    for (const [name, prop] of Object.entries(schema.properties ?? {})) rejectUnreviewed(prop, `${where}.${name}`);
  } else if (schema.type === undefined) {
    throw new UserError(`${where}: no type`);
  }
}

/**
 * Every `conditions` list must hold metav1.Condition, the same schema in each
 * CRD: they all type as the one `Condition`.
 */
function extractConditions(schema, where, shared) {
  for (const part of ["spec", "status"]) {
    const conditions = schema.properties?.[part]?.properties?.conditions;
    if (conditions === undefined) continue;
    const items = conditions.items;
    const key = canonical(items);
    if (shared.schema === undefined) {
      shared.schema = items;
      shared.key = key;
      shared.from = where;
    } else if (shared.key !== key) {
      throw new UserError(`${where}: ${part}.conditions items differ from those of ${shared.from}; keep metav1.Condition identical`);
    }
    conditions.items = { tsType: "Condition" };
  }
}

/**
 * Names the root (`KubernetesCluster`), spec and status (`...Spec`,
 * `...Status`), and the object types (or array item types) right below them
 * (`KubernetesClusterProviderRef`, `KubernetesClusterFlavor`); deeper objects
 * stay inline.
 */
function nameTypes(root, kind) {
  const used = new Set([kind, "Condition", "ObjectMeta"]);
  root.title = kind;
  for (const { schema, part, field } of namedParts(root)) {
    const name = `${kind}${field ?? part}`;
    if (used.has(name)) throw new UserError(`type name ${name} is taken twice; extend nameTypes`);
    used.add(name);
    schema.title = name;
  }
  return [...used].filter((n) => n !== "Condition" && n !== "ObjectMeta");
}

function objectSchema(source, conditions) {
  const { group, names, version, where } = source;
  const crdSchema = source.version.schema.openAPIV3Schema;
  rejectUnreviewed(crdSchema, where);
  const schema = normalize(crdSchema, where, { intOrString: "string | number" });
  const required = schema.required ?? [];
  schema.description = [
    schema.description,
    required.length > 0
      ? `The API server requires ${required.map((f) => `\`${f}\``).join(" and ")}; the type leaves every field optional so that ` +
        "partial objects (status updates, patches) type-check too."
      : undefined,
  ]
    .filter(Boolean)
    .join("\n\n");
  delete schema.required;
  // Plain strings, not literals: objects of these types then stand where a
  // client's KubeObject (apiVersion?: string) is expected, handlers included.
  schema.properties.apiVersion = { type: "string", description: `\`${group}/${version.name}\`.` };
  schema.properties.kind = { type: "string", description: `\`${names.kind}\`.` };
  schema.properties.metadata = { description: "Standard object metadata.", tsType: "ObjectMeta" };
  extractConditions(schema, where, conditions);
  const typeNames = nameTypes(schema, names.kind);
  return { schema, typeNames };
}

async function typesFile(sources) {
  const conditions = {};
  const parts = [];
  for (const source of sources) {
    const { schema, typeNames } = objectSchema(source, conditions);
    const code = await compileTypes(schema, source.where);
    parts.push(`// ${source.names.kind}, from packages/api/crds/${source.file}\n\n${checkTypeNames(code, typeNames, source.where).trim()}\n`);
  }
  if (conditions.schema === undefined) throw new UserError("no CRD has status.conditions; Condition cannot be generated");
  const conditionSchema = { ...conditions.schema, title: "Condition" };
  const condition = checkTypeNames(await compileTypes(conditionSchema, "Condition"), ["Condition"], "Condition");
  return (
    `${tsHeader}\nimport type { ObjectMeta } from "../object-meta.js";\n\n` +
    `// metav1.Condition, the item of every conditions list\n\n${condition.trim()}\n\n${parts.join("\n")}`
  );
}

const constantName = (kind) => `${kind.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()}_RESOURCE`;

function resourcesFile(sources) {
  const [{ version }] = sources;
  const consts = sources.map(({ group, names, scope, version: v, exported }) => {
    const fields = {
      group,
      version: v.name,
      apiVersion: `${group}/${v.name}`,
      kind: names.kind,
      listKind: names.listKind,
      plural: names.plural,
      singular: names.singular,
      scope,
      exported,
    };
    const body = Object.entries(fields)
      .map(([k, value]) => `  ${k}: ${JSON.stringify(value)},`)
      .join("\n");
    return `/** ${names.kind}: ${exported ? "exported to tenants" : "provider workspace only, not exported"}. */\nexport const ${constantName(names.kind)} = {\n${body}\n} as const satisfies PlatformResource;\n`;
  });
  const claims = PERMISSION_CLAIMS.map(
    (c) =>
      `  { group: ${JSON.stringify(c.group)}, resource: ${JSON.stringify(c.resource)}, verbs: [${c.verbs.map((v) => JSON.stringify(v)).join(", ")}]` +
      `${c.defaultSelector === undefined ? "" : `, defaultSelector: { matchLabels: { ${Object.entries(c.defaultSelector.matchLabels).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(", ")} } }`} },`,
  );
  return (
    `${tsHeader}\nimport type { PlatformResource } from "../resource-paths.js";\n\n` +
    `/** The API group of every kind of this package. */\nexport const PLATFORM_GROUP = ${JSON.stringify(GROUP)};\n\n` +
    `/** The version of every kind of this package. */\nexport const PLATFORM_VERSION = ${JSON.stringify(version.name)};\n\n` +
    `/** \`apiVersion\` of every object of this package. */\nexport const PLATFORM_API_VERSION = ${JSON.stringify(`${GROUP}/${version.name}`)};\n\n` +
    `/** The APIExport in the provider workspace; kcp names its APIExportEndpointSlice the same. */\n` +
    `export const API_EXPORT_NAME = ${JSON.stringify(API_EXPORT_NAME)};\n\n` +
    `/** The WorkspaceType, in the provider workspace, whose workspaces bind the export on creation. */\n` +
    `export const TENANT_WORKSPACE_TYPE = ${JSON.stringify(WORKSPACE_TYPE_NAME)};\n\n` +
    `/**\n * The label that lets the platform see a tenant's Secret: the Secrets claim selects only\n` +
    ` * Secrets carrying it (a workspace's default binding accepts it so), and the controller\n` +
    ` * watches only those.\n */\n` +
    `export const SECRET_LABEL = { key: ${JSON.stringify(SECRET_LABEL.key)}, value: ${JSON.stringify(SECRET_LABEL.value)} } as const;\n\n` +
    `/**\n * The APIExport's claims on core resources. A binding accepts a claim with exactly\n` +
    ` * these verbs: kcp intersects the two lists literally.\n */\n` +
    `export const PERMISSION_CLAIMS = [\n${claims.join("\n")}\n] as const;\n\n` +
    `${consts.join("\n")}\n` +
    `/** Every kind, exported or not. */\nexport const PLATFORM_RESOURCES = [\n${sources.map((s) => `  ${constantName(s.names.kind)},\n`).join("")}] as const;\n`
  );
}

const tsHeader =
  "// Generated by scripts/generate-api.mjs from packages/api/crds/ — do not edit.\n" +
  "// Regenerate with: node scripts/generate-api.mjs\n";

// ---------------------------------------------------------------- kcp objects

const yamlHeader = (what) =>
  `# Generated by scripts/generate-api.mjs from packages/api/crds/ — do not edit.\n` +
  `# Regenerate with: node scripts/generate-api.mjs\n${what.map((line) => `# ${line}\n`).join("")}`;

const toYaml = (obj) => stringify(obj, { lineWidth: 0 });

function yymmdd(date) {
  return date.toISOString().slice(2, 10).replaceAll("-", "");
}

/** The name the schema has on disk when its hash still matches, else a new one dated today. */
function schemaName(hash, plural, committed) {
  const suffix = `.${plural}.${GROUP}`;
  if (committed !== undefined) {
    let name;
    try {
      name = parse(committed)?.metadata?.name;
    } catch {
      // unreadable: replaced below
    }
    const match = typeof name === "string" ? name.match(/^v(\d{6})-([0-9a-f]{8})\./) : null;
    if (match && match[2] === hash && name.endsWith(suffix)) return name;
  }
  return `v${yymmdd(new Date())}-${hash}${suffix}`;
}

function apiResourceSchema(source, committed) {
  const { group, names, scope, version } = source;
  const v = {};
  for (const key of SCHEMA_VERSION_FIELDS) if (version[key] !== undefined) v[key] = clone(version[key]);
  v.schema = clone(version.schema.openAPIV3Schema);
  const spec = { group, names: clone(names), scope, versions: [v] };
  const hash = createHash("sha256").update(canonical(spec)).digest("hex").slice(0, 8);
  const name = schemaName(hash, names.plural, committed);
  const text =
    yamlHeader([
      `${names.kind} for tenants, served through the APIExport ${API_EXPORT_NAME}. kcp never lets a schema's`,
      "spec change, so the name carries a hash of it: a changed CRD gives a new schema, and the export moves to it.",
    ]) + toYaml({ apiVersion: "apis.kcp.io/v1alpha1", kind: "APIResourceSchema", metadata: { name }, spec });
  return { name, text };
}

function apiExport(schemas) {
  return (
    yamlHeader([
      "Apply in the provider workspace, with the APIResourceSchemas. Tenants accept the permission claims",
      "with exactly these verbs (kcp intersects the lists literally); the WorkspaceType's bindings do that.",
    ]) +
    toYaml({
      apiVersion: "apis.kcp.io/v1alpha2",
      kind: "APIExport",
      metadata: { name: API_EXPORT_NAME },
      spec: {
        resources: schemas.map(({ plural, name }) => ({ group: GROUP, name: plural, schema: name, storage: { crd: {} } })),
        permissionClaims: PERMISSION_CLAIMS.map(clone),
      },
    })
  );
}

function workspaceType() {
  return (
    yamlHeader([
      "Apply in the provider workspace, next to the APIExport. Workspaces created with",
      `type {name: ${WORKSPACE_TYPE_NAME}, path: <provider workspace path>} get an APIBinding to the export,`,
      "with every permission claim accepted. The binding names no path, which kcp resolves to this",
      "type's own workspace: the file works in whichever workspace it is applied to.",
    ]) +
    toYaml({
      apiVersion: "tenancy.kcp.io/v1alpha1",
      kind: "WorkspaceType",
      metadata: { name: WORKSPACE_TYPE_NAME },
      spec: {
        extend: { with: [{ name: "universal", path: "root" }] },
        defaultAPIBindings: [{ export: API_EXPORT_NAME }],
      },
    })
  );
}

function catalogueCrd(source) {
  const body = source.text.replace(/^(#.*\n)+/, "");
  return (
    yamlHeader([
      `A copy of packages/api/crds/${source.file}. Apply in the provider workspace: the flavor`,
      "catalogue belongs to the platform team and is not exported (see apiexports/README.md).",
    ]) + body
  );
}

// ---------------------------------------------------------------- output

async function generate() {
  const sources = CRDS.map(readCrd);
  const committedExport = committedFiles(EXPORT_DIR);

  const types = new Map([
    [`${GROUP}-${sources[0].version.name}.ts`, await typesFile(sources)],
    ["resources.ts", resourcesFile(sources)],
  ]);

  const exportFiles = new Map();
  const notes = new Map();
  const schemas = [];
  for (const source of sources.filter((s) => s.exported)) {
    const file = `apiresourceschema-${source.names.plural}.${GROUP}.yaml`;
    const committed = committedExport.get(file);
    const { name, text } = apiResourceSchema(source, committed);
    exportFiles.set(file, text);
    if (committed !== undefined && !committed.includes(`name: ${name}\n`)) notes.set(file, `schema changed, new name ${name}`);
    schemas.push({ plural: source.names.plural, name });
  }
  exportFiles.set(`apiexport-${GROUP}.yaml`, apiExport(schemas));
  exportFiles.set(`workspacetype-${WORKSPACE_TYPE_NAME}.yaml`, workspaceType());
  for (const source of sources.filter((s) => !s.exported)) exportFiles.set(`${source.names.plural}.crd.yaml`, catalogueCrd(source));

  return {
    targets: [
      { dir: TYPES_DIR, output: types },
      { dir: EXPORT_DIR, output: exportFiles, notes },
    ],
    outOfDate: "generated API files are out of date with packages/api/crds/",
  };
}

runGenerator("generate-api", generate);
