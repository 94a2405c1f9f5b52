import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "../src/index.js";
import { IdCluster, httpAddrs } from "./support/cluster.js";
import { CapturedLog } from "./support/logs.js";

test("the log tells of a failover when the leader is killed: from which node to which, and why; nothing per ID", { timeout: 120_000 }, async () => {
  const cluster = new IdCluster();
  const log = new CapturedLog();
  try {
    const info = await cluster.start({ nodes: 3 });
    // The leader first, in order: every call starts there until it fails.
    const others = info.nodes.map((n) => n.tag).filter((t) => t !== info.leader);
    const client = new Client([...httpAddrs(info, [info.leader]), ...httpAddrs(info, others)], { logger: log, nodesInOrder: true });
    await client.nextIdentity("before");
    // A loaded machine can take the leader's quorum away for a moment, and the call then fails
    // over, which it logs; a call logs nothing else.
    const notFailovers = log.records.filter((r) => r.fields.from === undefined);
    assert.deepEqual(notFailovers, [], "a call logged something besides a failover");
    const beforeKill = log.records.length;
    await cluster.fault("kill", info.leader);
    const killedURL = client.nodes[0];
    await client.nextIdentity("after");
    const failover = log.records.slice(beforeKill).find((r) => r.fields.from === killedURL);
    assert.ok(failover !== undefined, `no record of failing over from ${killedURL}:\n${JSON.stringify(log.records, null, 1)}`);
    assert.equal(failover.level, "warn");
    assert.notEqual(failover.fields.to, killedURL);
    assert.ok(client.nodes.includes(String(failover.fields.to)), `failed over to ${failover.fields.to}, not one of the client's nodes`);
    assert.equal(failover.fields.code, "UNAVAILABLE");
    assert.match(failover.message, new RegExp(`failing over from ${killedURL} to ${failover.fields.to}: .*unreachable`));

    // Once the client found the nodes that answer, taking IDs logs nothing: the log is per
    // failover, not per ID. (The first range may still be asked of the dead node first.)
    await client.nextId("orders");
    await client.nextIdentity("after");
    const logged = log.records.length;
    for (let i = 0; i < 500; i++) await client.nextId("orders");
    await Promise.all(Array.from({ length: 50 }, () => client.nextIdentity("after")));
    assert.equal(log.records.length, logged, `taking IDs logged:\n${JSON.stringify(log.records.slice(logged), null, 1)}`);
    await client.close();
  } finally {
    await cluster.close();
  }
});
