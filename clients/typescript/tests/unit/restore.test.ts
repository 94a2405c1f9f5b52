import { test } from "node:test";
import assert from "node:assert/strict";
import { Client, InvalidArgumentError, MarginNotAppliedError, RestoreResult } from "../../src/index.js";
import { FakeNode, Reply, Seen } from "../support/fakenode.js";

// restore() against a node that answers as the gateway writes a RestoreResponse: the margin
// asked travels in the first chunk, the answer's margin and counts come back typed, and an
// answer without the margin asked is MarginNotAppliedError. The real restore, margin included,
// is in tests/admin.test.ts.

async function withNode(reply: (req: Seen) => Reply, fn: (node: FakeNode, client: Client) => Promise<void>): Promise<void> {
  const node = new FakeNode(reply);
  const client = new Client([await node.listen()], { backoff: { initialMs: 1, maxMs: 5 } });
  try {
    await fn(node, client);
  } finally {
    await client.close();
    await node.close();
  }
}

const backup = new TextEncoder().encode("idnode-fsm-snapshot-v1 and the rest");

const answer = {
  identities: "3", identitiesRaised: "3", hiloTags: "1", hiloRaised: "1", tags: "2", tagsRetired: "0",
  claims: "0", claimsRestored: "0", series: "0", seriesEntriesRestored: "0", workers: "1", workersRaised: "1",
  ahead: { identities: { add: "100", percent: "10" }, hilo: { add: "0", percent: "0" } },
  identitiesSkippedMin: "100", identitiesSkippedMax: "112", hiloSkippedMin: "0", hiloSkippedMax: "0",
  opaqueDatabases: "2", opaqueRestored: "1",
};

test("restore sends the margin in the first chunk and answers it, the skipped numbers and the opaque counts", async () => {
  await withNode(() => ({ status: 200, body: answer }), async (node, client) => {
    const r = await client.admin.restore(backup, { ahead: { identities: { add: 100n, percent: 10 } } });
    assert.deepEqual(node.seen[0]?.body.ahead, { identities: { add: "100", percent: "10" }, hilo: { add: "0", percent: "0" } });
    const want: RestoreResult = {
      identities: 3n, identitiesRaised: 3n, hiloTags: 1n, hiloRaised: 1n, tags: 2n, tagsRetired: 0n,
      claims: 0n, claimsRestored: 0n, series: 0n, seriesEntriesRestored: 0n, workers: 1n, workersRaised: 1n,
      ahead: { identities: { add: 100n, percent: 10n }, hilo: { add: 0n, percent: 0n } },
      identitiesSkippedMin: 100n, identitiesSkippedMax: 112n, hiloSkippedMin: 0n, hiloSkippedMax: 0n,
      opaqueDatabases: 2n, opaqueRestored: 1n, rates: undefined,
    };
    assert.deepEqual(r, want);
  });
});

test("restore without a margin sends none, and an answer without one has none", async () => {
  const { ahead: _, ...plain } = answer;
  await withNode(() => ({ status: 200, body: plain }), async (node, client) => {
    const r = await client.admin.restore(backup, { ahead: { identities: { add: 0n }, hilo: {} } });
    assert.equal(node.seen[0]?.body.ahead, undefined);
    assert.equal(r.ahead, undefined);
    assert.equal(r.opaqueDatabases, 2n);
  });
});

test("an answer that does not echo the margin asked is MarginNotAppliedError, with the answer", async () => {
  const { ahead: _, ...older } = answer;
  await withNode(() => ({ status: 200, body: { ...older, identitiesSkippedMin: "0", identitiesSkippedMax: "0" } }), async (_node, client) => {
    await assert.rejects(client.admin.restore(backup, { ahead: { hilo: { percent: 5n } } }), (e: unknown) => {
      assert.ok(e instanceof MarginNotAppliedError, String(e));
      assert.equal(e.reason, "MARGIN_NOT_APPLIED");
      assert.equal(e.result.ahead, undefined);
      assert.equal(e.result.identities, 3n);
      assert.match(e.message, /hilo 0\+5%; applied none/);
      return true;
    });
  });
});

test("a margin by rates leaves out the kinds given nothing, and wants the answer's rates", async () => {
  const rates = { recorded: true, identitiesPerSecond: 2.5, hiloPerSecond: 0.5, ageMs: "60000", factor: "2", takenAtMs: "1700000000000" };
  const byRates = { ...answer, ahead: { hilo: { add: "64", percent: "0" } }, rates };
  await withNode(() => ({ status: 200, body: byRates }), async (node, client) => {
    const r = await client.admin.restore(backup, { ahead: { hilo: { add: 64 }, byRates: true } });
    assert.deepEqual(node.seen[0]?.body.ahead, { hilo: { add: "64", percent: "0" }, byRates: true });
    assert.deepEqual(r.rates, { recorded: true, identitiesPerSecond: 2.5, hiloPerSecond: 0.5, ageMs: 60000n, takenInFuture: false, factor: 2n, takenAtMs: 1700000000000n });
  });
  // A node of an older build echoes no rates: the counters took no margin by rates.
  const { rates: _, ...older } = byRates;
  await withNode(() => ({ status: 200, body: older }), async (node, client) => {
    await assert.rejects(client.admin.restore(backup, { ahead: { hilo: { add: 64 }, byRates: true } }), (e: unknown) => {
      assert.ok(e instanceof MarginNotAppliedError, String(e));
      assert.match(e.message, /hilo 64\+0%, the rest by rates; applied identities 0\+0%, hilo 64\+0%\)/);
      return true;
    });
    await assert.rejects(client.admin.restore(backup, { ahead: { byRates: "yes" as unknown as boolean } }), /ahead\.byRates must be a boolean/);
    assert.equal(node.seen.length, 1);
  });
});

test("a negative or oversized margin is refused before any call", async () => {
  await withNode(() => ({ status: 200, body: answer }), async (node, client) => {
    await assert.rejects(client.admin.restore(backup, { ahead: { identities: { add: -1n } } }), /ahead\.identities\.add must be within 0\.\./);
    await assert.rejects(client.admin.restore(backup, { ahead: { hilo: { percent: 2n ** 63n } } }), InvalidArgumentError);
    await assert.rejects(client.admin.restore(backup, { ahead: { hilo: { add: 1.5 as unknown as bigint } } }), InvalidArgumentError);
    assert.equal(node.seen.length, 0);
  });
});
