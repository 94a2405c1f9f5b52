import { Code, IdnodeError } from "./errors.js";
import { JsonObject, big, int64, object } from "./json.js";
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
   * issued after the backup was taken.
   */
  ahead?: { identities?: MarginPart; hilo?: MarginPart };
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
}

/**
 * Thrown by restore() when the answer does not echo the margin asked: a node on the way runs a
 * build that knows no margins, so the counters are at the backup's values only. Upgrade it, then
 * restore again with the margin; a restore only raises, so repeating it is safe.
 */
export class MarginNotAppliedError extends IdnodeError {
  /** The restore's answer: what it did without the margin. */
  readonly result: RestoreResult;

  constructor(asked: RestoreMargin, result: RestoreResult) {
    super(
      Code.FAILED_PRECONDITION,
      `idnode: the restore did not apply the margin asked (${marginText(asked)}; applied ${result.ahead === undefined ? "none" : marginText(result.ahead)}): ` +
        "the counters are at the backup's values only; upgrade the nodes, then restore again with the margin",
      { reason: "MARGIN_NOT_APPLIED" },
    );
    this.result = result;
  }
}

/** The margin a caller asked for, every part checked as the node would (0 to the largest int64), or undefined for none. */
export function askedMargin(ahead: RestoreOptions["ahead"]): RestoreMargin | undefined {
  const part = (kind: "identities" | "hilo"): CounterMargin => ({
    add: BigInt(int64(`ahead.${kind}.add`, ahead?.[kind]?.add ?? 0n, 0n)),
    percent: BigInt(int64(`ahead.${kind}.percent`, ahead?.[kind]?.percent ?? 0n, 0n)),
  });
  const m = { identities: part("identities"), hilo: part("hilo") };
  return isZero(m) ? undefined : m;
}

/** The margin as the first chunk of a restore carries it, int64s as decimal strings. */
export function marginJson(m: RestoreMargin): JsonObject {
  const part = (c: CounterMargin): JsonObject => ({ add: c.add.toString(), percent: c.percent.toString() });
  return { identities: part(m.identities), hilo: part(m.hilo) };
}

/** A restore's answer, typed; throws MarginNotAppliedError when it does not echo the margin asked. */
export function restoreResult(r: JsonObject, asked: RestoreMargin | undefined): RestoreResult {
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
  };
  if (asked !== undefined && marginText(asked) !== (result.ahead === undefined ? "" : marginText(result.ahead))) {
    throw new MarginNotAppliedError(asked, result);
  }
  return result;
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
