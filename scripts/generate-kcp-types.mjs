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
// normalised (see `normalize`) and compiled with json-schema-to-typescript.
// One file per group-version, plus resources.ts (group, version, kind, plural,
// scope of every generated kind, at runtime) and index.ts re-exporting all.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";
import { parseAllDocuments } from "yaml";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const GO_MOD = join(ROOT, "scripts/binaries/kcp/go.mod");
const OUT_DIR = join(ROOT, "packages/kcp-ts/src/generated");
const MODULE = "github.com/kcp-dev/kcp";
const REGENERATE = "run node scripts/generate-kcp-types.mjs";

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

/** Schema keywords json-schema-to-typescript gets to see; the rest is validation only. */
const KEPT_KEYWORDS = ["type", "description", "enum", "required"];

const COMPILE_OPTIONS = {
  bannerComment: "",
  additionalProperties: false,
  // Index signatures (label maps and the like) read as `T`; with
  // noUncheckedIndexedAccess reads are `T | undefined` anyway, and `T`
  // keeps them assignable to Record<string, T>.
  strictIndexSignatures: false,
  ignoreMinAndMaxItems: true,
  unknownAny: true,
  declareExternallyReferenced: true,
  format: true,
  style: {
    bracketSpacing: true,
    printWidth: 120,
    semi: true,
    singleQuote: false,
    tabWidth: 2,
    trailingComma: "all",
    useTabs: false,
  },
};

class UserError extends Error {}

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
 * Reduces a structural schema to what json-schema-to-typescript should type,
 * folding Kubernetes extensions into types:
 * - x-kubernetes-int-or-string: `number | string`;
 * - x-kubernetes-preserve-unknown-fields (and embedded resources): an open
 *   object (`[k: string]: unknown` next to any declared properties), or
 *   `unknown` when no type is declared;
 * - objects without properties: `Record<string, never>` (Go's empty structs;
 *   `{}` would mean "anything but null");
 * - `nullable`: `| null`;
 * - `oneOf`/`anyOf` whose branches only list required fields (kcp's "exactly
 *   one of"): dropped from the type, stated in the doc comment;
 * - `default`: stated in the doc comment; `not`, patterns, lengths, formats,
 *   CEL rules: validation only, dropped.
 */
function normalize(schema, where) {
  if (schema === null || typeof schema !== "object") throw new UserError(`${where}: schema is not an object`);
  const out = {};
  for (const key of KEPT_KEYWORDS) if (schema[key] !== undefined) out[key] = JSON.parse(JSON.stringify(schema[key]));
  const notes = [];

  for (const keyword of ["oneOf", "anyOf"]) {
    const branches = schema[keyword];
    if (branches === undefined) continue;
    if (branches.every((b) => Object.keys(b).every((k) => k === "required"))) {
      const sets = branches.map((b) => b.required.map((f) => `\`${f}\``).join(" and "));
      notes.push(
        sets.length === 1
          ? `${sets[0]} must be set.`
          : `${keyword === "oneOf" ? "Exactly" : "At least"} one of ${sets.join(", ")} must be set.`,
      );
    } else {
      out[keyword] = branches.map((b, i) => normalize({ ...b }, `${where}.${keyword}[${i}]`));
    }
  }
  if (schema.allOf !== undefined) out.allOf = schema.allOf.map((b, i) => normalize(b, `${where}.allOf[${i}]`));

  if (schema.default !== undefined) notes.push(`@default ${JSON.stringify(schema.default)}`);
  if (notes.length > 0) out.description = [schema.description, ...notes].filter(Boolean).join("\n\n");

  const preserve =
    schema["x-kubernetes-preserve-unknown-fields"] === true || schema["x-kubernetes-embedded-resource"] === true;

  if (schema["x-kubernetes-int-or-string"] === true) {
    // Usually written as anyOf integer/string as well: the tsType says it all.
    for (const key of ["type", "enum", "oneOf", "anyOf", "allOf"]) delete out[key];
    out.tsType = "number | string";
  } else if (schema.type === "array") {
    out.items = schema.items === undefined ? {} : normalize(schema.items, `${where}[]`);
    if (schema.items === undefined) out.items.tsType = "unknown";
  } else if (schema.type === "object" || (schema.type === undefined && schema.properties !== undefined)) {
    out.type = "object";
    if (schema.properties !== undefined) {
      out.properties = {};
      for (const [name, prop] of Object.entries(schema.properties)) {
        out.properties[name] = normalize(prop, `${where}.${name}`);
      }
    }
    if (typeof schema.additionalProperties === "object") {
      out.additionalProperties = normalize(schema.additionalProperties, `${where}.*`);
    } else if (preserve || schema.additionalProperties === true) {
      out.additionalProperties = true;
    } else if (schema.properties === undefined) {
      out.tsType = "Record<string, never>";
    }
  } else if (schema.type === undefined && preserve) {
    out.tsType = "unknown";
  } else if (schema.type === undefined && out.oneOf === undefined && out.anyOf === undefined && out.allOf === undefined) {
    out.tsType = "unknown";
  }

  if (schema.nullable === true) {
    const description = out.description;
    delete out.description;
    return { ...(description === undefined ? {} : { description }), anyOf: [out, { type: "null" }] };
  }
  return out;
}

const pascal = (name) => name.charAt(0).toUpperCase() + name.slice(1);
const singular = (name) =>
  name.endsWith("ies")
    ? name.slice(0, -3) + "y"
    : /(ss|x|ch|sh)es$/.test(name)
      ? name.slice(0, -2)
      : name.endsWith("s") && !name.endsWith("ss")
        ? name.slice(0, -1)
        : name;

/**
 * Names the root, spec, status, and the object types (or array item object
 * types) directly below spec and status: `APIBindingV1alpha2`,
 * `APIBindingV1alpha2Spec`, `APIBindingV1alpha2PermissionClaim` (the items of
 * spec.permissionClaims). A name taken twice gets its part in front
 * (`...StatusX`); anything still ambiguous stops the generator.
 */
function nameTypes(root, typeName) {
  const used = new Set([typeName]);
  const claim = (schema, name, fallback) => {
    const chosen = used.has(name) ? fallback : name;
    if (chosen === undefined || used.has(chosen)) throw new UserError(`type name ${name} is ambiguous; extend nameTypes`);
    used.add(chosen);
    schema.title = chosen;
  };
  root.title = typeName;
  const parts = ["spec", "status"].filter((p) => root.properties?.[p]?.properties !== undefined);
  for (const part of parts) claim(root.properties[part], `${typeName}${pascal(part)}`);
  for (const part of parts) {
    for (const [field, prop] of Object.entries(root.properties[part].properties)) {
      const isArray = prop.type === "array";
      const target = isArray ? prop.items : prop;
      if (target?.properties === undefined || target.tsType !== undefined) continue;
      const base = pascal(isArray ? singular(field) : field);
      claim(target, `${typeName}${base}`, `${typeName}${pascal(part)}${base}`);
    }
  }
}

function objectSchema(crd, version) {
  const { group, names } = crd.spec;
  const where = `${names.kind} ${version.name}`;
  const source = version.schema?.openAPIV3Schema;
  if (source?.properties === undefined) throw new UserError(`${where}: no openAPIV3Schema properties`);
  const schema = normalize(source, where);
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

/** json-schema-to-typescript declares interfaces; type aliases are assignable to KubeObject's index signature. */
function interfacesToTypes(code, where) {
  const lines = code.split("\n");
  let open = false;
  const out = lines.map((line) => {
    const start = line.match(/^export interface (\w+) \{$/);
    if (start) {
      open = true;
      return `export type ${start[1]} = {`;
    }
    if (open && line === "}") {
      open = false;
      return "};\n";
    }
    return line;
  });
  const result = out.join("\n");
  if (open || /^export interface /m.test(result)) throw new UserError(`${where}: unexpected generator output`);
  return result;
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
    const compiled = await compile(entry.schema, entry.schema.title, COMPILE_OPTIONS);
    const code = restoreNames(interfacesToTypes(compiled, where), titles(entry.schema), where);
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
  return { version, output: new Map([...output].sort(([a], [b]) => cmp(a, b))) };
}

const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

function committedFiles() {
  if (!existsSync(OUT_DIR)) return new Map();
  const files = new Map();
  for (const name of readdirSync(OUT_DIR).sort(cmp)) {
    const path = join(OUT_DIR, name);
    if (statSync(path).isFile()) files.set(name, readFileSync(path, "utf8"));
  }
  return files;
}

async function main() {
  const args = process.argv.slice(2);
  const check = args.includes("--check");
  const unknown = args.filter((a) => a !== "--check");
  if (unknown.length > 0) throw new UserError(`unknown argument ${unknown[0]}; usage: generate-kcp-types.mjs [--check]`);

  const { version, output } = await generate();
  const committed = committedFiles();
  const rel = (name) => relative(ROOT, join(OUT_DIR, name));
  const changed = [...output].filter(([n, text]) => committed.has(n) && committed.get(n) !== text).map(([n]) => n);
  const missing = [...output.keys()].filter((n) => !committed.has(n));
  const extra = [...committed.keys()].filter((n) => !output.has(n));

  if (check) {
    if (changed.length + missing.length + extra.length === 0) return 0;
    const lines = [
      ...changed.map((n) => `  changed: ${rel(n)}`),
      ...missing.map((n) => `  missing: ${rel(n)}`),
      ...extra.map((n) => `  extra:   ${rel(n)}`),
    ];
    console.error(`kcp types are out of date with kcp ${version}:\n${lines.join("\n")}\nTo fix: ${REGENERATE}`);
    return 1;
  }

  mkdirSync(OUT_DIR, { recursive: true });
  for (const name of [...changed, ...missing]) writeFileSync(join(OUT_DIR, name), output.get(name));
  for (const name of extra) rmSync(join(OUT_DIR, name));
  const touched = changed.length + missing.length + extra.length;
  if (touched > 0) {
    console.log(`kcp ${version}: ${touched} file(s) updated in ${relative(ROOT, OUT_DIR)}`);
  }
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    if (err instanceof UserError) {
      console.error(`generate-kcp-types: ${err.message}`);
    } else {
      console.error(err);
      console.error(`generate-kcp-types failed unexpectedly; fix the cause, then ${REGENERATE}`);
    }
    process.exitCode = 2;
  },
);
