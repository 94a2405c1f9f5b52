import { ClosedError, Code, errorOf, IdnodeError } from "./errors.js";
import type { Logger } from "./log.js";
import { CallOptions, DEFAULT_CLOSE_TIMEOUT_MS, timeoutOf } from "./transport.js";

/**
 * How a numeric ID's 63 bits are split, from the top: timeBits of ticks (unitMs each) since
 * epochMs (Unix ms), workerBits of worker, sequenceBits of sequence within a tick.
 */
export interface Layout {
  epochMs: number;
  unitMs: number;
  timeBits: number;
  workerBits: number;
  sequenceBits: number;
}

/** The node's default: 41 bits of ms from 2026-01-01 UTC, 1024 workers, 4096 IDs per ms each. */
export const DEFAULT_LAYOUT: Readonly<Layout> = Object.freeze({ epochMs: Date.UTC(2026, 0, 1), unitMs: 1, timeBits: 41, workerBits: 10, sequenceBits: 12 });

/** IDs at or below 2^53−1, exact in a JSON number: 32 workers, 128 IDs per ms each. */
export const JS_SAFE_LAYOUT: Readonly<Layout> = Object.freeze({ epochMs: Date.UTC(2026, 0, 1), unitMs: 1, timeBits: 41, workerBits: 5, sequenceBits: 7 });

/** A worker lease as the cluster grants it: mint with ticks in (minMs, maxMs]. */
export interface WorkerLease {
  worker: number;
  epoch: bigint;
  minMs: bigint;
  maxMs: bigint;
  expiresAtMs: bigint;
}

/** The calls a numeric generator makes; the Client is one. */
export interface WorkerLeaser {
  acquireWorker(holder: string, workerBits: number, leaseMs: number, opts?: CallOptions): Promise<WorkerLease>;
  renewWorker(worker: number, epoch: bigint, leaseMs: number, opts?: CallOptions): Promise<WorkerLease>;
  releaseWorker(worker: number, epoch: bigint, opts?: CallOptions): Promise<void>;
  /** Told of the renewals that failed; none when absent. */
  readonly logger?: Logger;
}

export interface NumericOptions {
  /** Every generator of a database must use the same worker bits; default DEFAULT_LAYOUT. */
  layout?: Layout;
  /** Names this process in worker listings; default "typescript-client". */
  holder?: string;
  /** How long each lease runs, 1 s to 1 h (ms, default 30 000), renewed at a third of it. */
  leaseMs?: number;
  /** Minting stops this long before the lease could lapse (ms, default a tenth of leaseMs). */
  marginMs?: number;
  /** The clock read for every ID (ms since the Unix epoch); default Date.now. Tests set one. */
  clock?: () => number;
}

/** Why a numeric generator mints nothing now; the message says what to do. */
export class NumericError extends IdnodeError {
  constructor(message: string) {
    super(Code.FAILED_PRECONDITION, `idnode: ${message}`, { reason: "NUMERIC_UNAVAILABLE" });
  }
}

/** A worker lease's bounds, as the node takes them. */
export const MIN_LEASE_MS = 1000;
export const MAX_LEASE_MS = 3_600_000;

/** How far ahead of the clock a burst may borrow ticks before minting waits for time. */
const MAX_BORROW_MS = 1000;

function checkLayout(l: Layout): void {
  const bits = [l.timeBits, l.workerBits, l.sequenceBits];
  if (!bits.every((b) => Number.isInteger(b) && b >= 1) || l.timeBits + l.workerBits + l.sequenceBits > 63) {
    throw new RangeError(`idnode: a layout's bit counts are each at least 1 and together at most 63 (got ${bits.join("+")})`);
  }
  if (!Number.isSafeInteger(l.epochMs) || !Number.isInteger(l.unitMs) || l.unitMs < 1) {
    throw new RangeError(`idnode: a layout's epochMs is a whole Unix time in ms and unitMs at least 1 (got ${l.epochMs}, ${l.unitMs})`);
  }
}

/**
 * Mints numeric IDs (time | worker | sequence) in-process under a worker leased from the
 * cluster: next() makes no network call. It renews the lease at a third of its length, stops a
 * margin before the lease could lapse by the local clock, and never repeats an ID when the clock
 * steps back (it borrows ticks up to a second ahead, then refuses until time catches up).
 */
export class NumericGenerator {
  private readonly layout: Layout;
  private readonly seqBits: bigint;
  private readonly tickShift: bigint;
  private readonly seqMask: bigint;
  private readonly layoutMaxTick: bigint;
  private readonly borrowTicks: bigint;
  private readonly clock: () => number;
  private readonly leaseMs: number;
  private readonly marginMs: number;
  private grant: WorkerLease;
  private workerPart = 0n;
  private maxTick = 0n;
  private validUntil = 0;
  private last = -1n;
  private lost = false;
  private closed = false;
  private renewTimer: ReturnType<typeof setTimeout> | undefined;
  private closing: Promise<void> | null = null;
  /** The last renewal's failure, while renewals fail. */
  lastError: unknown;

  private constructor(private readonly leaser: WorkerLeaser, private readonly holder: string, opts: NumericOptions, grant: WorkerLease, sentAt: number) {
    this.layout = opts.layout ?? DEFAULT_LAYOUT;
    this.seqBits = BigInt(this.layout.sequenceBits);
    this.tickShift = BigInt(this.layout.workerBits + this.layout.sequenceBits);
    this.seqMask = (1n << this.seqBits) - 1n;
    this.layoutMaxTick = (1n << BigInt(this.layout.timeBits)) - 1n;
    this.borrowTicks = BigInt(Math.floor(MAX_BORROW_MS / this.layout.unitMs));
    this.clock = opts.clock ?? Date.now;
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.marginMs = opts.marginMs ?? this.leaseMs / 10;
    this.grant = grant;
    this.install(grant, sentAt, true);
    this.schedule(this.leaseMs / 3);
  }

  /** Takes a worker lease through leaser and returns a generator minting under it. */
  static async start(leaser: WorkerLeaser, opts: NumericOptions = {}): Promise<NumericGenerator> {
    const layout = opts.layout ?? DEFAULT_LAYOUT;
    checkLayout(layout);
    const leaseMs = opts.leaseMs ?? 30_000;
    if (!Number.isInteger(leaseMs) || leaseMs < MIN_LEASE_MS || leaseMs > MAX_LEASE_MS) throw new RangeError(`idnode: leaseMs must be ${MIN_LEASE_MS}..${MAX_LEASE_MS} (got ${leaseMs})`);
    const marginMs = opts.marginMs ?? leaseMs / 10;
    if (!(marginMs >= 0 && marginMs < leaseMs / 2)) throw new RangeError(`idnode: marginMs must be at least 0 and below half the lease (got ${marginMs})`);
    const holder = opts.holder ?? "typescript-client";
    const clock = opts.clock ?? Date.now;
    const sentAt = clock();
    const grant = await leaser.acquireWorker(holder, layout.workerBits, leaseMs);
    return new NumericGenerator(leaser, holder, { ...opts, layout, leaseMs, marginMs }, grant, sentAt);
  }

  /** The lease the generator mints under. */
  get lease(): Readonly<WorkerLease> {
    return this.grant;
  }

  private tickOfMs(ms: bigint): bigint {
    const d = ms - BigInt(this.layout.epochMs);
    const unit = BigInt(this.layout.unitMs);
    let tick = d / unit;
    if (d < 0n && d % unit !== 0n) tick--;
    return tick;
  }

  /** Makes a grant current; a new worker or epoch mints from the tick after the last ID. */
  private install(g: WorkerLease, sentAt: number, fresh: boolean): void {
    const minTick = this.tickOfMs(g.minMs) < -1n ? -1n : this.tickOfMs(g.minMs);
    const maxTick = this.tickOfMs(g.maxMs);
    if (maxTick <= minTick || minTick >= this.layoutMaxTick) {
      throw errorOf(Code.INTERNAL, `idnode: the cluster granted worker ${g.worker} an empty lease (${g.minMs}..${g.maxMs} ms)`);
    }
    if (fresh) this.last = this.last | this.seqMask;
    this.workerPart = BigInt(g.worker) << this.seqBits;
    this.maxTick = maxTick < this.layoutMaxTick ? maxTick : this.layoutMaxTick;
    const floor = (minTick << this.seqBits) | this.seqMask;
    if (floor > this.last) this.last = floor;
    // Counted from before the request went out, so the local end comes no later than the cluster's.
    this.validUntil = sentAt + this.leaseMs - this.marginMs;
  }

  /** A new ID, such as 123456789012345678n. Throws NumericError when it cannot mint now. */
  next(): bigint {
    if (this.closed) throw new ClosedError("numeric generator");
    if (this.lost) throw new NumericError("the worker lease was lost to another holder (it lapsed while this process could not renew it); a new one is being acquired, try again shortly");
    const now = this.clock();
    if (now >= this.validUntil) throw new NumericError("the worker lease expired: the cluster could not be reached to renew it; try again once it is");
    const nowTick = this.tickOfMs(BigInt(Math.floor(now)));
    let next = this.last + 1n;
    if (nowTick > next >> this.seqBits) next = nowTick << this.seqBits;
    const tick = next >> this.seqBits;
    if (tick > this.maxTick) throw new NumericError("the worker lease is used up to its last tick; it is being renewed, try again shortly");
    if (tick - nowTick > this.borrowTicks) throw new NumericError("the clock is behind the last ID minted (it stepped back, or IDs are taken faster than the layout allows); wait");
    this.last = next;
    return (tick << this.tickShift) | this.workerPart | (next & this.seqMask);
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    this.renewTimer = setTimeout(() => void this.renew(), ms);
    // A lease being renewed should not keep a Node process alive on its own.
    (this.renewTimer as unknown as { unref?: () => void }).unref?.();
  }

  private async renew(): Promise<void> {
    const sentAt = this.clock();
    const opts: CallOptions = { timeoutMs: this.leaseMs / 3 };
    try {
      if (this.lost) {
        const g = await this.leaser.acquireWorker(this.holder, this.layout.workerBits, this.leaseMs, opts);
        this.grant = g;
        this.install(g, sentAt, true);
        this.lost = false;
      } else {
        const g = await this.leaser.renewWorker(this.grant.worker, this.grant.epoch, this.leaseMs, opts);
        this.grant = g;
        this.install(g, sentAt, false);
      }
      this.lastError = undefined;
      this.schedule(this.leaseMs / 3);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      const fields = { worker: this.grant.worker, epoch: String(this.grant.epoch), error: why, retryInMs: this.leaseMs / 10 };
      if (this.lost) {
        this.leaser.logger?.warn(`idnode: a new worker lease could not be acquired after worker ${fields.worker} was lost; trying again in ${fields.retryInMs} ms: ${why}`, fields);
      } else if (e instanceof IdnodeError && e.code === Code.FAILED_PRECONDITION) {
        // Fenced: another holder has the worker now, so not one more ID under it.
        this.lost = true;
        this.leaser.logger?.error(`idnode: worker ${fields.worker} was lost to another holder (its lease lapsed unrenewed); no IDs until a new one is acquired: ${why}`, fields);
      } else {
        this.leaser.logger?.warn(`idnode: worker ${fields.worker}'s lease could not be renewed; trying again in ${fields.retryInMs} ms: ${why}`, fields);
      }
      this.lastError = e;
      this.schedule(this.leaseMs / 10);
    }
  }

  /**
   * Stops renewing and releases the worker; the generator mints nothing after. The release is
   * bounded by opts.timeoutMs (default DEFAULT_CLOSE_TIMEOUT_MS, 2 s) and opts.signal; one that
   * fails is logged, not thrown: the lease then lapses by itself.
   */
  close(opts: CallOptions = {}): Promise<void> {
    if (this.closing === null) this.closing = this.shutdown(opts);
    return this.closing;
  }

  private async shutdown(opts: CallOptions): Promise<void> {
    this.closed = true;
    if (this.renewTimer !== undefined) clearTimeout(this.renewTimer);
    if (this.lost) return;
    const { worker, epoch, expiresAtMs } = this.grant;
    try {
      await this.leaser.releaseWorker(worker, epoch, { signal: opts.signal, timeoutMs: timeoutOf(opts, DEFAULT_CLOSE_TIMEOUT_MS) });
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      const fields = { worker, epoch: String(epoch), expiresAtMs: String(expiresAtMs), error: why };
      this.leaser.logger?.warn(`idnode: worker ${worker} could not be released; its lease lapses by itself: ${why}`, fields);
    }
  }
}
