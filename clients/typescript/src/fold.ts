/**
 * Folding of concurrent single identities: nextIdentity calls for one value of the same counter
 * made at the same time share one call for n values, whose block is split among them in arrival
 * order (the Go client's client/fold.go, the Python client's _fold.py).
 *
 * Each identity is a Raft round on the cluster and each call an HTTP exchange both ends pay
 * for; one call for n values costs about what a call for one costs, so many callers of one
 * counter cost about one call a round instead of one each.
 *
 * Real-time order holds: a caller only ever joins a batch that has not been sent, so a batch is
 * sent after every caller in it arrived, and the cluster numbers it after every call that had
 * returned by then. Each batch has a request id of its own, which the transport's retries reuse
 * (a retry never burns values). It runs until the earliest deadline among its callers and stops
 * when every one of them has given up, so no batch outlives the callers it serves.
 */
import type { IdentityBlock } from "./client.js";
import { newRequestId } from "./hilo.js";
import type { IdnodeError } from "./errors.js";
import { Refusals } from "./refusals.js";
import { CallOptions, endedError, timeoutOf, timerDelay } from "./transport.js";

/**
 * The batches of one counter on the wire at once: while one is in a Raft round the next gathers
 * callers. A second one only waits at the leader for the round in progress (measured in Go).
 */
export const FOLD_MAX_IN_FLIGHT = 1;
/** The callers one batch serves at most, far below the server's largest count (100,000). */
export const FOLD_MAX_BATCH = 1024;
/** The longest the next batch waits for the callers the last one answered (ms). */
export const FOLD_REGATHER_MAX_MS = 1;

/** One call for count values of name under requestId, ended by signal; its failed attempts go to refusals. */
export type SendIdentities = (name: string, count: number, requestId: string, signal: AbortSignal, refusals: Refusals) => Promise<IdentityBlock>;

/**
 * A caller waiting for its value. Its deadline is a time that its counter's one timer watches
 * and, when it gave one, a listener on its signal, rather than a Deadline or a timer of its own:
 * an AbortController a caller was the largest cost of a folded identity in Node, and a timer a
 * caller the next, where a batch serves up to 1024 callers on one call's cost.
 */
interface Waiter {
  /** When its timeoutMs (or the client's) passes, by performance.now(). */
  expiresAt: number;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  /** Its deadline passed or its signal was aborted (a deadline passing in a batch is seen at its end). */
  ended: boolean;
  /** Its own timeoutMs passed. */
  timedOut: boolean;
  /** The batch it is in; undefined while queued, and once answered or gone. */
  batch: Batch | undefined;
  resolve: (block: IdentityBlock) => void;
  reject: (err: unknown) => void;
}

/**
 * The error of a caller whose deadline ended while it waited, with the most telling refusal of
 * the batch it waited in or for: the nodes' reason, not only that time ran out.
 */
function endedErrorOf(w: Waiter, refusals: Refusals | undefined): IdnodeError {
  return endedError(w.timedOut, w.signal?.reason, refusals);
}

/** Stops w's signal listener: it is answered or gone. */
function dispose(w: Waiter): void {
  if (w.onAbort !== undefined) w.signal?.removeEventListener("abort", w.onAbort);
}

interface Batch {
  waiters: Waiter[];
  /** Aborted at the earliest deadline of its callers, or once every one of them has left. */
  controller: AbortController;
  /** Its callers still waiting for it: the last one to leave stops it. */
  waiting: number;
  expiresAt: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  timedOut: boolean;
  /** Its call's failed attempts so far. */
  refusals: Refusals;
}

interface Counter {
  queue: Waiter[];
  inFlight: number;
  /** When > 0, the next batch waits until the queue is this long or regatherTimer fires. */
  regather: number;
  regatherTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * Fires at expiryAt, no later than the earliest deadline of the queued callers, to end those
   * whose deadline passed; a caller in a batch is ended by the batch's own timer.
   */
  expiryTimer: ReturnType<typeof setTimeout> | undefined;
  expiryAt: number;
  /** The failed attempts of its latest batch, which the queued callers wait behind. */
  refusals: Refusals | undefined;
}

/** The values of a block one at a time, the claimed ones left out; undefined once it is used up. */
function valuesOf(block: IdentityBlock): () => bigint | undefined {
  const skipped = block.skipped.length > 0 ? new Set(block.skipped) : undefined;
  let v = block.first;
  return () => {
    while (v <= block.last) {
      const value = v++;
      if (skipped === undefined || !skipped.has(value)) return value;
    }
    return undefined;
  };
}

export class IdentityFold {
  /** By name as the callers spell it; a counter goes once idle, so hostile names cannot pile up. */
  readonly counters = new Map<string, Counter>();

  /** send makes the batches' calls; a caller with no timeoutMs of its own waits defaultTimeoutMs. */
  constructor(
    private readonly send: SendIdentities,
    private readonly defaultTimeoutMs: number,
  ) {}

  /** One value of counter name, shared in a batch with the callers of the same moment. */
  next(name: string, opts: CallOptions = {}): Promise<IdentityBlock> {
    let ms: number;
    try {
      ms = timeoutOf(opts, this.defaultTimeoutMs);
    } catch (e) {
      return Promise.reject(e);
    }
    const signal = opts.signal;
    if (signal?.aborted === true) return Promise.reject(endedError(false, signal.reason));
    return new Promise<IdentityBlock>((resolve, reject) => {
      const w: Waiter = {
        expiresAt: performance.now() + ms,
        signal,
        onAbort: undefined,
        ended: false,
        timedOut: false,
        batch: undefined,
        resolve,
        reject,
      };
      let c = this.counters.get(name);
      if (c === undefined) {
        c = { queue: [], inFlight: 0, regather: 0, regatherTimer: undefined, expiryTimer: undefined, expiryAt: Infinity, refusals: undefined };
        this.counters.set(name, c);
      }
      const counter = c;
      if (signal !== undefined) {
        w.onAbort = () => this.leave(name, counter, w);
        signal.addEventListener("abort", w.onAbort, { once: true });
      }
      counter.queue.push(w);
      this.watch(name, counter, w.expiresAt);
      if (counter.regather > 0 && counter.queue.length >= counter.regather) this.endRegather(name, counter);
      else this.start(name, counter);
    });
  }

  /**
   * Takes w, whose caller aborted its signal, out of the queue or its batch. A value the batch
   * still reserves for a caller that left is a gap, as for any call given up after it was sent.
   */
  private leave(name: string, c: Counter, w: Waiter): void {
    w.ended = true;
    const b = w.batch;
    if (b !== undefined) {
      w.batch = undefined;
      if (--b.waiting === 0) b.controller.abort();
    } else {
      const i = c.queue.indexOf(w);
      if (i < 0) return; // answered already
      c.queue.splice(i, 1);
      this.dropIdle(name, c);
    }
    dispose(w);
    w.reject(endedErrorOf(w, b?.refusals ?? c.refusals));
  }

  /** Makes c's expiry timer fire by expiresAt. */
  private watch(name: string, c: Counter, expiresAt: number): void {
    if (expiresAt >= c.expiryAt) return;
    clearTimeout(c.expiryTimer);
    c.expiryAt = expiresAt;
    // For a deadline further off than a timer holds, the timer fires early and expire watches again.
    c.expiryTimer = setTimeout(() => this.expire(name, c), timerDelay(expiresAt - performance.now()));
  }

  /**
   * Ends the queued callers whose deadline passed and watches the earliest of the others. A
   * caller whose deadline passes while in a batch stays: the batch ends by that deadline too
   * and then says more than the deadline would, what the nodes answered.
   */
  private expire(name: string, c: Counter): void {
    c.expiryTimer = undefined;
    c.expiryAt = Infinity;
    const now = performance.now();
    let earliest = Infinity;
    const kept: Waiter[] = [];
    for (const w of c.queue) {
      if (w.expiresAt <= now) {
        w.ended = true;
        w.timedOut = true;
        dispose(w);
        w.reject(endedErrorOf(w, c.refusals));
      } else {
        kept.push(w);
        earliest = Math.min(earliest, w.expiresAt);
      }
    }
    c.queue = kept;
    this.watch(name, c, earliest);
    this.dropIdle(name, c);
  }

  /** Sends the next batch of c, the oldest callers first, if one may go now. */
  private start(name: string, c: Counter): void {
    if (c.queue.length === 0 || c.inFlight >= FOLD_MAX_IN_FLIGHT || c.regather > 0) return;
    const waiters = c.queue.splice(0, FOLD_MAX_BATCH);
    const b: Batch = {
      waiters,
      controller: new AbortController(),
      waiting: waiters.length,
      expiresAt: Infinity,
      timer: undefined,
      timedOut: false,
      refusals: new Refusals(),
    };
    c.refusals = b.refusals;
    for (const w of waiters) {
      w.batch = b;
      b.expiresAt = Math.min(b.expiresAt, w.expiresAt);
    }
    // A TimeoutError reason makes the transport end the call with DEADLINE_EXCEEDED, as the
    // caller's own timeoutMs would have.
    b.timer = setTimeout(() => {
      b.timedOut = true;
      b.controller.abort(new DOMException("the earliest deadline of a folded batch passed", "TimeoutError"));
    }, timerDelay(b.expiresAt - performance.now()));
    c.inFlight++;
    void this.run(name, c, b);
  }

  private async run(name: string, c: Counter, b: Batch): Promise<void> {
    const sent = performance.now();
    let block: IdentityBlock | undefined;
    let error: unknown;
    try {
      block = await this.send(name, b.waiters.length, newRequestId(), b.controller.signal, b.refusals);
    } catch (e) {
      error = e;
    }
    const round = performance.now() - sent;
    clearTimeout(b.timer);
    c.inFlight--;
    const answered = this.finish(name, c, b, block, error);
    this.regatherAfter(name, c, answered, round);
    this.start(name, c);
    this.dropIdle(name, c);
  }

  /**
   * Hands the batch's answer out: one value to each caller still waiting, in arrival order, or
   * the error to all of them. Callers go back to the head of the queue, for the next batch, when
   * the block ends before their turn (the cluster ends a block early that steps over many
   * claimed values) or when the batch was stopped by another caller's deadline while theirs has
   * not passed (a value it may have reserved for them is a gap, never a duplicate: the next
   * batch has a request id of its own). Returns how many callers got a value.
   */
  private finish(name: string, c: Counter, b: Batch, block: IdentityBlock | undefined, error: unknown): number {
    const next = block === undefined ? undefined : valuesOf(block);
    const now = performance.now();
    const back: Waiter[] = [];
    let answered = 0;
    for (const w of b.waiters) {
      if (w.batch !== b) continue; // left
      w.batch = undefined;
      const v = next?.();
      if (v !== undefined) {
        dispose(w);
        w.resolve({ first: v, last: v, skipped: [] });
        answered++;
        continue;
      }
      if (!w.ended && w.expiresAt <= now) {
        w.ended = true;
        w.timedOut = true;
      }
      if (w.ended) {
        dispose(w);
        w.reject(next === undefined ? error : endedErrorOf(w, b.refusals)); // its timeoutMs passed in the batch
      } else if (next !== undefined || (b.timedOut && w.expiresAt > b.expiresAt)) {
        back.push(w);
        this.watch(name, c, w.expiresAt);
      } else {
        dispose(w);
        w.reject(error);
      }
    }
    c.queue.unshift(...back);
    return answered;
  }

  /**
   * Holds c's next batch until the callers the last batch answered are queued again, or for a
   * quarter of that batch's round (at most FOLD_REGATHER_MAX_MS). Callers that loop, taking one
   * ID after another, come back in the same turn of the event loop; without the wait the next
   * batch would go with only those that queued during the round, and the ones just answered
   * would wait a whole round for the one after: two halves taking turns, each round carrying
   * half the callers. The wait is bounded, so callers that do not come back cost little.
   */
  private regatherAfter(name: string, c: Counter, answered: number, round: number): void {
    const want = c.queue.length + answered;
    if (answered === 0 || want > FOLD_MAX_BATCH) return;
    c.regather = want;
    clearTimeout(c.regatherTimer);
    c.regatherTimer = setTimeout(() => this.endRegather(name, c), Math.min(round / 4, FOLD_REGATHER_MAX_MS));
  }

  private endRegather(name: string, c: Counter): void {
    c.regather = 0;
    clearTimeout(c.regatherTimer);
    c.regatherTimer = undefined;
    this.start(name, c);
    this.dropIdle(name, c);
  }

  private dropIdle(name: string, c: Counter): void {
    if (c.queue.length === 0 && c.inFlight === 0 && c.regather === 0 && this.counters.get(name) === c) {
      clearTimeout(c.expiryTimer);
      c.expiryTimer = undefined;
      c.expiryAt = Infinity;
      this.counters.delete(name);
    }
  }
}
