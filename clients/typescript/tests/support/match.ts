/**
 * The conformance suite's values and matchers (test/conformance/README.md, "Values and
 * matchers"): results are JSON-shaped, integers compare by value whether a number, a bigint or a
 * decimal string holds them, and saved results are reached by $ref paths.
 */

export type Saved = Map<string, unknown>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The value of a $ref path: a saved name, then keys and array indexes separated by dots. */
export function lookup(saved: Saved, path: string): unknown {
  const [name, ...rest] = path.split(".");
  if (name === undefined || !saved.has(name)) throw new Error(`$ref ${JSON.stringify(path)}: nothing was saved as ${JSON.stringify(name)}`);
  let v: unknown = saved.get(name);
  for (const key of rest) {
    if (Array.isArray(v)) v = v[Number(key)];
    else if (isPlainObject(v)) v = v[key];
    else v = undefined;
    if (v === undefined) throw new Error(`$ref ${JSON.stringify(path)}: no ${JSON.stringify(key)} there`);
  }
  return v;
}

/** args with every {"$ref": …} replaced by the saved value. */
export function resolveRefs(v: unknown, saved: Saved): unknown {
  if (Array.isArray(v)) return v.map((e) => resolveRefs(e, saved));
  if (isPlainObject(v)) {
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0] === "$ref") return lookup(saved, String(v.$ref));
    return Object.fromEntries(Object.entries(v).map(([k, e]) => [k, resolveRefs(e, saved)]));
  }
  return v;
}

/** An integer held in any of the three ways, or undefined. */
function integer(v: unknown): bigint | undefined {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isInteger(v)) return BigInt(v);
  if (typeof v === "string" && /^-?\d+$/.test(v)) return BigInt(v);
  return undefined;
}

function show(v: unknown): string {
  return JSON.stringify(v, (_, x: unknown) => (typeof x === "bigint" ? `${x}n` : x)) ?? String(v);
}

/** Equality of two values: integers by value, arrays and objects element by element. */
function equal(a: unknown, b: unknown): boolean {
  if (typeof a === "number" || typeof a === "bigint" || typeof b === "number" || typeof b === "bigint") {
    const x = integer(a);
    const y = integer(b);
    return x !== undefined && x === y;
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((e, i) => equal(e, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => equal(a[k], b[k]));
  }
  return a === b;
}

/** Why actual does not match the matcher, or null when it does. */
export function mismatch(matcher: unknown, actual: unknown, saved: Saved, at = "result"): string | null {
  if (isPlainObject(matcher) && Object.keys(matcher).length > 0 && Object.keys(matcher).every((k) => k.startsWith("$"))) {
    for (const [op, arg] of Object.entries(matcher)) {
      const why = condition(op, arg, actual, saved, at);
      if (why !== null) return why;
    }
    return null;
  }
  if (Array.isArray(matcher)) {
    if (!Array.isArray(actual) || actual.length !== matcher.length) return `${at}: want ${matcher.length} elements, got ${show(actual)}`;
    for (const [i, m] of matcher.entries()) {
      const why = mismatch(m, actual[i], saved, `${at}[${i}]`);
      if (why !== null) return why;
    }
    return null;
  }
  if (isPlainObject(matcher)) {
    if (!isPlainObject(actual)) return `${at}: want an object, got ${show(actual)}`;
    for (const [k, m] of Object.entries(matcher)) {
      if (!(k in actual)) return `${at}: no key ${JSON.stringify(k)} in ${show(actual)}`;
      const why = mismatch(m, actual[k], saved, `${at}.${k}`);
      if (why !== null) return why;
    }
    return null;
  }
  return equal(matcher, actual) ? null : `${at}: want ${show(matcher)}, got ${show(actual)}`;
}

function condition(op: string, arg: unknown, actual: unknown, saved: Saved, at: string): string | null {
  switch (op) {
    case "$regex":
      return typeof actual === "string" && new RegExp(String(arg)).test(actual) ? null : `${at}: ${show(actual)} does not match /${String(arg)}/`;
    case "$ref": {
      const want = lookup(saved, String(arg));
      return equal(want, actual) ? null : `${at}: want ${show(want)} ($ref ${String(arg)}), got ${show(actual)}`;
    }
    case "$len": {
      const len = Array.isArray(actual) || typeof actual === "string" ? actual.length : undefined;
      return len === arg ? null : `${at}: want length ${show(arg)}, got ${show(actual)}`;
    }
    case "$distinct": {
      if (!Array.isArray(actual)) return `${at}: want an array, got ${show(actual)}`;
      const keys = actual.map(show);
      return (new Set(keys).size === keys.length) === (arg === true) ? null : `${at}: elements distinct is not ${show(arg)}: ${show(actual)}`;
    }
    case "$each": {
      if (!Array.isArray(actual)) return `${at}: want an array, got ${show(actual)}`;
      for (const [i, e] of actual.entries()) {
        const why = mismatch(arg, e, saved, `${at}[${i}]`);
        if (why !== null) return why;
      }
      return null;
    }
    case "$gt":
    case "$gte":
    case "$lt":
    case "$lte": {
      const n = integer(resolveRefs(arg, saved));
      const v = integer(actual);
      if (n === undefined || v === undefined) return `${at}: ${op} compares integers, got ${show(actual)} and ${show(arg)}`;
      const ok = op === "$gt" ? v > n : op === "$gte" ? v >= n : op === "$lt" ? v < n : v <= n;
      return ok ? null : `${at}: ${show(actual)} is not ${op} ${n}`;
    }
    case "$not":
      return mismatch(arg, actual, saved, at) === null ? `${at}: ${show(actual)} matches ${show(arg)}, which it must not` : null;
  }
  throw new Error(`unknown matcher ${op}`);
}
