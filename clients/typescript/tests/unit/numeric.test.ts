import { test } from "node:test";
import assert from "node:assert/strict";
import { Code, DEFAULT_LAYOUT, FailedPreconditionError, NumericError, NumericGenerator, WorkerLease, WorkerLeaser } from "../../src/index.js";
import { CapturedLog } from "../support/logs.js";

/** A leaser that grants worker 5 for (now, now + lease] by the test's clock and records releases. */
class FakeLeaser implements WorkerLeaser {
  released: [number, bigint][] = [];
  renewError: Error = new Error("not renewed in these tests");
  readonly logger = new CapturedLog();
  constructor(private readonly clock: () => number) {}
  async acquireWorker(_holder: string, _bits: number, leaseMs: number): Promise<WorkerLease> {
    const now = BigInt(this.clock());
    return { worker: 5, epoch: 1n, minMs: now - 1n, maxMs: now + BigInt(leaseMs), expiresAtMs: now + BigInt(leaseMs) };
  }
  renewWorker(): Promise<WorkerLease> {
    return Promise.reject(this.renewError);
  }
  async releaseWorker(worker: number, epoch: bigint): Promise<void> {
    this.released.push([worker, epoch]);
  }
}

const seqBits = BigInt(DEFAULT_LAYOUT.sequenceBits);
const workerOf = (id: bigint): bigint => (id >> seqBits) & ((1n << BigInt(DEFAULT_LAYOUT.workerBits)) - 1n);

test("numeric IDs are bigint, increasing, past 2^53, under the leased worker; a clock step back is refused, never repeated", async () => {
  let t = Date.UTC(2026, 10, 25);
  const clock = (): number => t;
  const leaser = new FakeLeaser(clock);
  const gen = await NumericGenerator.start(leaser, { clock, leaseMs: 30_000 });
  const ids: bigint[] = [];
  for (let i = 0; i < 10_000; i++) ids.push(gen.next()); // more than one tick's 4096: borrows ahead
  t += 5;
  ids.push(gen.next());
  for (const [i, id] of ids.entries()) {
    assert.equal(typeof id, "bigint");
    assert.ok(id > 2n ** 53n, `${id} fits a number`);
    assert.equal(workerOf(id), 5n);
    if (i > 0) assert.ok(id > ids[i - 1]!, `ID ${i} is not above the one before`);
  }
  const high = ids[ids.length - 1]!;
  t -= 5_000; // the clock steps back five seconds: more than the second it may borrow
  assert.throws(() => gen.next(), (e: unknown) => e instanceof NumericError && /clock is behind/.test(e.message));
  t += 5_010;
  assert.ok(gen.next() > high);
  t += 30_000; // past the lease's local end (lease − margin): minting stops
  assert.throws(() => gen.next(), (e: unknown) => e instanceof NumericError && /expired/.test(e.message));
  await gen.close();
  assert.deepEqual(leaser.released, [[5, 1n]]);
  assert.throws(() => gen.next(), /closed/);
});

test("numeric options out of range are refused before a lease is taken", async () => {
  const leaser = new FakeLeaser(Date.now);
  await assert.rejects(NumericGenerator.start(leaser, { leaseMs: 500 }), RangeError);
  await assert.rejects(NumericGenerator.start(leaser, { leaseMs: 10_000, marginMs: 6_000 }), RangeError);
  await assert.rejects(NumericGenerator.start(leaser, { layout: { ...DEFAULT_LAYOUT, timeBits: 50 } }), RangeError);
  assert.deepEqual(leaser.released, []);
});

test("a renewal that fails is logged, and a worker lost to another holder is logged as an error", async () => {
  const leaser = new FakeLeaser(Date.now);
  leaser.renewError = new Error("connection refused");
  const gen = await NumericGenerator.start(leaser, { leaseMs: 1000 });
  // The renewal timer does not hold the process open (it is unref'd): this does, meanwhile.
  const keepOpen = setInterval(() => undefined, 60_000);
  try {
    const failed = await leaser.logger.waitFor(() => true); // the renewal at a third of the lease
    assert.equal(failed.level, "warn");
    assert.deepEqual(failed.fields, { worker: 5, epoch: "1", error: "connection refused", retryInMs: 100 });
    assert.match(failed.message, /worker 5's lease could not be renewed; trying again in 100 ms: connection refused/);
    leaser.renewError = new FailedPreconditionError(Code.FAILED_PRECONDITION, "worker 5 is held by another", { reason: "FENCED" });
    const lost = await leaser.logger.waitFor((r) => r.level === "error");
    assert.match(lost.message, /worker 5 was lost to another holder .*worker 5 is held by another/);
  } finally {
    clearInterval(keepOpen);
  }
  await gen.close();
});
