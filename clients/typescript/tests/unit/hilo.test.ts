import { test } from "node:test";
import assert from "node:assert/strict";
import { CapturedLog } from "../support/logs.js";
import { Code, HiLoGenerator, HiLoRange, HiLoReturn, InvalidArgumentError, NextHiLoRequest, RangeSource, UnavailableError } from "../../src/index.js";

/**
 * An in-memory cluster of one tag: ranges of `size` above the highest reserved, answered when the
 * test lets them through (gate), returns taken when they are the newest range's tail.
 */
class MemorySource implements RangeSource {
  max = 0n;
  requests: NextHiLoRequest[] = [];
  returns: HiLoReturn[] = [];
  inflight = 0;
  maxInflight = 0;
  failNext = 0;
  /** Returns fail with this error when set. */
  returnError: Error | undefined;
  readonly logger = new CapturedLog();
  private gates: (() => void)[] = [];
  held = false;

  constructor(private readonly size: bigint) {}

  /** Answers every request held so far, and from now on at once. */
  open(): void {
    this.held = false;
    for (const g of this.gates.splice(0)) g();
  }

  async nextHiLo(tag: string, req: NextHiLoRequest): Promise<HiLoRange> {
    this.requests.push(req);
    this.inflight++;
    this.maxInflight = Math.max(this.maxInflight, this.inflight);
    try {
      if (this.held) await new Promise<void>((resolve) => this.gates.push(resolve));
      else await Promise.resolve();
      if (this.failNext > 0) {
        this.failNext--;
        throw new UnavailableError(Code.UNAVAILABLE, "leadership lost", { reason: "OUTCOME_UNKNOWN" });
      }
      const low = this.max + 1n;
      this.max += this.size;
      return { prefix: `${tag}/`, low, high: this.max, lastSize: this.size, serverTag: "A", lastRangeAt: 1n, grantId: `g${low}` };
    } finally {
      this.inflight--;
    }
  }

  async returnHiLo(_tag: string, ret: HiLoReturn): Promise<boolean> {
    if (this.returnError !== undefined) throw this.returnError;
    this.returns.push(ret);
    if (ret.end !== this.max) return false;
    this.max = ret.last;
    return true;
  }
}

test("many tasks at once: no ID twice, one fetch at a time, every ID from a reserved range", async () => {
  const src = new MemorySource(100n);
  const gen = new HiLoGenerator(src, "orders", { returnAtExit: false });
  const tasks = 500;
  const each = 40;
  const ids = await Promise.all(
    Array.from({ length: tasks }, async () => {
      const mine: string[] = [];
      for (let i = 0; i < each; i++) mine.push(await gen.next());
      return mine;
    }),
  );
  const all = ids.flat();
  assert.equal(all.length, tasks * each);
  assert.equal(new Set(all).size, all.length, "an ID was handed out twice");
  for (const id of all) {
    const m = /^orders\/(\d+)-A$/.exec(id);
    assert.ok(m !== null, id);
    assert.ok(BigInt(m[1]!) >= 1n && BigInt(m[1]!) <= src.max, id);
  }
  assert.equal(src.maxInflight, 1, "two fetches ran at once");
  await gen.close();
});

test("after the first range, next() never waits: the next range is fetched at 80%", async () => {
  const src = new MemorySource(10n);
  const gen = new HiLoGenerator(src, "orders", { returnAtExit: false });
  assert.equal(await gen.next(), "orders/1-A");
  src.held = true; // from now on no range arrives until the test says so
  for (let i = 2; i <= 7; i++) await gen.next();
  assert.equal(src.requests.length, 1, "fetched before 80% of the range was used");
  assert.equal(await gen.next(), "orders/8-A");
  assert.equal(src.requests.length, 2, "no fetch at 80% of the range");
  // The rest of the range comes while the fetch is held: no caller waits for the network.
  assert.equal(await gen.next(), "orders/9-A");
  assert.equal(await gen.next(), "orders/10-A");
  const waiting = gen.next();
  src.open();
  assert.equal(await waiting, "orders/11-A");
  assert.equal(gen.stats.waits, 2, "only the first call and the one past the held fetch waited");
  await gen.close();
});

test("a failed fetch is retried with the same request id; the error reaches the caller typed", async () => {
  const src = new MemorySource(10n);
  src.failNext = 1;
  const gen = new HiLoGenerator(src, "orders", { returnAtExit: false });
  const err = await gen.next().catch((e: unknown) => e);
  assert.ok(err instanceof UnavailableError, String(err));
  assert.equal(err.reason, "OUTCOME_UNKNOWN");
  assert.equal(await gen.next(), "orders/1-A");
  assert.equal(src.requests.length, 2);
  assert.equal(src.requests[1]!.requestId, src.requests[0]!.requestId, "the retry reserved under a new request id");
  await gen.next(); // the prefetch at 80% of the range asks anew
  for (let i = 0; i < 8; i++) await gen.next();
  assert.notEqual(src.requests[2]!.requestId, src.requests[0]!.requestId);
  assert.equal(src.requests[2]!.lastMax, 10n, "the next request did not name the last range");
  await gen.close();
});

test("close gives back the prefetched range whole, then the current tail; the next range starts after the last ID", async () => {
  const src = new MemorySource(10n);
  const gen = new HiLoGenerator(src, "orders", { returnAtExit: false });
  for (let i = 0; i < 8; i++) await gen.next(); // 1..8, and the range 11..20 is fetched
  assert.equal(src.requests.length, 2);
  await gen.close();
  assert.deepEqual(src.returns, [
    { end: 20n, last: 10n, grantId: "g11" },
    { end: 10n, last: 8n, grantId: "g1" },
  ]);
  assert.equal(src.max, 8n);
  assert.ok(gen.stats.returned);
  await assert.rejects(gen.next(), /closed/);
  const next = new HiLoGenerator(src, "orders", { returnAtExit: false });
  assert.equal(await next.next(), "orders/9-A");
  await next.close();
});

test("numbers that cannot be given back are logged, with why, and counted; numbers the cluster would not take back too", async () => {
  const src = new MemorySource(10n);
  const first = new HiLoGenerator(src, "orders", { returnAtExit: false });
  const second = new HiLoGenerator(src, "orders", { returnAtExit: false });
  await first.next(); // 1..10
  await second.next(); // 11..20
  await first.close(); // 2..10 lies below a range handed out since
  src.returnError = new UnavailableError(Code.UNAVAILABLE, "no node answered", { reason: "" });
  await second.close(); // quiet: the numbers are a gap, not an error
  assert.equal(second.stats.unreturned, 9);
  assert.equal(first.stats.unreturned, 0, "numbers the cluster would not take back are no failure of close");
  assert.deepEqual(
    src.logger.records.map((r) => [r.level, r.fields.tag, r.fields.first, r.fields.last, r.fields.grantId]),
    [
      ["info", "orders", "2", "10", "g1"],
      ["warn", "orders", "12", "20", "g11"],
    ],
  );
  assert.match(src.logger.records[0]!.message, /orders: numbers 2\.\.10 were not taken back/);
  assert.match(src.logger.records[1]!.message, /orders: numbers 12\.\.20 could not be given back and are lost: no node answered/);
});

test("close waits for a fetch in flight and returns its range", async () => {
  const src = new MemorySource(10n);
  const gen = new HiLoGenerator(src, "orders", { returnAtExit: false });
  await gen.next();
  src.held = true;
  for (let i = 0; i < 7; i++) await gen.next(); // 8 taken: the fetch of 11..20 is held
  const closed = gen.close();
  src.open();
  await closed;
  assert.deepEqual(src.returns.map((r) => [r.end, r.last]), [
    [20n, 10n],
    [10n, 8n],
  ]);
});

test("a tag the node would refuse is refused before any call, with its code and reason", () => {
  const src = new MemorySource(10n);
  for (const tag of ["", " ", "orders/", "orders|"]) {
    assert.throws(
      () => new HiLoGenerator(src, tag, { returnAtExit: false }),
      (e: unknown) => e instanceof InvalidArgumentError && e.reason === "INVALID_INPUT",
      JSON.stringify(tag),
    );
  }
  assert.throws(() => new HiLoGenerator(src, "orders", { prefetchAt: 0 }), RangeError);
  assert.throws(() => new HiLoGenerator(src, "orders", { prefetchAt: 1.5 }), RangeError);
  assert.throws(() => new HiLoGenerator(src, "orders", { fetchTimeoutMs: -5 }), RangeError);
  assert.equal(src.requests.length, 0);
});

test("legacy formats: tagless and server-prefixed IDs", async () => {
  const src = new MemorySource(10n);
  const tagless = new HiLoGenerator(src, "orders", { nodeTag: false, returnAtExit: false });
  assert.equal(await tagless.next(), "orders/1");
  const prefixed = new HiLoGenerator(src, "orders", { serverPrefix: "NorthServer", returnAtExit: false });
  assert.equal(await prefixed.next(), "orders/NorthServer/11-A");
});

test("numbers past 2^53 are printed exactly", async () => {
  const src = new MemorySource(4n);
  src.max = 2n ** 62n;
  const gen = new HiLoGenerator(src, "big", { returnAtExit: false });
  assert.equal(await gen.next(), `big/${2n ** 62n + 1n}-A`);
  assert.equal(await gen.next(), `big/${2n ** 62n + 2n}-A`);
});

test("a range below the previous one is taken (a node cut off grants below last_max), one on it is refused", async () => {
  const script: [bigint, bigint][] = [[3393n, 3424n], [2049n, 2080n], [2070n, 2101n]];
  const requests: NextHiLoRequest[] = [];
  const src: RangeSource = {
    async nextHiLo(tag: string, req: NextHiLoRequest): Promise<HiLoRange> {
      requests.push(req);
      const [low, high] = script[Math.min(requests.length, script.length) - 1]!;
      return { prefix: `${tag}/`, low, high, lastSize: high - low + 1n, serverTag: "A", lastRangeAt: 1n, grantId: `g${low}` };
    },
    async returnHiLo(): Promise<boolean> {
      return false;
    },
  };
  const gen = new HiLoGenerator(src, "orders", { returnAtExit: false });
  const got: string[] = [];
  for (let i = 0; i < 64; i++) got.push(await gen.next());
  const want = [...Array.from({ length: 32 }, (_, i) => 3393 + i), ...Array.from({ length: 32 }, (_, i) => 2049 + i)];
  assert.deepEqual(got, want.map((n) => `orders/${n}-A`));
  await assert.rejects(gen.next(), (e: Error & { code?: number }) => e.code === Code.INTERNAL && e.message.includes("[2070, 2101]"));
  assert.deepEqual(requests.slice(0, 3).map((r) => r.lastMax), [0n, 3424n, 2080n]);
  await gen.close();
});
