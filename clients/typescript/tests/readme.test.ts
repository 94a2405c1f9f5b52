import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { IdCluster, httpAddrs } from "./support/cluster.js";

// The README's first example, as a user copies it: the package packed and installed with npm
// into a project of its own, the example run there against a node, the test node's address in
// place of the one `go run ./cmd/idnode` listens on.

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const README_ADDR = "127.0.0.1:7080";

function npm(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (existsSync(join(dir, "npm"))) return join(dir, "npm");
  }
  return undefined;
}

function examples(): string[] {
  return readFileSync(join(pkg, "README.md"), "utf8")
    .split("```ts\n")
    .slice(1)
    .map((rest) => rest.slice(0, rest.indexOf("```")));
}

const npmPath = npm();

test(
  "the README's first example runs as written from the installed package and prints an ID",
  { skip: npmPath === undefined ? "no npm on PATH (apt-get install npm)" : false, timeout: 240_000 },
  async () => {
    const first = examples()[0] ?? "";
    assert.ok(first.includes(README_ADDR), `the first example does not use ${README_ADDR}:\n${first}`);
    const dir = mkdtempSync(join(tmpdir(), "idnode-ts-readme-"));
    const cluster = new IdCluster();
    try {
      const info = await cluster.start({ nodes: 1 });
      const npmCmd = npmPath as string;
      const tarball = execFileSync(npmCmd, ["pack", "--silent", pkg, "--pack-destination", dir], { cwd: dir, encoding: "utf8", timeout: 120_000 }).trim();
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "readme-example", private: true, type: "module" }));
      execFileSync(npmCmd, ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", join(dir, tarball)], { cwd: dir, encoding: "utf8", timeout: 120_000 });
      writeFileSync(join(dir, "example.mjs"), first.split(README_ADDR).join(httpAddrs(info)[0] ?? ""));
      const out = execFileSync(process.execPath, ["example.mjs"], { cwd: dir, encoding: "utf8", timeout: 60_000 });
      assert.match(out, /^orders\/1-A\n$/, "the first example prints an ID");
    } finally {
      await cluster.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
