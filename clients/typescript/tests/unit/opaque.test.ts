import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { opaqueId } from "../../src/opaque.js";
import { Code, FailedPreconditionError, InvalidArgumentError, NotOpaqueFormError, OpaqueCollectionError, Reason, errorOf } from "../../src/errors.js";
import { repoRoot } from "../support/cluster.js";

// The cases every client's check of the form agrees on, from the conformance suite's folder.
interface FormCase {
  id: string;
  collection: string;
  separator?: string;
  normalised?: string;
  why: string;
}
const forms = JSON.parse(readFileSync(join(repoRoot(), "test", "conformance", "opaque-forms.json"), "utf8")) as { valid: FormCase[]; invalid: FormCase[] };

test("the shared cases are there", () => {
  assert.ok(forms.valid.length > 0 && forms.invalid.length > 0);
});

test("opaqueId accepts every valid form and normalises it", () => {
  for (const c of forms.valid) assert.equal(opaqueId(c.id, c.collection, c.separator ?? "/"), c.normalised, `${c.id}: ${c.why}`);
});

test("opaqueId refuses every invalid form", () => {
  for (const c of forms.invalid) assert.equal(opaqueId(c.id, c.collection, c.separator ?? "/"), undefined, `${JSON.stringify(c.id)}: ${c.why}`);
});

test("opaqueId refuses what is not a string", () => {
  assert.equal(opaqueId(undefined as unknown as string, "orders"), undefined);
  assert.equal(opaqueId(42 as unknown as string, "orders"), undefined);
});

test("opaqueId takes one character as separator", () => {
  for (const bad of ["", "//"]) assert.throws(() => opaqueId("orders/KC6HECSWE6SX7", "orders", bad), TypeError);
});

test("an opaque collection's refusals have classes of their own, with their codes only", () => {
  const opaque = errorOf(Code.FAILED_PRECONDITION, "collection orders is opaque", { reason: Reason.OPAQUE_COLLECTION });
  assert.ok(opaque instanceof OpaqueCollectionError && opaque instanceof FailedPreconditionError);
  assert.equal(opaque.reason, "OPAQUE_COLLECTION");
  const form = errorOf(Code.INVALID_ARGUMENT, "not an opaque form", { reason: Reason.NOT_OPAQUE_FORM });
  assert.ok(form instanceof NotOpaqueFormError && form instanceof InvalidArgumentError);
  const odd = errorOf(Code.INVALID_ARGUMENT, "odd", { reason: Reason.OPAQUE_COLLECTION });
  assert.equal(odd.constructor, InvalidArgumentError);
  const proto = errorOf(Code.INVALID_ARGUMENT, "odd", { reason: "__proto__" });
  assert.equal(proto.constructor, InvalidArgumentError);
});
