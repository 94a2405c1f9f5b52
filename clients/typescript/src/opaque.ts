/**
 * The key-less check of an opaque ID's form (docs/opaque-ids.md). A collection an admin made
 * opaque answers `generate("orders|")` with `orders/` and 13 Crockford base-32 symbols in place
 * of the counter's value; the key that reads a form back stays in the cluster, so what an
 * application can check alone is the shape. The cases every client agrees on are data, in the
 * conformance suite's test/conformance/opaque-forms.json. A database whose numeric IDs are opaque
 * answers them as the 13 symbols alone, which `opaqueNumericId` checks.
 */

/** The number of Crockford base-32 symbols of every opaque ID, after the collection and separator. */
export const OPAQUE_ID_LENGTH = 13;

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** Each character Crockford reads, to its canonical symbol: both cases, I and L as 1, O as 0. */
const CANONICAL: ReadonlyMap<string, string> = new Map([
  ...[...ALPHABET].flatMap((c): [string, string][] => [[c, c], [c.toLowerCase(), c]]),
  ["I", "1"], ["i", "1"], ["L", "1"], ["l", "1"], ["O", "0"], ["o", "0"],
]);

function lowerASCII(s: string): string {
  return s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

/**
 * The opaque form of an ID of `collection`, normalised, or `undefined` when `id` is not one.
 *
 * The form is the collection, the cluster's `separator`, then 13 Crockford base-32 symbols. The
 * symbols are read in either case with I and L as 1 and O as 0, and come back in their
 * canonical upper-case spelling; hyphens are refused (the length is fixed, and a separator may
 * itself be a hyphen). The collection's ASCII letters match in either case, as the cluster
 * folds names (other letters must be spelt alike); the ID's own spelling of it is kept.
 *
 * No key is needed and no call is made. A form of the right shape may still be refused by the
 * cluster (`NOT_OPAQUE_FORM`): three in four of them decode outside any counter, which only the
 * key tells.
 *
 * ```ts
 * opaqueId("orders/kc6hecswe6sx7", "orders"); // "orders/KC6HECSWE6SX7"
 * opaqueId("orders/1", "orders");             // undefined
 * ```
 */
export function opaqueId(id: string, collection: string, separator = "/"): string | undefined {
  if (typeof separator !== "string" || [...separator].length !== 1) throw new TypeError(`idnode: separator ${JSON.stringify(separator)}: one character, the cluster's`);
  if (typeof id !== "string" || typeof collection !== "string" || collection === "") return undefined;
  const prefix = collection + separator;
  if (id.length !== prefix.length + OPAQUE_ID_LENGTH) return undefined;
  const own = id.slice(0, prefix.length);
  if (lowerASCII(own) !== lowerASCII(prefix)) return undefined;
  const symbols = canonicalSymbols(id.slice(prefix.length));
  return symbols === undefined ? undefined : own + symbols;
}

/**
 * The opaque form of a numeric ID, normalised, or `undefined` when `id` is not one.
 *
 * A database whose numeric IDs an admin made opaque answers `generate("", { numeric: true })`
 * with 13 Crockford base-32 symbols and nothing else, since a numeric ID has no collection. The
 * symbols are read as {@link opaqueId} reads them. No key is needed and no call is made, so a
 * form of the right shape may still be none the database's key decodes.
 *
 * ```ts
 * opaqueNumericId("kc6hecswe6sx7");       // "KC6HECSWE6SX7"
 * opaqueNumericId("1234567890123456789"); // undefined
 * ```
 */
export function opaqueNumericId(id: string): string | undefined {
  return typeof id === "string" ? canonicalSymbols(id) : undefined;
}

/** The 13 symbols of `s` in their canonical spelling, or undefined when `s` is not 13 symbols. */
function canonicalSymbols(s: string): string | undefined {
  if (s.length !== OPAQUE_ID_LENGTH) return undefined;
  let symbols = "";
  for (const c of s) {
    const canonical = CANONICAL.get(c);
    if (canonical === undefined) return undefined;
    symbols += canonical;
  }
  return symbols;
}
