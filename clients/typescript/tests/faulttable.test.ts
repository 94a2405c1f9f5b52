import { test } from "node:test";
import assert from "node:assert/strict";
import { Client, IdnodeError } from "../src/index.js";
import { IdCluster, httpAddrs } from "./support/cluster.js";
import { FaultPage, FaultRow, renderFaultTable, withoutTimes } from "./support/faultpage.js";

// The TypeScript client's table of docs/fault-table.md sits between these lines.
const BEGIN = "<!-- begin typescript-client: written by tests/faulttable.test.ts -->";
const END = "<!-- end typescript-client -->";

/** The row of a call that ended in err (undefined when it succeeded, then outcome says what it did). */
function row(situation: string, tookMs: number, err: unknown, outcome = "none"): FaultRow {
  if (err === undefined) return { situation, tookMs, error: outcome, code: "—", reason: "—" };
  if (!(err instanceof IdnodeError)) return { situation, tookMs, error: `\`${String(err)}\``, code: "—", reason: "—" };
  return { situation, tookMs, error: `\`${err.name}\``, code: err.codeName, reason: err.reason === "" ? "—" : err.reason };
}

/** How long call took and what it threw. */
async function timed(call: () => Promise<unknown>): Promise<{ tookMs: number; err: unknown }> {
  const began = performance.now();
  try {
    await call();
    return { tookMs: performance.now() - began, err: undefined };
  } catch (e) {
    return { tookMs: performance.now() - began, err: e };
  }
}

// What an application using the TypeScript client sees in each situation of the page, one after
// another on one three-node cluster: the leader killed, then the last follower (no quorum), then
// every node. The error types, codes and reasons must be the committed ones; the times are shown
// as measured and never compared. IDNODE_WRITE_FAULT_TABLE=1 writes the table instead.
test("the fault table: what the client answers when the cluster fails", { timeout: 120_000 }, async () => {
  const page = new FaultPage(BEGIN, END);
  const cluster = new IdCluster();
  const rows: FaultRow[] = [];
  let c: Client | undefined;
  try {
    const info = await cluster.start({ nodes: 3 });
    // An application's client: the default options, logging nowhere.
    c = new Client(httpAddrs(info));
    const client = c;
    const identity = (timeoutMs: number) => () => client.nextIdentity("orders", { timeoutMs });
    await client.nextIdentity("orders", { timeoutMs: 10_000 });
    await client.nextId("receipts", { timeoutMs: 10_000 }); // a HiLo range for close() to give back

    await cluster.fault("kill", "leader");
    let r = await timed(identity(10_000));
    assert.equal(r.err, undefined, `an identity after the leader's kill: ${String(r.err)}`);
    rows.push(row("leader killed: an identity right after (10 s deadline)", r.tookMs, r.err, "none: the new leader answers"));

    await cluster.fault("kill", "followers");
    r = await timed(identity(4_000));
    rows.push(row("no quorum: an identity from the leader left alone (4 s deadline)", r.tookMs, r.err));
    r = await timed(() => client.nextId("invoices", { timeoutMs: 1_000 }));
    rows.push(row("caller's deadline: a HiLo ID waiting for its first range under no quorum (1 s deadline)", r.tookMs, r.err));

    await cluster.fault("kill", "all");
    r = await timed(identity(2_000));
    rows.push(row("all nodes down: an identity (2 s deadline)", r.tookMs, r.err));
    r = await timed(() => client.close());
    assert.ok(client.unreturned > 0, "close() with every node down gave back its HiLo range, or did not count it as a gap");
    rows.push(row("client closed: close() holding a HiLo range, every node down (no deadline)", r.tookMs, r.err,
      "none: resolves, the numbers it held counted in `unreturned` and logged as a gap"));
    r = await timed(identity(1_000));
    rows.push(row("client closed: an identity after close()", r.tookMs, r.err));
  } finally {
    await c?.close(); // at once when the situations closed it; bounded (2 s) when one failed first
    await cluster.close();
  }

  const measured = renderFaultTable(rows);
  if (process.env.IDNODE_WRITE_FAULT_TABLE === "1") {
    page.write(measured);
    return;
  }
  assert.equal(withoutTimes(measured), withoutTimes(page.committed),
    `docs/fault-table.md's TypeScript client table differs from what the client does now (IDNODE_WRITE_FAULT_TABLE=1 rewrites it); measured:\n${measured}\ncommitted:\n${page.committed}`);
});
