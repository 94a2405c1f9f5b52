import { Code, IdnodeError, errorOf } from "./errors.js";

/**
 * The failed attempts of one call, kept so that its final error names the most telling of
 * them. A node that answered with an idnode reason (NO_QUORUM, NOT_CAUGHT_UP, STORAGE_FULL …)
 * says why the call cannot be served now; a dead node's connection refusal, or an attempt's
 * timeout, says only that the node was not reached. With two nodes of three dead and the third
 * without a majority, the last attempt of a round is on a dead node, and its refusal alone would
 * hide the NO_QUORUM that tells the caller what is wrong.
 */
export class Refusals {
  private latest: IdnodeError | undefined;
  private best: IdnodeError | undefined;
  /** The attempts that failed. */
  count = 0;

  /** Records a failed attempt: the latest refusal with a reason stays the most telling. */
  add(err: IdnodeError): void {
    this.count++;
    this.latest = err;
    if (this.best === undefined || err.reason !== "" || this.best.reason === "") this.best = err;
  }

  /** The last attempt's error; undefined before any attempt failed. */
  get last(): IdnodeError | undefined {
    return this.latest;
  }

  /** The latest refusal a node gave with a reason, else the last error; undefined before any. */
  get telling(): IdnodeError | undefined {
    return this.best;
  }

  /** "…; last error: …" when the last error is not the most telling one, which the message names first. */
  private lastToo(): string {
    const last = this.latest;
    return last !== undefined && last !== this.best ? `; last error: ${last.message}` : "";
  }

  /**
   * The error of a call whose attempts all failed and that may try no more (backoff.maxAttempts):
   * the most telling refusal's code, reason and node, with that refusal as its cause.
   */
  exhausted(nodes: number): IdnodeError {
    const t = this.best;
    if (t === undefined) throw new Error("idnode: no attempt failed");
    return errorOf(t.code, `idnode: all nodes failed (${this.count} attempts over ${nodes} nodes); ${this.lastToo() === "" ? "last error" : "most telling error"}: ${t.message}${this.lastToo()}`, {
      reason: t.reason,
      metadata: t.metadata,
      httpStatus: t.httpStatus,
      node: t.node,
      attempts: this.count,
      cause: t,
    });
  }

  /**
   * The error of a call its caller ended: DEADLINE_EXCEEDED when its timeoutMs passed or its
   * signal was AbortSignal.timeout's (timeout), CANCELLED when the signal was aborted. It carries
   * the most telling refusal's reason, metadata and node, with that refusal as its cause, so a
   * caller whose deadline ended while the survivor refused NO_QUORUM reads NO_QUORUM there.
   * Before any attempt failed, the signal's reason is the cause.
   */
  ended(timeout: boolean, signalReason: unknown): IdnodeError {
    const code = timeout ? Code.DEADLINE_EXCEEDED : Code.CANCELLED;
    const what = timeout ? "idnode: the call's deadline passed" : "idnode: the call was aborted by its signal";
    const t = this.best;
    if (t === undefined) return errorOf(code, `${what} before a node answered`, { cause: signalReason });
    return errorOf(code, `${what} after ${this.count} failed attempts; most telling error: ${t.message}${this.lastToo()}`, {
      reason: t.reason,
      metadata: t.metadata,
      httpStatus: t.httpStatus,
      node: t.node,
      attempts: this.count,
      cause: t,
    });
  }
}
