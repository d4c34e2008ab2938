#!/usr/bin/env node
// Generates TypeScript types for kcp's API objects from kcp's own CRDs into
// packages/kcp-ts/src/generated/.
//
//   node scripts/generate-kcp-types.mjs          write the files (only those that changed)
//   node scripts/generate-kcp-types.mjs --check  exit 1 if the committed files differ
//
// The kcp version is the one pinned in scripts/binaries/kcp/go.mod; the CRDs
// come from that module through `go mod download` (the Go module cache).
//
// Per CRD and served version, spec.versions[].schema.openAPIV3Schema is
// normalised and compiled with json-schema-to-typescript, by the code
// generate-api.mjs uses too (scripts/lib/crd-typescript.mjs).
// One file per group-version, plus resources.ts (group, version, kind, plural,
// scope of every generated kind, at runtime) and index.ts re-exporting all.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { parseAllDocuments } from "yaml";
import { cmp, compileTypes, namedParts, normalize, pascal, ROOT, runGenerator, UserError } from "./lib/crd-typescript.mjs";

const GO_MOD = join(ROOT, "scripts/binaries/kcp/go.mod");
const OUT_DIR = join(ROOT, "packages/kcp-ts/src/generated");
const MODULE = "github.com/kcp-dev/kcp";

/** CRD files below <module>/config/crds/. */
const CRD_FILES = [
  "apis.kcp.io_apiexports.yaml",
  "apis.kcp.io_apibindings.yaml",
  "apis.kcp.io_apiresourceschemas.yaml",
  "apis.kcp.io_apiexportendpointslices.yaml",
  "tenancy.kcp.io_workspaces.yaml",
  "tenancy.kcp.io_workspacetypes.yaml",
  "core.kcp.io_logicalclusters.yaml",
];

// ---------------------------------------------------------------- source

function kcpVersion() {
  let text;
  try {
    text = readFileSync(GO_MOD, "utf8");
  } catch (err) {
    throw new UserError(`cannot read ${relative(ROOT, GO_MOD)}: ${err.message}`);
  }
  let block; // the directive of the `( ... )` block we are in
  let version;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\/\/.*$/, "").trim();
    const opening = line.match(/^(\w+)\s*\($/);
    if (opening) {
      block = opening[1];
      continue;
    }
    if (line === ")") {
      block = undefined;
      continue;
    }
    const single = line.match(/^(\w+)\s+(.*)$/);
    const [directive, body] = block !== undefined ? [block, line] : single ? [single[1], single[2]] : [];
    const [path, ver] = (body ?? "").split(/\s+/);
    if (path !== MODULE) continue;
    if (directive === "replace") {
      throw new UserError(`${relative(ROOT, GO_MOD)} replaces ${MODULE}; the generator reads pinned releases only`);
    }
    if (directive === "require") version = ver;
  }
  if (!version) throw new UserError(`no "require ${MODULE} <version>" in ${relative(ROOT, GO_MOD)}`);
  return version;
}

function moduleDir(version) {
  let out;
  try {
    out = execFileSync("go", ["mod", "download", "-json", `${MODULE}@${version}`], {
      cwd: dirname(GO_MOD),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (err) {
    if (err.code === "ENOENT") throw new UserError("`go` is not on PATH; install Go to read kcp's CRDs from its module");
    let detail = String(err.stderr ?? "").trim();
    try {
      detail = JSON.parse(err.stdout).Error ?? detail;
    } catch {
      // not JSON: keep stderr
    }
    throw new UserError(`go mod download ${MODULE}@${version} failed: ${detail || err.message}`);
  }
  const info = JSON.parse(out);
  if (info.Error || !info.Dir) throw new UserError(`go mod download ${MODULE}@${version} failed: ${info.Error ?? "no Dir"}`);
  return info.Dir;
}

function readCrd(file) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new UserError(`cannot read CRD ${file}: ${err.message}`);
  }
  const docs = parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new UserError(`${file}: ${doc.errors[0].message}`);
      return doc.toJS();
    })
    .filter((doc) => doc !== null && doc !== undefined);
  if (docs.length !== 1 || docs[0].kind !== "CustomResourceDefinition") {
    throw new UserError(`${file}: expected exactly one CustomResourceDefinition`);
  }
  return docs[0];
}

// ---------------------------------------------------------------- schemas

/**
 * Names the root, spec, status, and the object types (or array item object
 * types) directly below spec and status: `APIBindingV1alpha2`,
 * `APIBindingV1alpha2Spec`, `APIBindingV1alpha2PermissionClaim` (the items of
 * spec.permissionClaims). A name taken twice gets its part in front
 * (`...StatusX`); anything still ambiguous stops the generator.
 */
function nameTypes(root, typeName) {
  const used = new Set([typeName]);
  root.title = typeName;
  for (const { schema, part, field } of namedParts(root)) {
    const name = `${typeName}${field ?? part}`;
    const chosen = used.has(name) && field !== undefined ? `${typeName}${part}${field}` : name;
    if (used.has(chosen)) throw new UserError(`type name ${name} is ambiguous; extend nameTypes`);
    used.add(chosen);
    schema.title = chosen;
  }
}

function objectSchema(crd, version) {
  const { group, names } = crd.spec;
  const where = `${names.kind} ${version.name}`;
  const source = version.schema?.openAPIV3Schema;
  if (source?.properties === undefined) throw new UserError(`${where}: no openAPIV3Schema properties`);
  const schema = normalize(source, where, { intOrString: "number | string" });
  const apiVersion = group === "" ? version.name : `${group}/${version.name}`;
  const metadataNote = metadataConstraints(source.properties.metadata);
  schema.properties.apiVersion = { ...schema.properties.apiVersion, type: "string", enum: [apiVersion] };
  schema.properties.kind = { ...schema.properties.kind, type: "string", enum: [names.kind] };
  schema.properties.metadata = {
    description: ["Standard object metadata.", metadataNote].filter(Boolean).join(" "),
    tsType: "ObjectMeta",
  };
  schema.required = [...new Set(["apiVersion", "kind", "metadata", ...(schema.required ?? [])])];
  nameTypes(schema, `${names.kind}${pascal(version.name)}`);
  return schema;
}

/** What the CRD says about metadata beyond ObjectMeta (kcp patches name rules in). */
function metadataConstraints(metadata) {
  const name = metadata?.properties?.name;
  if (name === undefined) return "";
  const rules = [];
  if (name.enum) rules.push(name.enum.map((v) => `\`${v}\``).join(" or "));
  if (name.minLength !== undefined || name.maxLength !== undefined) {
    rules.push(`${name.minLength ?? 0} to ${name.maxLength ?? "any number of"} characters`);
  }
  if (name.pattern) rules.push(`matching \`${name.pattern}\``);
  if (name.not?.enum) rules.push(`not ${name.not.enum.map((v) => `\`${v}\``).join(" or ")}`);
  if (rules.length === 0) return "";
  const last = rules.pop();
  return `The CRD requires \`name\` to be ${rules.length > 0 ? `${rules.join(", ")} and ${last}` : last}.`;
}

function titles(schema, found = []) {
  if (schema === null || typeof schema !== "object") return found;
  if (typeof schema.title === "string") found.push(schema.title);
  for (const value of Object.values(schema)) titles(value, found);
  return found;
}

/**
 * json-schema-to-typescript capitalises letters after digits in type names
 * (`V1alpha2` becomes `V1Alpha2`); put back the names we chose, which follow
 * Kubernetes' spelling of versions.
 */
function restoreNames(code, names, where) {
  let result = code;
  for (const name of names) {
    const mangled = name.replace(/\d+[a-zA-Z]/g, (m) => m.toUpperCase());
    result = result.replace(new RegExp(`\\b${mangled}\\b`, "g"), name);
    if (!result.includes(`export type ${name} = `)) throw new UserError(`${where}: type ${name} missing from generator output`);
  }
  return result;
}

// ---------------------------------------------------------------- output

const header = (version) =>
  `// Generated by scripts/generate-kcp-types.mjs from kcp ${version} — do not edit.\n` +
  `// Regenerate with: node scripts/generate-kcp-types.mjs\n`;

async function generate() {
  const version = kcpVersion();
  const crdDir = join(moduleDir(version), "config", "crds");

  const entries = [];
  for (const file of CRD_FILES) {
    const crd = readCrd(join(crdDir, file));
    const { group, names, scope } = crd.spec;
    for (const v of crd.spec.versions) {
      if (!v.served) continue;
      entries.push({
        group,
        version: v.name,
        kind: names.kind,
        plural: names.plural,
        namespaced: scope === "Namespaced",
        storage: v.storage === true,
        file,
        schema: objectSchema(crd, v),
      });
    }
  }
  entries.sort((a, b) =>
    a.group !== b.group ? cmp(a.group, b.group) : a.version !== b.version ? cmp(a.version, b.version) : cmp(a.kind, b.kind),
  );

  const files = new Map();
  for (const entry of entries) {
    const name = `${entry.group || "core"}-${entry.version}.ts`;
    const where = `${entry.kind} ${entry.version}`;
    const code = restoreNames(await compileTypes(entry.schema, where), titles(entry.schema), where);
    const sources = files.get(name) ?? [];
    sources.push(`// ${entry.kind} ${entry.version}, from config/crds/${entry.file}\n\n${code.trim()}\n`);
    files.set(name, sources);
  }

  const output = new Map();
  for (const [name, parts] of files) {
    output.set(name, `${header(version)}\nimport type { ObjectMeta } from "../rest-client.js";\n\n${parts.join("\n")}`);
  }

  const rows = entries.map(
    ({ group, version: v, kind, plural, namespaced, storage }) =>
      `  { group: ${JSON.stringify(group)}, version: ${JSON.stringify(v)}, kind: ${JSON.stringify(kind)}, ` +
      `plural: ${JSON.stringify(plural)}, namespaced: ${namespaced}, storage: ${storage} },`,
  );
  output.set(
    "resources.ts",
    `${header(version)}\n` +
      `/** Every generated kind and served version, as kcp's CRDs declare them. \`storage\`: the version kcp stores. */\n` +
      `export const KCP_CRD_VERSIONS = [\n${rows.join("\n")}\n] as const;\n\n` +
      `/** The kcp version the types were generated from. */\n` +
      `export const KCP_VERSION = ${JSON.stringify(version)};\n`,
  );

  const modules = [...output.keys()].sort(cmp).map((name) => `export * from "./${name.replace(/\.ts$/, ".js")}";`);
  output.set("index.ts", `${header(version)}\n${modules.join("\n")}\n`);
  return {
    targets: [{ dir: OUT_DIR, output: new Map([...output].sort(([a], [b]) => cmp(a, b))) }],
    outOfDate: `kcp types are out of date with kcp ${version}`,
    logPrefix: `kcp ${version}: `,
  };
}

runGenerator("generate-kcp-types", generate);
