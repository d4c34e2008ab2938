/**
 * The pinned openMCP API module (openmcp-operator/api, pinned in
 * scripts/modules/openmcp-api/go.mod) as tests read it: the string constants
 * of its Go packages and its CRD manifests, straight from the module's
 * sources in the Go module cache. Tests compare our copies of openMCP's
 * contract with these, so the contract has one source: the module.
 *
 * Reads `const` declarations whose value is a string: a literal, another
 * constant (of the same package, or of another package of the module by its
 * import), or a `+` of those, which is how the module writes them
 * (`ProviderLabel = GroupName + "/provider"`). Anything else is left out,
 * and asking for it says so.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openMcpApiSource, parseManifests } from "@edgeconnect/testenv";
import type { KubeObject } from "@edgeconnect/kcp-ts";

const MODULE = "github.com/openmcp-project/openmcp-operator/api";

/** One package's constant declarations, unevaluated, and the packages its files import. */
export interface GoPackageSource {
  /** Name → the expression after `=`. */
  readonly constants: ReadonlyMap<string, string>;
  /** Import name → import path. */
  readonly imports: ReadonlyMap<string, string>;
}

export class OpenMcpApiModule {
  private readonly packages = new Map<string, GoPackageSource>();

  constructor(
    /** The module's directory in the Go module cache. */
    readonly dir: string,
    readonly version: string,
  ) {}

  /** The string constant `name` of the package at `pkg` (relative to the module, e.g. `clusters/v1alpha1`). */
  constant(pkg: string, name: string): string {
    return this.evaluate(pkg, name, []);
  }

  /** The module's CRDs, as shipped in crds/manifests/. */
  crds(): KubeObject[] {
    const dir = join(this.dir, "crds", "manifests");
    return readdirSync(dir)
      .filter((file) => file.endsWith(".yaml"))
      .sort()
      .flatMap((file) => parseManifests(readFileSync(join(dir, file), "utf8")));
  }

  private evaluate(pkg: string, name: string, seen: readonly string[]): string {
    const key = `${pkg}.${name}`;
    if (seen.includes(key)) throw new Error(`${MODULE}@${this.version}: the constants ${[...seen, key].join(" → ")} refer to each other`);
    const source = this.packageSource(pkg);
    const expression = source.constants.get(name);
    if (expression === undefined) throw new Error(`${MODULE}@${this.version} has no string constant ${name} in package ${pkg}`);
    return splitTerms(expression)
      .map((term) => this.term(pkg, source, term, [...seen, key], expression))
      .join("");
  }

  private term(pkg: string, source: GoPackageSource, term: string, seen: readonly string[], expression: string): string {
    const literal = stringLiteral(term);
    if (literal !== undefined) return literal;
    const local = /^[A-Za-z_]\w*$/.exec(term);
    if (local !== null) return this.evaluate(pkg, term, seen);
    const qualified = /^([A-Za-z_]\w*)\.([A-Za-z_]\w*)$/.exec(term);
    const importPath = qualified === null ? undefined : source.imports.get(qualified[1] ?? "");
    if (qualified !== null && importPath !== undefined && importPath.startsWith(`${MODULE}/`)) {
      return this.evaluate(importPath.slice(MODULE.length + 1), qualified[2] ?? "", seen);
    }
    throw new Error(`${MODULE}@${this.version} ${pkg}: cannot read the string constant ${seen.at(-1) ?? ""} = ${expression} (the term ${term})`);
  }

  private packageSource(pkg: string): GoPackageSource {
    let source = this.packages.get(pkg);
    if (source === undefined) {
      const dir = join(this.dir, pkg);
      const files = existsSync(dir) ? readdirSync(dir).filter((file) => file.endsWith(".go") && !file.endsWith("_test.go")) : [];
      if (files.length === 0) throw new Error(`${MODULE}@${this.version} has no Go package ${pkg}`);
      source = mergeSources(files.map((file) => parseGoSource(readFileSync(join(dir, file), "utf8"))));
      this.packages.set(pkg, source);
    }
    return source;
  }
}

/**
 * The pinned module from the Go module cache (`go mod download` fetches it
 * when missing). Without it the caller's tests must fail, not skip: the
 * error says what is missing and how to get it.
 */
export async function openMcpApiModule(repoRoot?: string): Promise<OpenMcpApiModule> {
  try {
    const { dir, version } = await openMcpApiSource(repoRoot);
    return new OpenMcpApiModule(dir, version);
  } catch (err) {
    throw new Error(
      `the openMCP API module's sources are needed to check our openMCP constants against, and are not available: ${err instanceof Error ? err.message : String(err)}\n` +
        "Fetch them into the Go module cache with `go mod download` in scripts/modules/openmcp-api (needs Go and the module proxy).",
      { cause: err },
    );
  }
}

/** The constant declarations and imports of one Go file. */
export function parseGoSource(text: string): GoPackageSource {
  const code = withoutComments(text);
  return { constants: constantDeclarations(code), imports: importDeclarations(code) };
}

function mergeSources(sources: readonly GoPackageSource[]): GoPackageSource {
  // Import names are per file in Go; within one package of this module they agree.
  return {
    constants: new Map(sources.flatMap((source) => [...source.constants])),
    imports: new Map(sources.flatMap((source) => [...source.imports])),
  };
}

/** `Name [Type] = expression` in `const ( ... )` blocks and single `const` lines. */
function constantDeclarations(code: string): Map<string, string> {
  const specs: string[] = [];
  for (const block of code.matchAll(/^const\s*\(([\s\S]*?)^\)/gm)) specs.push(...(block[1] ?? "").split("\n"));
  for (const single of code.matchAll(/^const\s+([^(\s].*)$/gm)) specs.push(single[1] ?? "");
  const constants = new Map<string, string>();
  for (const spec of specs) {
    const match = /^\s*([A-Za-z_]\w*)(?:\s+[A-Za-z_][\w.]*)?\s*=\s*(.+?)\s*$/.exec(spec);
    if (match !== null) constants.set(match[1] ?? "", match[2] ?? "");
  }
  return constants;
}

function importDeclarations(code: string): Map<string, string> {
  const specs: string[] = [];
  for (const block of code.matchAll(/^import\s*\(([\s\S]*?)^\)/gm)) specs.push(...(block[1] ?? "").split("\n"));
  for (const single of code.matchAll(/^import\s+([^(\s].*)$/gm)) specs.push(single[1] ?? "");
  const imports = new Map<string, string>();
  for (const spec of specs) {
    const match = /^\s*([A-Za-z_]\w*\s+)?"([^"]+)"\s*$/.exec(spec);
    if (match === null) continue;
    const path = match[2] ?? "";
    imports.set(match[1]?.trim() ?? path.slice(path.lastIndexOf("/") + 1), path);
  }
  return imports;
}

/** The terms of a `+` expression, splitting outside string literals only. */
function splitTerms(expression: string): string[] {
  const terms: string[] = [];
  let current = "";
  let quote: string | undefined;
  for (let i = 0; i < expression.length; i++) {
    const char = expression[i] ?? "";
    if (quote !== undefined) {
      current += char;
      if (char === "\\" && quote === '"') current += expression[++i] ?? "";
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "`") {
      quote = char;
      current += char;
    } else if (char === "+") {
      terms.push(current.trim());
      current = "";
    } else {
      current += char;
    }
  }
  terms.push(current.trim());
  return terms;
}

/** The value of a Go string literal; undefined for anything else. */
function stringLiteral(term: string): string | undefined {
  if (/^`[^`]*`$/.test(term)) return term.slice(1, -1);
  if (!/^"(?:[^"\\]|\\.)*"$/.test(term)) return undefined;
  // Go's interpreted strings share JSON's common escapes; the module's constants use none beyond them.
  return JSON.parse(term) as string;
}

/** Go source without comments, string literals kept intact (a URL's `//` is not a comment). */
function withoutComments(text: string): string {
  let out = "";
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? "";
    const next = text[i + 1] ?? "";
    if (quote !== undefined) {
      out += char;
      if (char === "\\" && quote !== "`") out += text[++i] ?? "";
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "`" || char === "'") {
      quote = char;
      out += char;
    } else if (char === "/" && next === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (char === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      const comment = text.slice(i, end === -1 ? text.length : end + 2);
      out += comment.replace(/[^\n]/g, "");
      i = (end === -1 ? text.length : end + 2) - 1;
    } else {
      out += char;
    }
  }
  return out;
}
