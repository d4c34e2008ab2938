// What scripts/generate-kcp-types.mjs (kcp's CRDs) and scripts/generate-api.mjs
// (ours) have in common: reading the CRD files, turning a CRD version's
// structural schema into TypeScript with json-schema-to-typescript, checking
// that the types came out under the names chosen, and the command line that
// writes the generated files or, with --check, reports where the committed
// ones differ. One copy, so that kcp's types and ours come out of the same
// normalisation and compiler settings, and a fix to either reaches both. Where
// the CRDs come from, what the types are called and how the root object is
// typed stay in each script.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";
import { parseAllDocuments } from "yaml";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** A problem the person running the generator can fix: reported as a message, not a stack trace. */
export class UserError extends Error {}

export const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
export const clone = (value) => JSON.parse(JSON.stringify(value));
export const pascal = (name) => name.charAt(0).toUpperCase() + name.slice(1);
const singular = (name) =>
  name.endsWith("ies")
    ? name.slice(0, -3) + "y"
    : /(ss|x|ch|sh)es$/.test(name)
      ? name.slice(0, -2)
      : name.endsWith("s") && !name.endsWith("ss")
        ? name.slice(0, -1)
        : name;

// ---------------------------------------------------------------- schemas

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

/**
 * Reduces a structural schema to what json-schema-to-typescript should type,
 * folding Kubernetes extensions into types:
 * - x-kubernetes-int-or-string: `options.intOrString`, the union as the
 *   caller spells it (`number | string` or `string | number`);
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
export function normalize(schema, where, options) {
  if (schema === null || typeof schema !== "object") throw new UserError(`${where}: schema is not an object`);
  const out = {};
  for (const key of KEPT_KEYWORDS) if (schema[key] !== undefined) out[key] = clone(schema[key]);
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
      out[keyword] = branches.map((b, i) => normalize({ ...b }, `${where}.${keyword}[${i}]`, options));
    }
  }
  if (schema.allOf !== undefined) out.allOf = schema.allOf.map((b, i) => normalize(b, `${where}.allOf[${i}]`, options));

  if (schema.default !== undefined) notes.push(`@default ${JSON.stringify(schema.default)}`);
  if (notes.length > 0) out.description = [schema.description, ...notes].filter(Boolean).join("\n\n");

  const preserve =
    schema["x-kubernetes-preserve-unknown-fields"] === true || schema["x-kubernetes-embedded-resource"] === true;

  if (schema["x-kubernetes-int-or-string"] === true) {
    // Usually written as anyOf integer/string as well: the tsType says it all.
    for (const key of ["type", "enum", "oneOf", "anyOf", "allOf"]) delete out[key];
    out.tsType = options.intOrString;
  } else if (schema.type === "array") {
    out.items = schema.items === undefined ? {} : normalize(schema.items, `${where}[]`, options);
    if (schema.items === undefined) out.items.tsType = "unknown";
  } else if (schema.type === "object" || (schema.type === undefined && schema.properties !== undefined)) {
    out.type = "object";
    if (schema.properties !== undefined) {
      out.properties = {};
      for (const [name, prop] of Object.entries(schema.properties)) {
        out.properties[name] = normalize(prop, `${where}.${name}`, options);
      }
    }
    if (typeof schema.additionalProperties === "object") {
      out.additionalProperties = normalize(schema.additionalProperties, `${where}.*`, options);
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

/**
 * The schemas below the root that get a name of their own: spec and status,
 * then the object types (or array item object types) directly below them.
 * `part` is `Spec` or `Status`; `field` is the PascalCase field name,
 * singular for arrays, and absent for spec and status themselves.
 */
export function* namedParts(root) {
  const parts = ["spec", "status"].filter((p) => root.properties?.[p]?.properties !== undefined);
  for (const part of parts) yield { schema: root.properties[part], part: pascal(part) };
  for (const part of parts) {
    for (const [field, prop] of Object.entries(root.properties[part].properties)) {
      const isArray = prop.type === "array";
      const target = isArray ? prop.items : prop;
      if (target?.properties === undefined || target.tsType !== undefined) continue;
      yield { schema: target, part: pascal(part), field: pascal(isArray ? singular(field) : field) };
    }
  }
}

/**
 * Compiles a normalised schema named by its title into `export type`
 * declarations: json-schema-to-typescript declares interfaces, and only type
 * aliases are assignable to index signatures (KubeObject's).
 */
export async function compileTypes(schema, where) {
  const code = await compile(schema, schema.title, COMPILE_OPTIONS);
  let open = false;
  const result = code
    .split("\n")
    .map((line) => {
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
    })
    .join("\n");
  if (open || /^export interface /m.test(result)) throw new UserError(`${where}: unexpected generator output`);
  return result;
}

/**
 * `code`, once it declares every type in `names`: json-schema-to-typescript
 * renames or drops a title it does not like without a word, and the types
 * are called by the names we chose.
 */
export function checkTypeNames(code, names, where) {
  for (const name of names) {
    if (!code.includes(`export type ${name} = `)) throw new UserError(`${where}: type ${name} missing from generator output`);
  }
  return code;
}

// ---------------------------------------------------------------- sources

/**
 * A YAML file's text and its non-empty documents. Errors name the file as
 * `shown` (default the path as given) and say it was a `what` that could not
 * be read: what the person running the generator has to go and fix.
 */
export function readYaml(path, what, shown = path) {
  let text;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new UserError(`cannot read ${what} ${shown}: ${err.message}`);
  }
  const docs = parseAllDocuments(text).map((doc) => {
    if (doc.errors.length > 0) throw new UserError(`${shown}: ${doc.errors[0].message}`);
    return doc.toJS();
  });
  return { text, docs: docs.filter((doc) => doc !== null && doc !== undefined) };
}

// ---------------------------------------------------------------- command line

/** The files directly in `dir`, by name. */
export function committedFiles(dir) {
  const files = new Map();
  if (!existsSync(dir)) return files;
  for (const name of readdirSync(dir).sort(cmp)) {
    const path = join(dir, name);
    if (statSync(path).isFile()) files.set(name, readFileSync(path, "utf8"));
  }
  return files;
}

async function main(script, regenerate, generate) {
  const args = process.argv.slice(2);
  const check = args.includes("--check");
  const unknown = args.filter((a) => a !== "--check");
  if (unknown.length > 0) throw new UserError(`unknown argument ${unknown[0]}; usage: ${script}.mjs [--check]`);

  const { targets, outOfDate, logPrefix = "" } = await generate();
  const diffs = targets.map(({ dir, output, notes = new Map() }) => {
    const committed = committedFiles(dir);
    return {
      dir,
      output,
      notes,
      changed: [...output].filter(([n, text]) => committed.has(n) && committed.get(n) !== text).map(([n]) => n),
      missing: [...output.keys()].filter((n) => !committed.has(n)),
      extra: [...committed.keys()].filter((n) => !output.has(n)),
    };
  });

  if (check) {
    const lines = diffs.flatMap(({ dir, changed, missing, extra, notes }) => [
      ...changed.map((n) => `  changed: ${relative(ROOT, join(dir, n))}${notes.has(n) ? ` (${notes.get(n)})` : ""}`),
      ...missing.map((n) => `  missing: ${relative(ROOT, join(dir, n))}`),
      ...extra.map((n) => `  extra:   ${relative(ROOT, join(dir, n))}`),
    ]);
    if (lines.length === 0) return 0;
    console.error(`${outOfDate}:\n${lines.join("\n")}\nTo fix: ${regenerate}`);
    return 1;
  }

  for (const { dir, output, changed, missing, extra } of diffs) {
    mkdirSync(dir, { recursive: true });
    for (const name of [...changed, ...missing]) writeFileSync(join(dir, name), output.get(name));
    for (const name of extra) rmSync(join(dir, name));
    const touched = changed.length + missing.length + extra.length;
    if (touched > 0) console.log(`${logPrefix}${touched} file(s) updated in ${relative(ROOT, dir)}`);
  }
  return 0;
}

/**
 * Runs `node scripts/<script>.mjs [--check]`. `generate` resolves to
 * `{ targets, outOfDate, logPrefix? }`: per output directory
 * `{ dir, output, notes? }`, where `output` maps every file the directory
 * should hold (and nothing else) to its text and `notes` adds a remark to a
 * changed file in the --check report; `outOfDate` opens that report and
 * `logPrefix` each line about written files. Exit code 0 when the files are
 * (now) up to date, 1 when --check finds them not, 2 on any error.
 */
export function runGenerator(script, generate) {
  const regenerate = `run node scripts/${script}.mjs`;
  main(script, regenerate, generate).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      if (err instanceof UserError) {
        console.error(`${script}: ${err.message}`);
      } else {
        console.error(err);
        console.error(`${script} failed unexpectedly; fix the cause, then ${regenerate}`);
      }
      process.exitCode = 2;
    },
  );
}
