import { ClosedError, Code, IdnodeError, errorOf, invalidInput } from "./errors.js";
import { Refusals } from "./refusals.js";
import { atExit } from "./exit.js";
import type { Logger } from "./log.js";
import { CallOptions, DEFAULT_CLOSE_TIMEOUT_MS, Deadline } from "./transport.js";

/** A HiLo range the cluster reserved: numbers low..high, printed with prefix and serverTag. */
export interface HiLoRange {
  prefix: string;
  low: bigint;
  high: bigint;
  lastSize: bigint;
  serverTag: string;
  lastRangeAt: bigint;
  /** What a return of this range presents: only its grantee may give it back. */
  grantId: string;
}

/** What NextHiLo is told about the caller's previous range, so the cluster can size the next. */
export interface NextHiLoRequest {
  lastBatchSize?: bigint;
  lastRangeAt?: bigint;
  lastMax?: bigint;
  /** A separator for the prefix other than the cluster's. */
  separator?: string;
  /** Kept across retries so a retry never reserves a second range. */
  requestId?: string;
}

/** The unused numbers last+1..end of a range, given back with its grant id. */
export interface HiLoReturn {
  end: bigint;
  last: bigint;
  grantId: string;
  /** Names the return for its retries; the client makes one when it is left out. */
  requestId?: string;
}

/** Options of a call that must get out while the page or process goes away. */
export interface ReturnOptions extends CallOptions {
  keepalive?: boolean;
}

/** The two calls a generator makes; the Client is one, tests use an in-memory one. */
export interface RangeSource {
  /** Reserves a range; the attempts that fail go to refusals, whose most telling one a caller whose wait ends is told of. */
  nextHiLo(tag: string, req: NextHiLoRequest, opts?: CallOptions, refusals?: Refusals): Promise<HiLoRange>;
  returnHiLo(tag: string, ret: HiLoReturn, opts?: ReturnOptions): Promise<boolean>;
  /** Told of the ranges that could not be given back; none when absent. */
  readonly logger?: Logger;
}

export interface HiLoOptions {
  /** Fraction of a range handed out, at the latest, before the next is fetched: (0, 1], default 0.8. */
  prefetchAt?: number;
  /** Bounds one range fetch, its retries included (ms, default 30 000). */
  fetchTimeoutMs?: number;
  /** The cluster's separator (default "/"), which tags are checked against and the prefix uses. */
  separator?: string;
  /** false: RavenDB's tagless format "orders/1" instead of "orders/1-A". */
  nodeTag?: boolean;
  /** RavenDB 3.x's server prefix: "orders/NorthServer/1-A". */
  serverPrefix?: string;
  /**
   * Give the unused numbers back when the process exits or the page is hidden (default true). A
   * page hidden into the back/forward cache may be shown again: the generator stays open and
   * takes a new range when next asked.
   */
  returnAtExit?: boolean;
}

/** What a generator did so far. */
export interface HiLoStats {
  /** Ranges received. */
  fetches: number;
  /** Fetches that failed. */
  failures: number;
  /** next() calls that had to wait for a fetch (the first call always does). */
  waits: number;
  /** Size of the newest range. */
  rangeSize: number;
  /** Whether close() gave unused numbers back. */
  returned: boolean;
  /**
   * Numbers close() could not give back because no node took the return within its bound: gaps,
   * each range also logged (warn) at the client's logger.
   */
  unreturned: number;
}

export const DEFAULT_PREFETCH_AT = 0.8;
export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;

/** A single printable character other than "|": the cluster's separator rule. */
export function checkSeparator(sep: string): void {
  if ([...sep].length !== 1 || sep === "|" || /[\p{Cc}\p{Cf}\s]/u.test(sep)) {
    throw invalidInput(`the separator must be one printable character other than "|" (got ${JSON.stringify(sep)})`);
  }
}

/** The checks the node makes of a HiLo tag that a generator can make before any call. */
export function checkHiLoTag(tag: string, sep: string): void {
  if (tag.trim() === "") throw invalidInput(`hilo tag is blank: ${JSON.stringify(tag)}`);
  if (tag.endsWith(sep)) throw invalidInput(`hilo tag ends with the separator "${sep}": give the tag without it (${JSON.stringify(tag)})`);
  if (tag.endsWith("|")) throw invalidInput(`hilo tag ends with "|": give the tag without it (${JSON.stringify(tag)})`);
}

/** A reserved range callers take numbers from: taker k (1-based) gets low+k−1 while k <= size. */
class Span {
  used = 0;
  readonly size: number;
  /** The taker of this number starts the next range's fetch; set when the span becomes current. */
  trigger: number;
  /** When the span became current (performance.now()). */
  since = 0;
  /** low as a number when every number of the range is exact in one (always, short of 2^53). */
  private readonly lowNumber: number;
  private readonly safe: boolean;

  constructor(
    readonly low: bigint,
    readonly high: bigint,
    private readonly prefix: string,
    private readonly suffix: string,
    readonly grantId: string,
  ) {
    this.size = Number(high - low + 1n);
    this.trigger = this.size;
    this.safe = high <= BigInt(Number.MAX_SAFE_INTEGER);
    this.lowNumber = Number(low);
  }

  format(k: number): string {
    return this.safe ? this.prefix + (this.lowNumber + k - 1) + this.suffix : this.prefix + (this.low + BigInt(k - 1)).toString() + this.suffix;
  }
}

interface Fetch {
  seq: number;
  done: Promise<void>;
  error?: unknown;
  /** Its call's failed attempts so far. */
  refusals: Refusals;
}

/** Errors after which a new request id is due: the node refused the request, it reserved nothing. */
function definite(err: unknown): boolean {
  if (!(err instanceof IdnodeError)) return true;
  switch (err.code) {
    case Code.INVALID_ARGUMENT:
    case Code.FAILED_PRECONDITION:
    case Code.OUT_OF_RANGE:
    case Code.PERMISSION_DENIED:
    case Code.UNAUTHENTICATED:
    case Code.UNIMPLEMENTED:
      return true;
  }
  return false;
}

/**
 * A request id: a random (version 4) UUID. Node 18 has fetch but no global crypto, so there the
 * bytes come from Math.random: a request id must be unique, not secret, and 122 random bits
 * from a generator seeded per process make a repeat as unlikely as from crypto.
 */
export function newRequestId(prefix = ""): string {
  const crypto = (globalThis as { crypto?: Crypto }).crypto;
  if (typeof crypto?.randomUUID === "function") return prefix + crypto.randomUUID();
  const b = new Uint8Array(16);
  if (typeof crypto?.getRandomValues === "function") crypto.getRandomValues(b);
  else for (let i = 0; i < 16; i++) b[i] = Math.floor(Math.random() * 256);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${prefix}${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Checks an option that is a number of milliseconds. */
export function positiveMs(name: string, v: number | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`idnode: ${name} must be a positive number of milliseconds (got ${v})`);
  return v;
}

/**
 * Prints HiLo IDs for one tag ("orders" → "orders/1-A", …) from ranges the cluster reserved for
 * it alone. `await gen.next()` resolves from the current range with no network round trip: the
 * next range is fetched in the background once 80% of the current one is handed out, so callers
 * wait only on the first call (or when they outrun a fetch). It never hands out a number twice,
 * however many tasks call it: taking a number is one synchronous step. close() gives back what
 * it did not hand out; so does the end of the process, where the runtime allows.
 */
export class HiLoGenerator {
  readonly tag: string;
  private readonly src: RangeSource;
  private readonly prefetchAt: number;
  private readonly fetchTimeoutMs: number;
  private readonly separator: string | undefined;
  private readonly nodeTag: boolean;
  private readonly serverPrefix: string | undefined;
  private cur: Span | null = null;
  private prefetched: Span | null = null;
  private inflight: Fetch | null = null;
  private fetchSeq = 0;
  /** A request whose outcome is unknown: retried with its request id. */
  private pending: NextHiLoRequest | null = null;
  private lastSize = 0n;
  private lastAt = 0n;
  private lastMax = 0n;
  /** How long the last range fetch took (ms). */
  private fetchMs = 0;
  private closed = false;
  private closing: Promise<void> | null = null;
  /** The returns of the end of the program or page under way; next() waits for them. */
  private givingBack: Promise<void> | null = null;
  private readonly fetchAbort = new AbortController();
  private readonly unregister: () => void;
  private readonly counters: HiLoStats = { fetches: 0, failures: 0, waits: 0, rangeSize: 0, returned: false, unreturned: 0 };

  constructor(src: RangeSource, tag: string, opts: HiLoOptions = {}) {
    const sep = opts.separator ?? "/";
    checkSeparator(sep);
    checkHiLoTag(tag, sep);
    const prefetchAt = opts.prefetchAt ?? DEFAULT_PREFETCH_AT;
    if (!(prefetchAt > 0 && prefetchAt <= 1)) throw new RangeError(`idnode: prefetchAt must be in (0, 1] (got ${prefetchAt})`);
    if (opts.serverPrefix !== undefined && (opts.serverPrefix === "" || opts.serverPrefix.includes(sep) || opts.serverPrefix.includes("|"))) {
      throw invalidInput(`hilo server prefix must be one non-empty word without the separator or "|" (got ${JSON.stringify(opts.serverPrefix)})`);
    }
    this.src = src;
    this.tag = tag;
    this.prefetchAt = prefetchAt;
    this.fetchTimeoutMs = positiveMs("fetchTimeoutMs", opts.fetchTimeoutMs, DEFAULT_FETCH_TIMEOUT_MS);
    this.separator = opts.separator;
    this.nodeTag = opts.nodeTag ?? true;
    this.serverPrefix = opts.serverPrefix;
    this.unregister = opts.returnAtExit === false ? () => undefined : atExit((keepalive) => this.giveBack({ keepalive }));
  }

  /**
   * The next ID, such as "orders/17-A". It waits for the network only when the range is used up
   * (and on the first call); opts bounds that wait: when its signal or timeoutMs ends it first,
   * the error is DEADLINE_EXCEEDED (CANCELLED for an aborted signal) with the reason the nodes
   * refused the range's fetch with, such as NO_QUORUM. The fetch goes on for the next caller.
   */
  async next(opts?: CallOptions): Promise<string> {
    const s = this.cur;
    if (s !== null && s.used < s.size) {
      const k = ++s.used;
      if (k === s.trigger) this.prefetch(s);
      return s.format(k);
    }
    const deadline = opts === undefined ? undefined : new Deadline(opts, this.fetchTimeoutMs);
    try {
      return await this.slow(deadline);
    } finally {
      deadline?.dispose();
    }
  }

  /** What the generator did so far. */
  get stats(): Readonly<HiLoStats> {
    return { ...this.counters };
  }

  private prefetch(s: Span): void {
    if (!this.closed && this.prefetched === null && this.inflight === null && this.cur === s) this.startFetch();
  }

  /** The current range is used up (or there is none): move on to the prefetched one, or wait for a fetch until deadline. */
  private async slow(deadline: Deadline | undefined): Promise<string> {
    let since = 0; // fetches from this sequence number on began after this call did
    let waited = false;
    for (;;) {
      if (this.closed) throw new ClosedError(`the HiLo generator for ${JSON.stringify(this.tag)}`);
      const s = this.cur;
      if (s !== null && s.used < s.size) {
        const k = ++s.used;
        if (k === s.trigger) this.prefetch(s);
        return s.format(k);
      }
      if (this.prefetched !== null) {
        this.makeCurrent(this.prefetched);
        this.prefetched = null;
        continue;
      }
      if (this.givingBack !== null) {
        await this.givingBack;
        continue;
      }
      if (since === 0) since = this.fetchSeq + 1;
      const f = this.inflight ?? this.startFetch();
      if (!waited) {
        waited = true;
        this.counters.waits++;
      }
      if (deadline === undefined) await f.done;
      else if (!(await deadline.within(f.done))) throw deadline.error(f.refusals);
      // A fetch that began after this call did failed: report it. One that began earlier (a
      // prefetch) gets one more try on this caller's behalf.
      if (f.error !== undefined && f.seq >= since) throw f.error;
    }
  }

  private startFetch(): Fetch {
    const req: NextHiLoRequest = this.pending ?? {
      lastBatchSize: this.lastSize,
      lastRangeAt: this.lastAt,
      lastMax: this.lastMax,
      separator: this.separator,
      requestId: newRequestId("hilo-"),
    };
    this.pending = req;
    const f: Fetch = { seq: ++this.fetchSeq, done: Promise.resolve(), refusals: new Refusals() };
    this.inflight = f;
    f.done = this.runFetch(f, req);
    return f;
  }

  private async runFetch(f: Fetch, req: NextHiLoRequest): Promise<void> {
    const startedAt = performance.now();
    try {
      const r = await this.src.nextHiLo(this.tag, req, { signal: this.fetchAbort.signal, timeoutMs: this.fetchTimeoutMs }, f.refusals);
      const s = this.spanOf(r);
      this.pending = null;
      this.counters.fetches++;
      this.counters.rangeSize = s.size;
      this.lastSize = BigInt(s.size);
      this.lastAt = r.lastRangeAt;
      this.lastMax = r.high;
      const cur = this.cur;
      this.fetchMs = performance.now() - startedAt;
      if (!this.closed && (cur === null || cur.used >= cur.size)) this.makeCurrent(s);
      else this.prefetched = s; // after close, kept for close to return
    } catch (e) {
      this.counters.failures++;
      if (definite(e)) this.pending = null;
      f.error = e;
    } finally {
      this.inflight = null;
    }
  }

  /**
   * Hands s to the callers and sets when its successor is fetched: at prefetchAt of it at the
   * latest, earlier when the rate the range before it was used at would use up the rest within
   * two fetch times (a range of a million lasts 70 ms at 14 M IDs/s, less than 20% of it is
   * shorter than a fetch).
   */
  private makeCurrent(s: Span): void {
    const now = performance.now();
    const prev = this.cur;
    let trigger = Math.floor(s.size * this.prefetchAt);
    if (prev !== null && prev.used >= prev.size && this.fetchMs > 0) {
      const perMs = prev.size / Math.max(now - prev.since, 0.001);
      trigger = Math.min(trigger, s.size - Math.ceil(perMs * this.fetchMs * 2));
    }
    s.trigger = Math.min(Math.max(trigger, 1), s.size);
    s.since = now;
    this.cur = s;
  }

  private spanOf(r: HiLoRange): Span {
    if (r.low < 1n || r.high < r.low || r.high - r.low >= 2n ** 31n) {
      throw errorOf(Code.INTERNAL, `idnode: the node answered ${JSON.stringify(this.tag)} with an invalid range [${r.low}, ${r.high}]`);
    }
    if (r.low <= this.lastMax && r.high > this.lastMax - this.lastSize) {
      // Ranges of a tag never overlap. A range may lie below the previous one (a node cut off
      // from the majority grants from its pool below last_max), never on it: refuse rather than
      // risk printing a number twice.
      throw errorOf(Code.INTERNAL, `idnode: the node answered ${JSON.stringify(this.tag)} with [${r.low}, ${r.high}], overlapping the previous range [${this.lastMax - this.lastSize + 1n}, ${this.lastMax}]`);
    }
    if (r.prefix === "" || r.serverTag === "") {
      throw errorOf(Code.INTERNAL, `idnode: the node answered ${JSON.stringify(this.tag)} without a prefix or server tag`);
    }
    let prefix = r.prefix;
    if (this.serverPrefix !== undefined) prefix += this.serverPrefix + prefix.slice(-1);
    const suffix = this.nodeTag ? `-${r.serverTag}` : "";
    return new Span(r.low, r.high, prefix, suffix, r.grantId);
  }

  /**
   * Stops the generator and gives back every number it did not hand out: the prefetched range
   * whole, then the unused tail of the current one, each to the node that granted it. What the
   * cluster will not take back (a tail under another client's newer range) stays a gap, which
   * HiLo allows. Waits for a fetch in flight. All of it within opts.timeoutMs (default
   * DEFAULT_CLOSE_TIMEOUT_MS, 2 s) and opts.signal: numbers no node took back by then stay gaps,
   * counted in stats.unreturned and logged, never thrown. Calling it again returns the first
   * call's promise.
   */
  close(opts: ReturnOptions = {}): Promise<void> {
    if (this.closing === null) this.closing = this.shutdown(opts);
    return this.closing;
  }

  private async shutdown(opts: ReturnOptions): Promise<void> {
    this.closed = true;
    this.unregister();
    const held = this.takeCurrent(); // from now on next() hands out nothing
    const bound = new Deadline(opts, DEFAULT_CLOSE_TIMEOUT_MS);
    const onEnd = (): void => this.fetchAbort.abort(); // a range reserved anyway is a gap
    bound.signal.addEventListener("abort", onEnd, { once: true });
    try {
      await this.inflight?.done;
      this.fetchAbort.abort();
      await this.givingBack;
      await this.returnUnused(held, { keepalive: opts.keepalive, signal: bound.signal });
    } finally {
      bound.signal.removeEventListener("abort", onEnd);
      bound.dispose();
    }
  }

  /**
   * Gives back what was not handed out when the program ends or the page is hidden, and stays
   * open: a page can come back from the back/forward cache, and its next call takes a new range.
   * Waits for a fetch in flight first (Node's beforeExit comes only when none is), so that its
   * range is given back too.
   */
  private giveBack(opts: ReturnOptions): Promise<void> {
    if (this.givingBack === null) {
      const done = (async () => {
        await this.inflight?.done;
        await this.returnUnused(this.takeCurrent(), opts);
      })().finally(() => {
        if (this.givingBack === done) this.givingBack = null;
      });
      this.givingBack = done;
    }
    return this.givingBack;
  }

  /** Takes the current range from the callers: what was taken of it is what was handed out. */
  private takeCurrent(): { cur: Span | null; used: number } {
    const cur = this.cur;
    this.cur = null;
    return { cur, used: cur === null ? 0 : Math.min(cur.used, cur.size) };
  }

  /**
   * Gives back the prefetched range whole, then the tail of cur past its first used numbers,
   * each to the node that granted it. The next range may then start at the numbers given back:
   * lastMax, which the cluster starts ranges above, becomes the highest number that did not
   * come back. A return no node took is a gap: logged and counted (stats.unreturned), not thrown,
   * and the other return is still tried.
   */
  private async returnUnused({ cur, used }: { cur: Span | null; used: number }, opts: ReturnOptions): Promise<void> {
    const next = this.prefetched;
    this.prefetched = null;
    // Newest first: the current range's tail can come back only once the prefetched range,
    // right above it, did. When they are not adjacent (HiLo pools: the prefetch may come from
    // another node's pool) the tail may come back though the prefetched range did not.
    const returns: HiLoReturn[] = [];
    if (next !== null) returns.push({ end: next.high, last: next.low - 1n, grantId: next.grantId });
    if (cur !== null && used < cur.size) returns.push({ end: cur.high, last: cur.low + BigInt(used) - 1n, grantId: cur.grantId });
    // The tail below a prefetched range right above it cannot come back while that range is out.
    const stacked = returns.length === 2 && next !== null && cur !== null && next.low === cur.high + 1n;
    let allBack = true;
    for (const [i, ret] of returns.entries()) {
      const fields = { tag: this.tag, first: String(ret.last + 1n), last: String(ret.end), grantId: ret.grantId };
      let returned: boolean;
      try {
        returned = await this.src.returnHiLo(this.tag, ret, opts);
      } catch (e) {
        this.lost(ret, e instanceof Error ? e.message : String(e));
        if (i === 0 && stacked) {
          this.lost(returns[1] as HiLoReturn, "the range right above them could not be given back");
          break;
        }
        allBack = false;
        continue;
      }
      if (returned) {
        this.counters.returned = true;
        if (allBack) this.lastMax = ret.last;
      } else {
        this.src.logger?.info(`idnode: hilo ${this.tag}: numbers ${fields.first}..${fields.last} were not taken back: the cluster handed out numbers above them since`, fields);
        allBack = false;
        if (i === 0 && stacked) break; // a newer range stays right above: the tail below it cannot come back
      }
    }
  }

  /** Counts ret's numbers as a gap close could not avoid (stats.unreturned) and logs them. */
  private lost(ret: HiLoReturn, why: string): void {
    const fields = { tag: this.tag, first: String(ret.last + 1n), last: String(ret.end), grantId: ret.grantId };
    this.src.logger?.warn(`idnode: hilo ${this.tag}: numbers ${fields.first}..${fields.last} could not be given back and are lost: ${why}`, { ...fields, error: why });
    this.counters.unreturned += Number(ret.end - ret.last);
  }
}

/** One HiLo generator per tag, made on first use, all with the same options. */
export class HiLoGenerators {
  private readonly gens = new Map<string, HiLoGenerator>();
  private closed = false;

  constructor(private readonly src: RangeSource, private readonly opts: HiLoOptions = {}) {}

  /** The generator of tag. */
  get(tag: string): HiLoGenerator {
    if (this.closed) throw new ClosedError("the HiLo generators");
    let g = this.gens.get(tag);
    if (g === undefined) {
      g = new HiLoGenerator(this.src, tag, this.opts);
      this.gens.set(tag, g);
    }
    return g;
  }

  /** The next ID of tag, such as "orders/17-A"; opts bounds a wait for a range (HiLoGenerator.next). */
  next(tag: string, opts?: CallOptions): Promise<string> {
    try {
      return this.get(tag).next(opts);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** Closes every generator at once (see HiLoGenerator.close), each within opts' bound. */
  async close(opts: ReturnOptions = {}): Promise<void> {
    this.closed = true;
    await Promise.all([...this.gens.values()].map((g) => g.close(opts)));
  }

  /** The numbers the generators' close could not give back (HiLoStats.unreturned), in all. */
  get unreturned(): number {
    let n = 0;
    for (const g of this.gens.values()) n += g.stats.unreturned;
    return n;
  }
}
