// Type-checks every ```ts block of README.md and packages/*/README.md, so the
// examples keep compiling as the APIs they show change. Each block becomes
// .cache/readme-examples/<package>-<n>.ts (the root README's are root-<n>.ts),
// a module of its own, checked by `tsc --noEmit` against the workspace
// packages: they resolve through their "source" export condition to the
// projects the build made (run `tsc -b` first). A block declares what it
// leaves out, e.g. `declare const kubeconfig: string;`. Errors are reported
// at their README line.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, ".cache", "readme-examples");
const packages = readdirSync(join(root, "packages")).filter((name) => existsSync(join(root, "packages", name, "package.json")));

/** The ```ts blocks of a markdown text, each with the README line its first code line is on. */
function tsBlocks(markdown) {
  const blocks = [];
  let current;
  markdown.split("\n").forEach((line, index) => {
    if (current === undefined) {
      if (/^```ts\s*$/.test(line)) current = { firstLine: index + 2, lines: [] };
    } else if (/^```\s*$/.test(line)) {
      blocks.push({ firstLine: current.firstLine, code: current.lines.join("\n") });
      current = undefined;
    } else {
      current.lines.push(line);
    }
  });
  return blocks;
}

const readmes = [
  { name: "root", path: "README.md" },
  ...packages.map((name) => ({ name, path: join("packages", name, "README.md") })),
].filter((readme) => existsSync(join(root, readme.path)));

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "node_modules", "@edgeconnect"), { recursive: true });
const origins = new Map();
for (const readme of readmes) {
  tsBlocks(readFileSync(join(root, readme.path), "utf8")).forEach((block, index) => {
    const file = `${readme.name}-${index + 1}.ts`;
    writeFileSync(join(out, file), `${block.code}\n`);
    origins.set(file, { readme: readme.path, firstLine: block.firstLine });
  });
}
if (origins.size === 0) {
  console.log("no ```ts blocks in the READMEs");
  process.exit(0);
}

// Node's resolution from here finds the packages as a dependent's node_modules would.
for (const name of packages) {
  const { name: packageName } = JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8"));
  symlinkSync(join(root, "packages", name), join(out, "node_modules", packageName), "dir");
}
const tsconfig = {
  extends: relative(out, join(root, "tsconfig.base.json")),
  compilerOptions: { composite: false, noEmit: true, moduleDetection: "force" },
  include: ["*.ts"],
  references: packages.map((name) => ({ path: relative(out, join(root, "packages", name)) })),
};
writeFileSync(join(out, "tsconfig.json"), `${JSON.stringify(tsconfig, null, 2)}\n`);

try {
  execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", join(out, "tsconfig.json")], {
    cwd: root,
    encoding: "utf8",
  });
} catch (error) {
  const output = `${error.stdout ?? ""}${error.stderr ?? ""}`;
  // `.cache/readme-examples/runtime-1.ts(12,5)` → `packages/runtime/README.md:45:5`
  console.error(
    output.replace(/(?:\S*[/\\])?([\w.-]+\.ts)\((\d+),(\d+)\)/g, (whole, file, line, column) => {
      const origin = origins.get(file);
      return origin === undefined ? whole : `${origin.readme}:${origin.firstLine + Number(line) - 1}:${column}`;
    }),
  );
  console.error(`README examples do not compile (generated files in ${relative(root, out)})`);
  process.exit(1);
}
console.log(`${origins.size} README example(s) compile`);
