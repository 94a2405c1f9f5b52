import { Code, IdnodeError, invalidInput } from "./errors.js";
import { JsonObject, big, bool, int64, num, object } from "./json.js";
import { CallOptions } from "./transport.js";

/**
 * A restore's margin for one kind of counter: each counter is set `add + ceil(value × percent /
 * 100)` above the backup's value, to skip what the backup's cluster issued after the backup was
 * taken (docs/backups.md, "A margin for what the backup missed").
 */
export interface CounterMargin {
  /** Numbers added to every counter of the kind. */
  add: bigint;
  /** Whole per cent of each counter's own value, rounded up. */
  percent: bigint;
}

/** A restore's margin: identity counters, and HiLo maxima (which move by whole ranges). */
export interface RestoreMargin {
  identities: CounterMargin;
  hilo: CounterMargin;
}

/** One kind's margin as a caller gives it: bigints, or numbers that are safe integers. */
export interface MarginPart {
  add?: bigint | number;
  percent?: bigint | number;
}

/** How restore() sets the counters. */
export interface RestoreOptions extends CallOptions {
  /**
   * The margin above the backup's values; a part left out is 0. Without one (or with every part
   * 0) the counters get the backup's values, and the cluster may issue again the IDs the old one
   * issued after the backup was taken. `byRates: true` asks the margin `idctl restore` takes
   * without `--ahead`: each kind given no part (or only zeros) goes up by the backup's peak issue
   * rate × its age × 2 (a HiLo tag at least its last range), and the result's `rates` say what
   * that assumed (docs/backups.md, "A margin by rates by default").
   */
  ahead?: { identities?: MarginPart; hilo?: MarginPart; byRates?: boolean };
}

/** What a restore's margin by rates assumed (RestoreOptions' `byRates`). */
export interface RatesMargin {
  /** False for a backup of a build that recorded no rates: no margin was added. */
  recorded: boolean;
  identitiesPerSecond: number;
  hiloPerSecond: number;
  /** The leader's now minus the backup's time; 0 when that is in the future. */
  ageMs: bigint;
  /** The backup's time was after the leader's now (clock skew): taken as age 0. */
  takenInFuture: boolean;
  factor: bigint;
  takenAtMs: bigint;
}

/** The margin a caller asked for: its numbers, and whether the kinds given none go by rates. */
export interface AskedMargin {
  margin: RestoreMargin;
  byRates: boolean;
}

/** What a restore raised, beside what the backup held. */
export interface RestoreResult {
  identities: bigint;
  identitiesRaised: bigint;
  hiloTags: bigint;
  hiloRaised: bigint;
  tags: bigint;
  tagsRetired: bigint;
  claims: bigint;
  claimsRestored: bigint;
  series: bigint;
  seriesEntriesRestored: bigint;
  workers: bigint;
  workersRaised: bigint;
  /** The margin the restore applied, as asked; undefined when none was. */
  ahead: RestoreMargin | undefined;
  /** The fewest and the most numbers the margin skipped above one backup's identity counter (0 without a margin). */
  identitiesSkippedMin: bigint;
  identitiesSkippedMax: bigint;
  /** The same above one backup's HiLo Max. */
  hiloSkippedMin: bigint;
  hiloSkippedMax: bigint;
  /** Databases whose opaque setting and key the backup held, and how many turned opaque or gained opaque collections here. */
  opaqueDatabases: bigint;
  opaqueRestored: bigint;
  /** What the margin by rates assumed; undefined unless it was asked. */
  rates: RatesMargin | undefined;
}

/**
 * Thrown by restore() when the answer does not echo the margin asked: a node on the way runs a
 * build that knows no margins, so the counters are at the backup's values only. Upgrade it, then
 * restore again with the margin; a restore only raises, so repeating it is safe.
 */
export class MarginNotAppliedError extends IdnodeError {
  /** The restore's answer: what it did without the margin. */
  readonly result: RestoreResult;

  constructor(asked: AskedMargin, result: RestoreResult) {
    super(
      Code.FAILED_PRECONDITION,
      `idnode: the restore did not apply the margin asked (${marginText(asked.margin)}${asked.byRates ? ", the rest by rates" : ""}; ` +
        `applied ${result.ahead === undefined ? "none" : marginText(result.ahead)}${result.rates === undefined ? "" : ", the rest by rates"}): ` +
        "the counters are at the backup's values only; upgrade the nodes, then restore again with the margin",
      { reason: "MARGIN_NOT_APPLIED" },
    );
    this.result = result;
  }
}

/** The margin a caller asked for, every part checked as the node would (0 to the largest int64), or undefined for none. */
export function askedMargin(ahead: RestoreOptions["ahead"]): AskedMargin | undefined {
  const part = (kind: "identities" | "hilo"): CounterMargin => ({
    add: BigInt(int64(`ahead.${kind}.add`, ahead?.[kind]?.add ?? 0n, 0n)),
    percent: BigInt(int64(`ahead.${kind}.percent`, ahead?.[kind]?.percent ?? 0n, 0n)),
  });
  const byRates = ahead?.byRates ?? false;
  if (typeof byRates !== "boolean") {
    throw invalidInput(`ahead.byRates must be a boolean (got ${typeof byRates})`);
  }
  const margin = { identities: part("identities"), hilo: part("hilo") };
  return isZero(margin) && !byRates ? undefined : { margin, byRates };
}

/**
 * The margin as the first chunk of a restore carries it, int64s as decimal strings. By rates, a
 * kind is left out unless given a part, so that it takes the rates' margin.
 */
export function marginJson(asked: AskedMargin): JsonObject {
  const out: JsonObject = {};
  for (const kind of ["identities", "hilo"] as const) {
    const c = asked.margin[kind];
    if (!asked.byRates || c.add !== 0n || c.percent !== 0n) out[kind] = { add: c.add.toString(), percent: c.percent.toString() };
  }
  if (asked.byRates) out.byRates = true;
  return out;
}

/** A restore's answer, typed; throws MarginNotAppliedError when it does not echo the margin asked. */
export function restoreResult(r: JsonObject, asked: AskedMargin | undefined): RestoreResult {
  const result: RestoreResult = {
    identities: big(r, "identities"),
    identitiesRaised: big(r, "identitiesRaised"),
    hiloTags: big(r, "hiloTags"),
    hiloRaised: big(r, "hiloRaised"),
    tags: big(r, "tags"),
    tagsRetired: big(r, "tagsRetired"),
    claims: big(r, "claims"),
    claimsRestored: big(r, "claimsRestored"),
    series: big(r, "series"),
    seriesEntriesRestored: big(r, "seriesEntriesRestored"),
    workers: big(r, "workers"),
    workersRaised: big(r, "workersRaised"),
    ahead: answeredMargin(r),
    identitiesSkippedMin: big(r, "identitiesSkippedMin"),
    identitiesSkippedMax: big(r, "identitiesSkippedMax"),
    hiloSkippedMin: big(r, "hiloSkippedMin"),
    hiloSkippedMax: big(r, "hiloSkippedMax"),
    opaqueDatabases: big(r, "opaqueDatabases"),
    opaqueRestored: big(r, "opaqueRestored"),
    rates: answeredRates(r),
  };
  // A node of an older build echoes byRates among the fields it does not know: only the
  // answer's rates say that the margin by rates was taken.
  const applied = result.ahead === undefined ? "" : marginText(result.ahead);
  if (asked !== undefined && ((isZero(asked.margin) ? "" : marginText(asked.margin)) !== applied || (asked.byRates && result.rates === undefined))) {
    throw new MarginNotAppliedError(asked, result);
  }
  return result;
}

/** The answer's rates; undefined when it holds none (no margin by rates was asked). */
function answeredRates(r: JsonObject): RatesMargin | undefined {
  if (r.rates === undefined || r.rates === null) return undefined;
  const o = object(r.rates);
  return {
    recorded: bool(o, "recorded"),
    identitiesPerSecond: num(o, "identitiesPerSecond"),
    hiloPerSecond: num(o, "hiloPerSecond"),
    ageMs: big(o, "ageMs"),
    takenInFuture: bool(o, "takenInFuture"),
    factor: big(o, "factor"),
    takenAtMs: big(o, "takenAtMs"),
  };
}

/** The answer's margin; undefined when it holds none, or only zeros (as a margin asked never is). */
function answeredMargin(r: JsonObject): RestoreMargin | undefined {
  const a = r.ahead;
  if (a === undefined || a === null) return undefined;
  const part = (kind: string): CounterMargin => {
    const c = object(object(a)[kind]);
    return { add: big(c, "add"), percent: big(c, "percent") };
  };
  const m = { identities: part("identities"), hilo: part("hilo") };
  return isZero(m) ? undefined : m;
}

function isZero(m: RestoreMargin): boolean {
  return m.identities.add === 0n && m.identities.percent === 0n && m.hilo.add === 0n && m.hilo.percent === 0n;
}

function marginText(m: RestoreMargin): string {
  return `identities ${m.identities.add}+${m.identities.percent}%, hilo ${m.hilo.add}+${m.hilo.percent}%`;
}
