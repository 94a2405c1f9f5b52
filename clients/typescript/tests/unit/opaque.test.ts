import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { opaqueId, opaqueNumericId } from "../../src/opaque.js";
import { Code, FailedPreconditionError, InvalidArgumentError, NotOpaqueFormError, OpaqueCollectionError, Reason, errorOf } from "../../src/errors.js";
import { repoRoot } from "../support/cluster.js";

// The cases every client's check of the form agrees on, from the conformance suite's folder.
interface FormCase {
  id: string;
  collection?: string;
  separator?: string;
  normalised?: string;
  why: string;
}
const forms = JSON.parse(readFileSync(join(repoRoot(), "test", "conformance", "opaque-forms.json"), "utf8")) as {
  valid: FormCase[];
  invalid: FormCase[];
  numeric: { valid: FormCase[]; invalid: FormCase[] };
};

test("the shared cases are there", () => {
  assert.ok(forms.valid.length > 0 && forms.invalid.length > 0);
  assert.ok(forms.numeric.valid.length > 0 && forms.numeric.invalid.length > 0);
});

test("opaqueId accepts every valid form and normalises it", () => {
  for (const c of forms.valid) assert.equal(opaqueId(c.id, c.collection ?? "", c.separator ?? "/"), c.normalised, `${c.id}: ${c.why}`);
});

test("opaqueId refuses every invalid form", () => {
  for (const c of forms.invalid) assert.equal(opaqueId(c.id, c.collection ?? "", c.separator ?? "/"), undefined, `${JSON.stringify(c.id)}: ${c.why}`);
});

test("opaqueNumericId accepts every valid numeric form and normalises it", () => {
  for (const c of forms.numeric.valid) assert.equal(opaqueNumericId(c.id), c.normalised, `${c.id}: ${c.why}`);
});

test("opaqueNumericId refuses every invalid numeric form", () => {
  for (const c of forms.numeric.invalid) assert.equal(opaqueNumericId(c.id), undefined, `${JSON.stringify(c.id)}: ${c.why}`);
});

test("opaqueId refuses what is not a string", () => {
  assert.equal(opaqueId(undefined as unknown as string, "orders"), undefined);
  assert.equal(opaqueId(42 as unknown as string, "orders"), undefined);
  assert.equal(opaqueNumericId(42 as unknown as string), undefined);
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
