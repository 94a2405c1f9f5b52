import { test } from "node:test";
import assert from "node:assert/strict";
import { CancelledError, Client, Code, DEFAULT_TIMEOUT_MS, DeadlineExceededError, UnavailableError } from "../../src/index.js";
import type { IdentityBlock } from "../../src/index.js";
import { IdentityFold } from "../../src/fold.js";
import { FakeNode, Seen } from "../support/fakenode.js";

/** One call the fold made, held until the test answers it. */
interface Call {
  count: number;
  requestId: string;
  signal: AbortSignal;
  resolve: (block: IdentityBlock) => void;
  reject: (err: unknown) => void;
}

/** A scripted cluster: each call waits for the test to answer it, or ends when its signal aborts. */
class Script {
  readonly calls: Call[] = [];
  readonly fold = new IdentityFold(
    (_name, count, requestId, signal) =>
      new Promise<IdentityBlock>((resolve, reject) => {
        this.calls.push({ count, requestId, signal, resolve, reject });
        signal.addEventListener("abort", () => {
          const timeout = signal.reason instanceof Error && signal.reason.name === "TimeoutError";
          reject(timeout ? new DeadlineExceededError(Code.DEADLINE_EXCEEDED, "deadline") : new CancelledError(Code.CANCELLED, "aborted"));
        });
      }),
    DEFAULT_TIMEOUT_MS,
  );

  counts(): number[] {
    return this.calls.map((c) => c.count);
  }

  answer(i: number, first: number, last = first, skipped: number[] = []): void {
    this.calls[i]!.resolve({ first: BigInt(first), last: BigInt(last), skipped: skipped.map(BigInt) });
  }
}

/** Runs the microtasks queued so far (callers coming back), but no timer. */
async function microtasks(): Promise<void> {
  for (let i = 0; i < 100; i++) await Promise.resolve();
}

/** Waits until cond holds, failing after 10 s rather than hanging. */
async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** What each caller got: its value, or its error. */
function outcomes(calls: Promise<IdentityBlock>[]): Promise<(bigint | unknown)[]> {
  return Promise.all(
    calls.map((p) =>
      p.then(
        (b) => {
          assert.equal(b.first, b.last, "a folded caller got more than one value");
          return b.first;
        },
        (e: unknown) => e,
      ),
    ),
  );
}

test("concurrent callers share calls: one in flight, the rest in the next, each batch its own request id", async () => {
  const s = new Script();
  const callers = Array.from({ length: 6 }, () => s.fold.next("orders"));
  assert.deepEqual(s.counts(), [1]);
  s.answer(0, 1);
  await until(() => s.calls.length === 2, "the queued callers' call");
  s.answer(1, 2, 6);
  assert.deepEqual(await outcomes(callers), [1n, 2n, 3n, 4n, 5n, 6n]);
  assert.deepEqual(s.counts(), [1, 5]);
  assert.notEqual(s.calls[0]!.requestId, s.calls[1]!.requestId);
  await until(() => s.fold.counters.size === 0, "the idle counter dropped");
});

test("the next batch waits for the callers just answered: looping callers join the queued ones", async () => {
  const s = new Script();
  const loop = async (): Promise<bigint[]> => [(await s.fold.next("orders")).first, (await s.fold.next("orders")).first];
  const callers = [loop(), loop(), loop()];
  assert.deepEqual(s.counts(), [1]);
  s.answer(0, 1);
  await microtasks();
  assert.deepEqual(s.counts(), [1, 3], "the first caller's second call did not join the two queued");
  s.answer(1, 2, 4);
  await until(() => s.calls.length === 3, "the last call");
  s.answer(2, 5, 6);
  const values = (await Promise.all(callers)).flat().sort((a, b) => (a < b ? -1 : 1));
  assert.deepEqual(values, [1n, 2n, 3n, 4n, 5n, 6n]);
  assert.deepEqual(s.counts(), [1, 3, 2]);
  await until(() => s.fold.counters.size === 0, "the idle counter dropped");
});

test("the wait for callers that do not come back is bounded", async () => {
  const s = new Script();
  const once = s.fold.next("orders");
  const queued = s.fold.next("orders");
  s.answer(0, 1);
  const answeredAt = Date.now();
  await microtasks();
  assert.deepEqual(s.counts(), [1], "the next batch went without waiting for the caller just answered");
  await until(() => s.calls.length === 2, "the next batch, once the wait ran out");
  assert.ok(Date.now() - answeredAt < 1000, "the wait was not bounded");
  s.answer(1, 2);
  assert.deepEqual(await outcomes([once, queued]), [1n, 2n]);
});

test("a short block serves the first callers; the rest go back to the head of the queue", async () => {
  const s = new Script();
  const callers = Array.from({ length: 5 }, () => s.fold.next("orders"));
  s.answer(0, 1);
  await until(() => s.calls.length === 2, "the four queued callers' call");
  callers.push(s.fold.next("orders")); // queued behind the call in flight
  s.answer(1, 4, 8, [5, 7]); // ended early: 4, 6 and 8 for four callers
  await until(() => s.calls.length === 3, "the call for the one left out and the newcomer");
  s.answer(2, 20, 21);
  assert.deepEqual(await outcomes(callers), [1n, 4n, 6n, 8n, 20n, 21n]);
  assert.deepEqual(s.counts(), [1, 4, 2]);
});

test("an error reaches every caller of its batch and no other; the next batch goes at once", async () => {
  const s = new Script();
  const callers = Array.from({ length: 4 }, () => s.fold.next("orders"));
  s.answer(0, 1);
  await until(() => s.calls.length === 2, "the queued callers' call");
  callers.push(s.fold.next("orders"));
  const refusal = new UnavailableError(Code.UNAVAILABLE, "no quorum", { reason: "NO_QUORUM" });
  s.calls[1]!.reject(refusal);
  await microtasks();
  assert.deepEqual(s.counts(), [1, 3, 1]);
  s.answer(2, 2);
  const got = await outcomes(callers);
  assert.equal(got[0], 1n);
  assert.ok(got.slice(1, 4).every((e) => e === refusal));
  assert.equal(got[4], 2n);
  await until(() => s.fold.counters.size === 0, "the idle counter dropped");
});

test("a queued caller that gives up leaves the queue and is not sent", async () => {
  const s = new Script();
  const inFlight = s.fold.next("orders");
  const controller = new AbortController();
  const aborted = s.fold.next("orders", { signal: controller.signal });
  const timedOut = s.fold.next("orders", { timeoutMs: 20 });
  controller.abort();
  const [abortErr, timeoutErr] = await outcomes([aborted, timedOut]);
  assert.ok(abortErr instanceof CancelledError, String(abortErr));
  assert.ok(timeoutErr instanceof DeadlineExceededError, String(timeoutErr));
  assert.equal(s.fold.counters.get("orders")?.queue.length, 0);
  s.answer(0, 1);
  assert.equal((await inFlight).first, 1n);
  await until(() => s.fold.counters.size === 0, "the idle counter dropped");
  assert.deepEqual(s.counts(), [1], "a caller that left was sent");
  const gone = new AbortController();
  gone.abort();
  await assert.rejects(s.fold.next("orders", { signal: gone.signal }), CancelledError);
  assert.equal(s.calls.length, 1);
});

test("queued callers end at their own deadlines, whichever order they came in", async () => {
  const s = new Script();
  const inFlight = s.fold.next("orders");
  const ended: number[] = [];
  const queued = [300, 100, 200].map((ms) =>
    s.fold.next("orders", { timeoutMs: ms }).then(
      () => assert.fail(`the caller of ${ms} ms got a value`),
      (e: unknown) => {
        assert.ok(e instanceof DeadlineExceededError, String(e));
        ended.push(ms);
      },
    ),
  );
  const patient = s.fold.next("orders");
  await Promise.all(queued);
  assert.deepEqual(ended, [100, 200, 300]);
  assert.equal(s.fold.counters.get("orders")?.queue.length, 1, "the patient caller left the queue too");
  s.answer(0, 1);
  await until(() => s.calls.length === 2, "the patient caller's call");
  assert.equal(s.calls[1]!.count, 1);
  s.answer(1, 2);
  assert.deepEqual(await outcomes([inFlight, patient]), [1n, 2n]);
  await until(() => s.fold.counters.size === 0, "the idle counter dropped");
});

test("a batch is stopped only once every caller of it has left", async () => {
  const s = new Script();
  const held = s.fold.next("orders");
  await until(() => s.calls.length === 1, "the first call");
  const first = new AbortController();
  const second = new AbortController();
  const callers = [s.fold.next("orders", { signal: first.signal }), s.fold.next("orders", { signal: second.signal })];
  s.answer(0, 1);
  await until(() => s.calls.length === 2, "the call for both");
  first.abort();
  assert.ok((await outcomes(callers.slice(0, 1)))[0] instanceof CancelledError);
  assert.equal(s.calls[1]!.signal.aborted, false, "the batch stopped while a caller still waited for it");
  second.abort();
  assert.ok((await outcomes(callers.slice(1)))[0] instanceof CancelledError);
  assert.equal(s.calls[1]!.signal.aborted, true, "the batch ran on with nobody waiting for it");
  assert.equal((await held).first, 1n);
  await until(() => s.fold.counters.size === 0, "the idle counter dropped");
});

test("a batch ends at its callers' earliest deadline; a caller with a later one goes into the next", async () => {
  const s = new Script();
  const held = s.fold.next("orders");
  const patient = s.fold.next("orders", { timeoutMs: 30_000 });
  const hurried = s.fold.next("orders", { timeoutMs: 200 });
  s.answer(0, 1);
  await until(() => s.calls.length === 2, "the call for both");
  assert.equal(s.calls[1]!.count, 2);
  const [err] = await outcomes([hurried]);
  assert.ok(err instanceof DeadlineExceededError, String(err));
  await until(() => s.calls.length === 3, "the patient caller's own call");
  assert.equal(s.calls[2]!.count, 1);
  s.answer(2, 2);
  assert.deepEqual(await outcomes([held, patient]), [1n, 2n]);
});

test("through the client: single values fold; a block or a caller's request id is sent as it is", async () => {
  let issued = 0;
  const node = new FakeNode((req: Seen) => {
    const n = Number(req.body.count ?? 1);
    const first = issued + 1;
    issued += n;
    return { status: 200, body: { first: String(first), last: String(issued), skipped: [] } };
  });
  try {
    const client = new Client([await node.listen()]);
    const singles = await Promise.all([client.nextIdentity("orders"), client.nextIdentity("orders", { count: 1 }), client.nextIdentity("orders")]);
    assert.deepEqual(
      singles.map((b) => b.first),
      [1n, 2n, 3n],
    );
    assert.deepEqual(
      node.seen.map((r) => r.body.count),
      ["1", "2"],
    );
    node.seen.length = 0;
    const kept = await Promise.all([
      client.nextIdentity("orders", { count: 2 }),
      client.nextIdentity("orders", { count: 2 }),
      client.nextIdentity("orders", { requestId: "job-1" }),
      client.nextIdentity("orders", { requestId: "job-2" }),
    ]);
    assert.equal(kept.length, 4);
    assert.deepEqual(
      node.seen.map((r) => [r.body.count, r.body.requestId]),
      [
        ["2", node.seen[0]!.body.requestId],
        ["2", node.seen[1]!.body.requestId],
        [undefined, "job-1"],
        [undefined, "job-2"],
      ],
    );
    await client.close();
  } finally {
    await node.close();
  }
});
