// Types from CRDs that other projects publish inside their Go modules (kcp's,
// openMCP's, Cluster API's and its operator's), for the generators that read
// them: the module version pinned in one of our go.mod files, the module's
// directory in the Go module cache (downloaded, and checked against go.sum,
// by `go mod download`), and per CRD version one TypeScript type per named
// part of the schema, through the normalisation in crd-typescript.mjs.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import { checkTypeNames, cmp, compileTypes, namedParts, normalize, pascal, readYaml, ROOT, UserError } from "./crd-typescript.mjs";

/** The version of `module` that `goMod` requires; a replace of it is refused (pinned releases only). */
export function pinnedVersion(goMod, module) {
  let text;
  try {
    text = readFileSync(goMod, "utf8");
  } catch (err) {
    throw new UserError(`cannot read ${relative(ROOT, goMod)}: ${err.message}`);
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
    if (path !== module) continue;
    if (directive === "replace") {
      throw new UserError(`${relative(ROOT, goMod)} replaces ${module}; the generator reads pinned releases only`);
    }
    if (directive === "require") version = ver;
  }
  if (!version) throw new UserError(`no "require ${module} <version>" in ${relative(ROOT, goMod)}`);
  return version;
}

/** The module's directory in the Go module cache; run next to `goMod` so that its go.sum vouches for the download. */
export function moduleDir(goMod, module, version) {
  let out;
  try {
    out = execFileSync("go", ["mod", "download", "-json", `${module}@${version}`], {
      cwd: dirname(goMod),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (err) {
    if (err.code === "ENOENT") throw new UserError(`\`go\` is not on PATH; install Go to read the CRDs of ${module}`);
    let detail = String(err.stderr ?? "").trim();
    try {
      detail = JSON.parse(err.stdout).Error ?? detail;
    } catch {
      // not JSON: keep stderr
    }
    throw new UserError(`go mod download ${module}@${version} failed: ${detail || err.message}`);
  }
  const info = JSON.parse(out);
  if (info.Error || !info.Dir) throw new UserError(`go mod download ${module}@${version} failed: ${info.Error ?? "no Dir"}`);
  return info.Dir;
}

export function readCrd(file) {
  const { docs } = readYaml(file, "CRD");
  if (docs.length !== 1 || docs[0].kind !== "CustomResourceDefinition") {
    throw new UserError(`${file}: expected exactly one CustomResourceDefinition`);
  }
  return docs[0];
}

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
    checkTypeNames(result, [name], where);
  }
  return result;
}

/**
 * The generated files for `crds` (`{ crd, source, versions? }`, `source`
 * naming the file in the header of its types, `versions` picking served
 * versions by name, default all served): one file per group-version holding a type per
 * kind and named part,
 * `resources.ts` with the constant `resourcesConstant` listing group,
 * version, kind, plural, scope and storage of each, and `index.ts`.
 * `header` opens every file; `metaImport` is the import line of ObjectMeta.
 */
export async function crdTypeFiles({ crds, header, metaImport, resourcesConstant, resourcesDoc }) {
  const entries = [];
  for (const { crd, source, versions = () => true } of crds) {
    const { group, names, scope } = crd.spec;
    for (const v of crd.spec.versions) {
      if (!v.served || !versions(v.name)) continue;
      entries.push({
        group,
        version: v.name,
        kind: names.kind,
        plural: names.plural,
        namespaced: scope === "Namespaced",
        storage: v.storage === true,
        source,
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
    sources.push(`// ${entry.kind} ${entry.version}, from ${entry.source}\n\n${code.trim()}\n`);
    files.set(name, sources);
  }

  const output = new Map();
  for (const [name, parts] of files) output.set(name, `${header}\n${metaImport}\n\n${parts.join("\n")}`);

  const rows = entries.map(
    ({ group, version: v, kind, plural, namespaced, storage }) =>
      `  { group: ${JSON.stringify(group)}, version: ${JSON.stringify(v)}, kind: ${JSON.stringify(kind)}, ` +
      `plural: ${JSON.stringify(plural)}, namespaced: ${namespaced}, storage: ${storage} },`,
  );
  output.set("resources.ts", `${header}\n/** ${resourcesDoc} */\nexport const ${resourcesConstant} = [\n${rows.join("\n")}\n] as const;\n`);
  return output;
}

/** `output` plus an index.ts re-exporting every module in it, all sorted by name. */
export function withIndex(output, header) {
  const modules = [...output.keys()].sort(cmp).map((name) => `export * from "./${name.replace(/\.ts$/, ".js")}";`);
  return new Map([...output, ["index.ts", `${header}\n${modules.join("\n")}\n`]].sort(([a], [b]) => cmp(a, b)));
}
