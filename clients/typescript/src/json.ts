import { invalidInput } from "./errors.js";

/** A JSON value as the node sends it (int64 fields as decimal strings). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An answer's object, or {} for anything else (the node leaves out nothing, but a proxy might). */
export function object(v: Json | undefined): JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v : {};
}

export function str(o: JsonObject, key: string): string {
  const v = o[key];
  return typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
}

export function bool(o: JsonObject, key: string): boolean {
  return o[key] === true;
}

/** An int64 field: protojson writes them as strings, int32 ones as numbers; absent is 0. */
export function big(o: JsonObject, key: string): bigint {
  const v = o[key];
  if (typeof v === "string" && v !== "") return BigInt(v);
  if (typeof v === "number") return BigInt(v);
  return 0n;
}

/** A field that fits a JavaScript number exactly (int32, or small uint64 such as a worker id). */
export function num(o: JsonObject, key: string): number {
  const v = o[key];
  if (typeof v === "number") return v;
  if (typeof v === "string" && v !== "") return Number(v);
  return 0;
}

export function list(o: JsonObject, key: string): Json[] {
  const v = o[key];
  return Array.isArray(v) ? v : [];
}

export function strings(o: JsonObject, key: string): string[] {
  return list(o, key).map((v) => (typeof v === "string" ? v : String(v)));
}

/**
 * A caller's int64: a bigint, or a number that is a safe integer (a larger number has already
 * lost bits, so it is refused rather than sent rounded). Returned as the decimal string the
 * JSON body carries.
 */
export function int64(field: string, v: bigint | number, min: bigint = INT64_MIN): string {
  let b: bigint;
  if (typeof v === "bigint") {
    b = v;
  } else if (Number.isSafeInteger(v)) {
    b = BigInt(v);
  } else {
    throw invalidInput(`${field} must be an integer within ±2^53 when given as a number (got ${v}); pass a bigint for larger values`);
  }
  if (b < min || b > INT64_MAX) {
    throw invalidInput(`${field} must be within ${min}..${INT64_MAX} (got ${b})`);
  }
  return b.toString();
}

/** A caller's whole number that must lie in min..max, refused before any call otherwise. */
export function whole(field: string, v: number, min: number, max: number): number {
  if (!Number.isSafeInteger(v) || v < min || v > max) {
    throw invalidInput(`${field} must be an integer from ${min} to ${max} (got ${v})`);
  }
  return v;
}

/** A caller's count: 0 (the node's default of 1) up to 2^31−1; the node applies its own maximum. */
export function count(field: string, v: number | undefined): string | undefined {
  return v === undefined ? undefined : String(whole(field, v, 0, 0x7fffffff));
}

/** Drops the undefined members, so a body carries only what the caller gave. */
export function compact(o: { [key: string]: Json | undefined }): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) {
    if (v !== undefined) out[k] = v;
  }
  return out;
}
