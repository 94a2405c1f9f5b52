import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "../src/index.js";
import { IdCluster, httpAddrs } from "./support/cluster.js";

const CALLERS = 64;
const CALLS_EACH = 40;

/** One nextIdentity: when it started and returned (performance.now()), and its value. */
interface Call {
  start: number;
  end: number;
  value: bigint;
}

/**
 * No value twice, and a call that started after another had returned got the larger value:
 * folding must keep the order a caller sees when each call is its own Raft round.
 */
function checkRealTimeOrder(calls: Call[]): void {
  const values = new Set(calls.map((c) => c.value));
  assert.equal(values.size, calls.length, "a value was handed out twice");
  const byEnd = [...calls].sort((a, b) => a.end - b.end);
  let endedMax = 0n;
  let j = 0;
  for (const c of [...calls].sort((a, b) => a.start - b.start)) {
    for (; j < byEnd.length && byEnd[j]!.end < c.start; j++) {
      if (byEnd[j]!.value > endedMax) endedMax = byEnd[j]!.value;
    }
    assert.ok(c.value > endedMax, `a call that started after value ${endedMax} was returned got ${c.value}`);
  }
}

test("the order check catches a smaller value after a return, and a duplicate", () => {
  assert.throws(() => checkRealTimeOrder([{ start: 0, end: 1, value: 2n }, { start: 2, end: 3, value: 1n }]));
  assert.throws(() => checkRealTimeOrder([{ start: 0, end: 3, value: 1n }, { start: 1, end: 2, value: 1n }]));
  checkRealTimeOrder([{ start: 0, end: 3, value: 2n }, { start: 1, end: 2, value: 1n }]); // overlapping: either order
});

test(`${CALLERS} callers through three nodes, ${CALLS_EACH} folded identities each: unique values in real-time order`, { timeout: 120_000 }, async () => {
  const cluster = new IdCluster();
  try {
    const info = await cluster.start({ nodes: 3 });
    const client = new Client(httpAddrs(info));
    try {
      const calls: Call[] = [];
      await Promise.all(
        Array.from({ length: CALLERS }, async () => {
          for (let i = 0; i < CALLS_EACH; i++) {
            const start = performance.now();
            const b = await client.nextIdentity("folded", { timeoutMs: 30_000 });
            calls.push({ start, end: performance.now(), value: b.first });
            assert.equal(b.first, b.last, "a folded caller got more than one value");
          }
        }),
      );
      assert.equal(calls.length, CALLERS * CALLS_EACH);
      checkRealTimeOrder(calls);
    } finally {
      await client.close();
    }
  } finally {
    await cluster.close();
  }
});
