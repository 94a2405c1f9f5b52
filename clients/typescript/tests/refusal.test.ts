import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { CancelledError, Client, DeadlineExceededError, IdnodeError, Reason, UnavailableError } from "../src/index.js";
import { ClusterInfo, IdCluster, httpAddrs } from "./support/cluster.js";
import { CapturedLog } from "./support/logs.js";

// A cluster that lost its majority, as a client that has been running meets it: of three nodes
// two are killed, and the one left answers NO_QUORUM. The client's final error must say so,
// whichever node it tried last, and closing the client once no node is up must be quiet.

let cluster: IdCluster;
let info: ClusterInfo;
let survivor: string;
/** The survivor first, then the two dead nodes: a round ends on a dead node. */
let nodes: string[];
/** A client that took a HiLo range before the nodes died, and holds its unused rest. */
let holder: Client;
const holderLog = new CapturedLog();

before(async () => {
  cluster = new IdCluster();
  info = await cluster.start({ nodes: 3 });
  holder = new Client(httpAddrs(info), { logger: holderLog, nodesInOrder: true });
  assert.match(await holder.nextId("orders"), /^orders\/1-[ABC]$/);
  survivor = await cluster.leader();
  await cluster.fault("kill", "followers");
  nodes = [...httpAddrs(info, [survivor]), ...httpAddrs(info, info.nodes.map((n) => n.tag).filter((t) => t !== survivor))];
  await noQuorumAt(httpAddrs(info, [survivor]));
}, { timeout: 120_000 });

after(async () => {
  await cluster?.close();
});

/** Waits until the node at addrs refuses identities with NO_QUORUM: it noticed it lost its majority. */
async function noQuorumAt(addrs: string[]): Promise<void> {
  const c = new Client(addrs, { backoff: { maxAttempts: 1 } });
  const until = Date.now() + 30_000;
  let seen = "";
  try {
    while (Date.now() < until) {
      try {
        await c.nextIdentity("probe", { timeoutMs: 5_000 });
        seen = "an answer";
      } catch (e) {
        if (e instanceof IdnodeError && e.reason === Reason.NO_QUORUM) return;
        seen = String(e);
      }
    }
  } finally {
    await c.close();
  }
  throw new Error(`the survivor did not refuse NO_QUORUM within 30 s; last: ${seen}`);
}

/** err as an IdnodeError, or a failure that says what it was. */
function idnodeError(err: unknown): IdnodeError {
  assert.ok(err instanceof IdnodeError, `want an IdnodeError, got ${String(err)}`);
  return err;
}

test("every node failed: the live node's NO_QUORUM, not the dead node tried last", async () => {
  const c = new Client(nodes, { nodesInOrder: true, backoff: { maxAttempts: 6 } });
  try {
    const err = idnodeError(await c.nextIdentity("orders", { timeoutMs: 20_000 }).then(() => undefined, (e: unknown) => e));
    assert.ok(err instanceof UnavailableError, `${err.name}: ${err.message}`);
    assert.equal(err.reason, Reason.NO_QUORUM, err.message);
    assert.equal(err.node, c.nodes[0], err.message);
    assert.equal(err.attempts, 6);
    assert.match(err.message, /NO_QUORUM|majority|leader/i);
  } finally {
    await c.close();
  }
});

test("the caller's deadline ends the call: DEADLINE_EXCEEDED, with the NO_QUORUM inside", async () => {
  const log = new CapturedLog();
  const c = new Client(nodes, { nodesInOrder: true, logger: log });
  try {
    // Over once a whole round (the survivor, then both dead nodes) failed, whenever that is.
    const ended = new AbortController();
    void log.waitFor((r) => r.fields.round === 2).then(() => ended.abort(new DOMException("the test's deadline", "TimeoutError")));
    const err = idnodeError(await c.nextIdentity("orders", { signal: ended.signal }).then(() => undefined, (e: unknown) => e));
    assert.ok(err instanceof DeadlineExceededError, `${err.name}: ${err.message}`);
    assert.equal(err.codeName, "DEADLINE_EXCEEDED");
    assert.equal(err.reason, Reason.NO_QUORUM, err.message);
    const cause = err.cause;
    assert.ok(cause instanceof UnavailableError, `cause: ${String(cause)}`);
    assert.equal(cause.reason, Reason.NO_QUORUM);
    assert.equal(cause.node, c.nodes[0]);
  } finally {
    await c.close();
  }
});

test("the caller's timeoutMs ends the call: DEADLINE_EXCEEDED with reason NO_QUORUM", async () => {
  const c = new Client(nodes, { nodesInOrder: true });
  try {
    const err = idnodeError(await c.nextIdentity("orders", { timeoutMs: 1_500 }).then(() => undefined, (e: unknown) => e));
    assert.ok(err instanceof DeadlineExceededError, `${err.name}: ${err.message}`);
    assert.equal(err.reason, Reason.NO_QUORUM, err.message);
    assert.equal((err.cause as IdnodeError | undefined)?.reason, Reason.NO_QUORUM);
  } finally {
    await c.close();
  }
});

test("a signal aborted by the caller: CANCELLED, with the NO_QUORUM inside", async () => {
  const log = new CapturedLog();
  const c = new Client(nodes, { nodesInOrder: true, logger: log });
  try {
    const stop = new AbortController();
    void log.waitFor((r) => r.fields.round === 2).then(() => stop.abort());
    const err = idnodeError(await c.nextIdentity("orders", { signal: stop.signal }).then(() => undefined, (e: unknown) => e));
    assert.ok(err instanceof CancelledError, `${err.name}: ${err.message}`);
    assert.equal(err.reason, Reason.NO_QUORUM, err.message);
    assert.equal((err.cause as IdnodeError | undefined)?.reason, Reason.NO_QUORUM);
  } finally {
    await c.close();
  }
});

// Last: it kills the survivor too.
test("close with no node up returns, counts the numbers it could not give back and logs them as gaps", async () => {
  await cluster.fault("kill", "all");
  await holder.close();
  assert.ok(holder.unreturned > 0, `unreturned: ${holder.unreturned}`);
  const gap = holderLog.records.find((r) => r.level === "warn" && r.fields.tag === "orders" && r.fields.first !== undefined);
  assert.ok(gap !== undefined, `no gap logged:\n${JSON.stringify(holderLog.records, null, 1)}`);
  assert.match(gap.message, /could not be given back/);
  assert.equal(Number(gap.fields.last) - Number(gap.fields.first) + 1, holder.unreturned);
});
