import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { IdCluster, httpAddrs } from "./support/cluster.js";

// The package as a user gets it: packed with npm pack, installed with npm install into a project
// of its own, then used there the two ways Node loads a package (import and require) and type
// checked the two ways TypeScript resolves it. The README's first example runs there against a
// node, the test node's address in place of the one `go run ./cmd/idnode` listens on; its pg
// example too, with Debian's node-pg beside the package and a private PostgreSQL server.

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const README_ADDR = "127.0.0.1:7080";

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

function examples(): string[] {
  return readFileSync(join(pkg, "README.md"), "utf8")
    .split("```ts\n")
    .slice(1)
    .map((rest) => rest.slice(0, rest.indexOf("```")));
}

const npmPath = onPath("npm");
const skip = npmPath === undefined ? "no npm on PATH (apt-get install npm)" : false;
let project = "";
let node = "";
let cluster: IdCluster | undefined;

before(
  async () => {
    if (npmPath === undefined) return;
    project = mkdtempSync(join(tmpdir(), "idnode-ts-package-"));
    cluster = new IdCluster();
    node = httpAddrs(await cluster.start({ nodes: 1 }))[0] ?? "";
    // The package packs dist/ as `npm run build` left it (test/conformance/typescript builds it
    // first): npm pack's prepack would compile it all again, twice, beside the other test files.
    const built = [join(pkg, "dist", "index.js"), join(pkg, "dist", "cjs", "index.js")];
    assert.ok(built.every(existsSync), "no dist/: run npm run build first");
    const sources = readdirSync(join(pkg, "src")).map((f) => statSync(join(pkg, "src", f)).mtimeMs);
    assert.ok(Math.min(...built.map((f) => statSync(f).mtimeMs)) >= Math.max(...sources), "dist/ is older than src/: run npm run build first");
    const tarball = execFileSync(npmPath, ["pack", "--silent", "--ignore-scripts", pkg, "--pack-destination", project], { cwd: project, encoding: "utf8", timeout: 120_000 }).trim();
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "user-project", private: true, type: "module" }));
    execFileSync(npmPath, ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", join(project, tarball)], { cwd: project, encoding: "utf8", timeout: 120_000 });
  },
  { timeout: 240_000 },
);

after(async () => {
  await cluster?.close();
  if (project !== "") rmSync(project, { recursive: true, force: true });
});

/** Runs file, written into the project first, with the Node running the tests; returns its output. */
function run(file: string, source: string): string {
  writeFileSync(join(project, file), source);
  return execFileSync(process.execPath, [file], { cwd: project, encoding: "utf8", timeout: 60_000 });
}

test("the README's first example runs as written from the installed package and prints an ID", { skip, timeout: 120_000 }, () => {
  const first = examples()[0] ?? "";
  assert.ok(first.includes(README_ADDR), `the first example does not use ${README_ADDR}:\n${first}`);
  assert.match(run("example.mjs", first.split(README_ADDR).join(node)), /^orders\/1-A\n$/, "the first example prints an ID");
});

test("import loads the ES module build and require the CommonJS build, and each gets IDs", { skip, timeout: 120_000 }, () => {
  const esm = run(
    "esm.mjs",
    `import { Client, UnavailableError } from "@idnode/client";
const client = new Client([${JSON.stringify(node)}]);
console.log(import.meta.resolve("@idnode/client"), typeof UnavailableError, await client.nextId("esm"));
await client.close();
`,
  );
  assert.match(esm, /^file:\/\/\S+\/node_modules\/@idnode\/client\/dist\/index\.js function esm\/1-A\n$/);
  const cjs = run(
    "cjs.cjs",
    `const { Client, UnavailableError } = require("@idnode/client");
const client = new Client([${JSON.stringify(node)}]);
client.nextId("cjs").then(async (id) => {
  console.log(require.resolve("@idnode/client"), typeof UnavailableError, id);
  await client.close();
});
`,
  );
  assert.match(cjs, /^\/\S+\/node_modules\/@idnode\/client\/dist\/cjs\/index\.js function cjs\/1-A\n$/);
});

/** Debian's node-pg: the first folder of NODE_PATH, else /usr/share/nodejs, that holds pg. */
function debianPg(): string | undefined {
  const dirs = [...(process.env.NODE_PATH ?? "").split(":").filter((d) => d !== ""), "/usr/share/nodejs"];
  return dirs.find((d) => existsSync(join(d, "pg", "package.json")));
}

/** The text between a README's marker comments, inside its ```ts fence. */
function marked(name: string): string {
  const readme = readFileSync(join(pkg, "README.md"), "utf8");
  const start = `<!-- ${name}:start -->\n\`\`\`ts\n`;
  const s = readme.indexOf(start);
  const e = readme.indexOf("```\n<!-- " + name + ":end -->", s);
  assert.ok(s >= 0 && e > s, `README.md has no ${name} markers`);
  return readme.slice(s + start.length, e);
}

test("the README's pg example inserts rows keyed by HiLo IDs into PostgreSQL", { skip, timeout: 240_000 }, async (t) => {
  const pgDir = debianPg();
  // .ci/run provides node-pg and PostgreSQL: in CI a missing one is a broken machine.
  if (pgDir === undefined) {
    assert.notEqual(process.env.CI, "true", "no node-pg (CI=true: .ci/run unpacks it)");
    t.skip("no node-pg (apt-get install node-pg, or unpack it and set NODE_PATH as .ci/run does)");
    return;
  }
  // A cluster of its own: the examples above took orders/1-A from the first one.
  await (cluster as IdCluster).teardown();
  node = httpAddrs(await (cluster as IdCluster).start({ nodes: 1 }))[0] ?? "";
  const pgInfo = await (cluster as IdCluster).postgres();
  if ("missing" in pgInfo) {
    assert.notEqual(process.env.CI, "true", `${pgInfo.missing} (CI=true: .ci/run installs it)`);
    t.skip(pgInfo.missing);
    return;
  }
  const { dsn } = pgInfo;
  // Installed as Debian installs it: pg's own dependencies sit beside it, found through NODE_PATH.
  symlinkSync(join(pgDir, "pg"), join(project, "node_modules", "pg"), "dir");
  const env = { ...process.env, DATABASE_URL: dsn, NODE_PATH: pgDir };
  const runWith = (file: string, source: string): string => {
    writeFileSync(join(project, file), source);
    return execFileSync(process.execPath, [file], { cwd: project, encoding: "utf8", timeout: 60_000, env });
  };
  const example = marked("pg-example");
  assert.ok(example.includes(README_ADDR), `the pg example does not use ${README_ADDR}:\n${example}`);
  assert.equal(runWith("pg-example.mjs", example.split(README_ADDR).join(node)), "100 orders, the first orders/1-A\n");
  // The table holds the hundred keys the client handed out, and the range's rest went back:
  // the next client's first key follows them.
  const check = `import pg from "pg";
import { Client } from "@idnode/client";
const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
await db.connect();
const { rows } = await db.query("SELECT id FROM orders ORDER BY id");
await db.end();
const client = new Client([${JSON.stringify(node)}]);
console.log(JSON.stringify({ ids: rows.map((r) => r.id), next: await client.nextId("orders") }));
await client.close();
`;
  const got = JSON.parse(runWith("pg-check.mjs", check)) as { ids: string[]; next: string };
  const want = Array.from({ length: 100 }, (_, i) => `orders/${i + 1}-A`).sort();
  assert.deepEqual(got.ids, want);
  assert.equal(got.next, "orders/101-A");
});

const tscPath = onPath("tsc");

test("TypeScript finds the package's types for an ES module and for a CommonJS module", { skip: skip || (tscPath === undefined ? "no tsc on PATH" : false), timeout: 120_000 }, () => {
  // A wrong argument type in each: were the types not found, the module would be untyped
  // (an error of its own under strict) and the wrong argument would go unnoticed. The third
  // line reads fields of a restore's result, which must be in the published types too.
  writeFileSync(join(project, "esm.mts"), `import { Client, RestoreResult } from "@idnode/client";\nexport const c: Client = new Client(["n:1"], { timeoutMs: "soon" });\n` +
    `export const r = (x: RestoreResult): bigint | undefined => x.opaqueRestored + x.identitiesSkippedMax + (x.ahead?.hilo.percent ?? 0n);\n`);
  writeFileSync(join(project, "cjs.cts"), `import idnode = require("@idnode/client");\nexport const c: idnode.Client = new idnode.Client(["n:1"], { timeoutMs: "soon" });\n` +
    `export const r = (x: idnode.RestoreResult): bigint | undefined => x.opaqueDatabases + x.hiloSkippedMin + (x.ahead?.identities.add ?? 0n);\n`);
  const args = ["--noEmit", "--strict", "--module", "node16", "--moduleResolution", "node16", "--target", "ES2020", "--lib", "ES2020,DOM", "esm.mts", "cjs.cts"];
  let out = "";
  try {
    execFileSync(tscPath as string, args, { cwd: project, encoding: "utf8", timeout: 120_000 });
  } catch (e) {
    out = String((e as { stdout?: string }).stdout ?? e);
  }
  const errors = out.split("\n").filter((l) => l.includes("error TS")).sort();
  assert.equal(errors.length, 2, `expected one type error in each file, got:\n${out}`);
  assert.match(errors[1] ?? "", /^esm\.mts\(2,.*error TS2322: Type 'string' is not assignable to type 'number/);
  assert.match(errors[0] ?? "", /^cjs\.cts\(2,.*error TS2322: Type 'string' is not assignable to type 'number/);
});
