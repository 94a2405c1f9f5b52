import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "../../src/index.js";
import { FakeNode, Seen } from "../support/fakenode.js";

// The methods that moved to client.admin, client.series, client.databases and client.workers
// stay one release as deprecated forwards. Each must still send what its replacement sends and
// answer what it answers; a node that answers an empty message to everything shows both.

/** An old call and its replacement, each made on the client given. */
type Pair = [string, (c: Client) => Promise<unknown>, (c: Client) => Promise<unknown>];

const pairs: Pair[] = [
  ["status", (c) => c.status({ consistent: true }), (c) => c.admin.status({ consistent: true })],
  ["whoAmI", (c) => c.whoAmI(), (c) => c.admin.whoAmI()],
  ["clusterVersion", (c) => c.clusterVersion(), (c) => c.admin.clusterVersion()],
  ["setClusterVersion", (c) => c.setClusterVersion(2), (c) => c.admin.setClusterVersion(2)],
  ["addNode", (c) => c.addNode({ raftAddress: "r:1", grpcAddress: "g:1", tag: "D" }), (c) => c.admin.addNode({ raftAddress: "r:1", grpcAddress: "g:1", tag: "D" })],
  ["removeNode", (c) => c.removeNode("D"), (c) => c.admin.removeNode("D")],
  ["transferLeadership", (c) => c.transferLeadership("B"), (c) => c.admin.transferLeadership("B")],
  ["backup", (c) => c.backup({ database: "shop" }), (c) => c.admin.backup({ database: "shop" })],
  ["restore", (c) => c.restore(new Uint8Array([1, 2, 3])), (c) => c.admin.restore(new Uint8Array([1, 2, 3]))],
  ["releaseOwner", (c) => c.releaseOwner("o1"), (c) => c.admin.releaseOwner("o1")],
  ["createSeries", (c) => c.createSeries("inv", "INV-{n}", { requestId: "r1" }), (c) => c.series.create("inv", "INV-{n}", { requestId: "r1" })],
  ["listSeries", (c) => c.listSeries(), (c) => c.series.list()],
  ["issue", (c) => c.issue("inv", { requestId: "r2" }), (c) => c.series.issue("inv", { requestId: "r2" })],
  ["voidNumber", (c) => c.voidNumber("inv", 3, { requestId: "r3" }), (c) => c.series.void("inv", 3, { requestId: "r3" })],
  ["verifySeries", (c) => c.verifySeries("inv"), (c) => c.series.verify("inv")],
  ["journal", (c) => c.journal("inv", { fromSeq: 2 }), (c) => c.series.journal("inv", { fromSeq: 2 })],
  ["createDatabase", (c) => c.createDatabase("shop", { maxClaims: 5 }), (c) => c.databases.create("shop", { maxClaims: 5 })],
  ["deleteDatabase", (c) => c.deleteDatabase("shop", { force: true }), (c) => c.databases.delete("shop", { force: true })],
  ["listDatabases", (c) => c.listDatabases(), (c) => c.databases.list()],
  ["createKey", (c) => c.createKey("shop", "writer"), (c) => c.databases.createKey("shop", "writer")],
  ["deleteKey", (c) => c.deleteKey("k1"), (c) => c.databases.deleteKey("k1")],
  ["listKeys", (c) => c.listKeys(), (c) => c.databases.listKeys()],
  ["acquireWorker", (c) => c.acquireWorker("h", 10, 30_000), (c) => c.workers.acquire("h", 10, 30_000)],
  ["renewWorker", (c) => c.renewWorker(4, 7n, 30_000), (c) => c.workers.renew(4, 7n, 30_000)],
  ["listWorkers", (c) => c.listWorkers({ pageSize: 5 }), (c) => c.workers.list({ pageSize: 5 })],
  ["releaseWorker", (c) => c.releaseWorker(4, 7n), (c) => c.workers.release(4, 7n)],
];

/** What a request says apart from the request id a call makes for itself. */
function sent(s: Seen): unknown {
  const { requestId: _, ...body } = s.body;
  return { method: s.method, path: s.path, body };
}

for (const [name, old, replacement] of pairs) {
  test(`the deprecated ${name} sends and answers what its replacement does`, async () => {
    const node = new FakeNode(() => ({ status: 200, body: {} }));
    const client = new Client([await node.listen()], { backoff: { initialMs: 1, maxMs: 5 } });
    try {
      const got = await old(client);
      const want = await replacement(client);
      assert.equal(node.seen.length, 2, "each call should send one request");
      assert.deepEqual(sent(node.seen[0]!), sent(node.seen[1]!));
      assert.deepEqual(got, want);
    } finally {
      await client.close();
      await node.close();
    }
  });
}
