import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { collectionName, irregular, oEs, plural, uncountable } from "../../src/entity.js";
import { repoRoot } from "../support/cluster.js";

// The plural tables and cases every client shares, from the conformance suite's folder.
const shared = JSON.parse(readFileSync(join(repoRoot(), "test", "conformance", "collection-names.json"), "utf8")) as {
  uncountable: string[];
  irregular: Record<string, string>;
  esAfterO: string[];
  plurals: Record<string, string>;
  collections: Record<string, string>;
};

test("the plural tables are the shared file's", () => {
  assert.deepEqual([...uncountable].sort(), [...shared.uncountable].sort());
  assert.deepEqual({ ...irregular }, shared.irregular);
  assert.deepEqual([...oEs].sort(), [...shared.esAfterO].sort());
});

test("a class's collection: its name pluralised, lower-cased when it is one word", () => {
  for (const [name, want] of Object.entries(shared.collections)) assert.equal(collectionName(name), want, name);
  assert.equal(collectionName(""), "");
});

test("English plurals keep the word's case", () => {
  for (const [word, want] of Object.entries(shared.plurals)) assert.equal(plural(word), want, word);
});
