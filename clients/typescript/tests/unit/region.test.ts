import { test } from "node:test";
import assert from "node:assert/strict";
import { Client, Code } from "../../src/index.js";
import { LOCAL_RETRY_MAX_MS, LOCAL_RETRY_MS, NodeOrder } from "../../src/region.js";
import { FakeNode, Reply, Seen, statusBody } from "../support/fakenode.js";

const fastBackoff = { initialMs: 1, maxMs: 5 };
/** What a proxy in front of a node that is down answers: UNAVAILABLE with no idnode reason. */
const down: Reply = { status: 503, body: { code: Code.UNAVAILABLE, message: "no healthy upstream" } };

/** A fake node with a tag, a gRPC address it reports in its status, and a switch that takes it down. */
class TaggedNode {
  up = true;
  /** How it fails while not up. */
  failure: Reply = down;
  readonly fake: FakeNode;
  constructor(readonly tag: string, readonly grpc: string, leaderGrpc: string) {
    const hint = { "grpc-metadata-idnode-leader": leaderGrpc };
    this.fake = new FakeNode((req) => {
      if (!this.up) return this.failure;
      if (req.path.startsWith("/v1/status")) return { status: 200, body: { self: tag, nodes: [{ tag, grpcAddress: grpc }] }, headers: hint };
      if (req.path.endsWith(":next") && req.path.startsWith("/v1/identities")) return { status: 200, body: { first: "1", last: "1" }, headers: hint };
      if (req.path.startsWith("/v1/hilo")) return { status: 200, body: { low: "1", high: "32", serverTag: tag }, headers: hint };
      if (req.path.startsWith("/v1/explain")) return { status: 200, body: { kind: "server-side", nodeTag: tag }, headers: hint };
      return { status: 200, body: { ids: [`users/1-${tag}`] }, headers: hint };
    });
  }
  /** The requests it saw whose path starts with prefix. */
  calls(prefix: string): Seen[] {
    return this.fake.seen.filter((s) => s.path.startsWith(prefix));
  }
}

async function withTagged(specs: [tag: string, grpc: string][], leaderGrpc: string, fn: (nodes: TaggedNode[], addrs: string[]) => Promise<void>): Promise<void> {
  const nodes = specs.map(([tag, grpc]) => new TaggedNode(tag, grpc, leaderGrpc));
  try {
    const addrs = await Promise.all(nodes.map((n) => n.fake.listen()));
    await fn(nodes, addrs);
  } finally {
    await Promise.all(nodes.map((n) => n.fake.close()));
  }
}

test("with a region, what any node answers goes to a node of it, identities to the leader in another region", async () => {
  await withTagged([["A", "127.0.0.1:1"], ["B", "127.0.0.1:2"], ["C", "127.0.0.1:3"]], "127.0.0.1:1", async ([a, b, c], addrs) => {
    const client = new Client(addrs, { region: "west", nodeRegions: { [addrs[0]!]: "east", [addrs[1]!]: "west", [addrs[2]!]: "south" } });
    // No leader known yet: the first identity goes to the client's region, which relays it.
    await client.nextIdentity("invoices");
    assert.equal(b!.calls("/v1/identities").length, 1, "the first identity did not start in the client's region");
    // The answers name the leader; once the client knows which of its nodes that is, identities go there.
    let calls = 1;
    while (a!.calls("/v1/identities").length === 0 && calls < 200) {
      await client.nextIdentity("invoices");
      calls++;
    }
    assert.ok(calls < 200, "the client never followed the leader hint");
    const atLeader = a!.calls("/v1/identities").length;
    for (let i = 0; i < 5; i++) await client.nextIdentity("invoices", { count: 2 });
    assert.equal(a!.calls("/v1/identities").length, atLeader + 5, "identities went elsewhere than the leader");
    for (let i = 0; i < 10; i++) assert.deepEqual(await client.generate("users/"), ["users/1-B"]);
    assert.equal((await client.nextHiLo("orders")).serverTag, "B");
    assert.equal((await client.explain("users/1-B")).nodeTag, "B");
    assert.equal((await client.admin.status()).self, "B", "a plain status went elsewhere than the client's region");
    assert.equal((await client.admin.status({ consistent: true })).self, "A", "a consistent status went elsewhere than the leader");
    await client.close();
    assert.equal(b!.calls("/v1/ids").length, 10);
    assert.equal(b!.calls("/v1/hilo").length, 1);
    assert.equal(b!.calls("/v1/explain").length, 1);
    for (const remote of [a, c]) {
      for (const prefix of ["/v1/ids", "/v1/hilo", "/v1/explain"]) assert.equal(remote!.calls(prefix).length, 0, `${remote!.tag} got ${prefix}`);
    }
  });
});

test("a local node that fails is skipped; calls go to the other local node, then to other regions, and back once a local node answers", async () => {
  await withTagged([["A", "127.0.0.1:1"], ["B", "127.0.0.1:2"], ["R", "127.0.0.1:3"]], "", async ([l1, l2, r], addrs) => {
    const client = new Client(addrs, {
      region: "west",
      nodeRegions: { [addrs[0]!]: "west", [addrs[1]!]: "west", [addrs[2]!]: "east" },
      nodesInOrder: true,
      backoff: fastBackoff,
    });
    const ids = (): Promise<string[]> => client.generate("users/");
    const seen = (): number[] => [l1, l2, r].map((n) => n!.calls("/v1/ids").length);

    l1!.up = false;
    assert.deepEqual(await ids(), ["users/1-B"], "the other local node answers before any remote one");
    assert.deepEqual(seen(), [1, 1, 0]);
    assert.deepEqual(await ids(), ["users/1-B"]);
    assert.deepEqual(seen(), [1, 2, 0], "the node that just failed cost the next call an attempt");

    l2!.up = false;
    assert.deepEqual(await ids(), ["users/1-R"], "with its region down, the client goes to another");
    assert.deepEqual(seen(), [1, 3, 1], "the local node that failed a moment ago was tried before the remote one");
    assert.deepEqual(await ids(), ["users/1-R"]);
    assert.deepEqual(seen(), [1, 3, 2], "local nodes that just failed were tried again at once");

    // The remote node answered twice, yet it is not where calls start: when it fails, the
    // local nodes are tried again, and the one that answers is where calls go from then on.
    l1!.up = true;
    r!.up = false;
    assert.deepEqual(await ids(), ["users/1-A"]);
    r!.up = true;
    assert.deepEqual(await ids(), ["users/1-A"]);
    assert.deepEqual(await ids(), ["users/1-A"]);
    assert.deepEqual(seen(), [4, 4, 3], "calls left the local node that answered");
    await client.close();
  });
});

test("only the node's own failure puts a local node behind the others: unreachable, timed out, or a refusal about the node, not one for the cluster", async () => {
  const failures: [what: string, reply: Reply, skipped: boolean][] = [
    ["NO_QUORUM", { status: 503, body: statusBody(Code.UNAVAILABLE, "no quorum", "NO_QUORUM") }, false],
    ["OUTCOME_UNKNOWN", { status: 503, body: statusBody(Code.UNAVAILABLE, "leadership lost", "OUTCOME_UNKNOWN") }, false],
    ["no idnode reason", down, true],
    ["NODE_BUSY", { status: 429, body: statusBody(Code.RESOURCE_EXHAUSTED, "busy", "NODE_BUSY") }, true],
    ["SHUTTING_DOWN", { status: 503, body: statusBody(Code.UNAVAILABLE, "stopping", "SHUTTING_DOWN") }, true],
    ["NOT_CAUGHT_UP", { status: 503, body: statusBody(Code.UNAVAILABLE, "behind", "NOT_CAUGHT_UP") }, true],
    ["STORAGE_FULL", { status: 503, body: statusBody(Code.UNAVAILABLE, "disk full", "STORAGE_FULL") }, true],
    ["STORAGE_FAILED", { status: 503, body: statusBody(Code.UNAVAILABLE, "disk failed", "STORAGE_FAILED") }, true],
    ["NOT_REGISTERED", { status: 503, body: statusBody(Code.UNAVAILABLE, "not registered", "NOT_REGISTERED") }, true],
    ["REPLICA_DIVERGED", { status: 503, body: statusBody(Code.UNAVAILABLE, "fenced", "REPLICA_DIVERGED") }, true],
    ["the attempt's timeout", "hang", true],
  ];
  for (const [what, reply, skipped] of failures) {
    await withTagged([["L", "127.0.0.1:1"], ["R", "127.0.0.1:2"]], "", async ([l, r], addrs) => {
      // Only a hanging node needs a short attempt timeout; a short one for the others made a
      // slow answer of a loaded machine count as the node's own failure.
      const attemptTimeoutMs = reply === "hang" ? 500 : 30_000;
      const client = new Client(addrs, { region: "west", nodeRegions: { [addrs[0]!]: "west", [addrs[1]!]: "east" }, backoff: fastBackoff, attemptTimeoutMs });
      l!.up = false;
      l!.failure = reply;
      for (let i = 0; i < 2; i++) assert.deepEqual(await client.generate("users/"), ["users/1-R"], `with L failing (${what}), the remote node answers`);
      assert.equal(l!.calls("/v1/ids").length, skipped ? 1 : 2, `after L failed (${what}), the next call ${skipped ? "asked it again at once" : "did not ask it first"}`);
      assert.equal(r!.calls("/v1/ids").length, 2);
      await client.close();
    });
  }
});

test("a local node that failed is tried after the others for a second, then first again", () => {
  let now = 1_000_000;
  // Nodes 0 and 2 are of the client's region, 1 and 3 of others; the client starts at node 0.
  const order = new NodeOrder(4, [true, false, true, false], true, () => now);
  assert.deepEqual(order.plan(undefined), [0, 2, 1, 3], "local nodes first, in the order given, then the others");
  assert.deepEqual(order.plan(3), [3, 0, 2, 1], "the leader, then the local nodes");
  order.failed(0);
  assert.deepEqual(order.plan(undefined), [2, 1, 3, 0]);
  order.answered(1, undefined);
  assert.deepEqual(order.plan(undefined), [2, 1, 3, 0], "a remote node that answered became the start");
  now += LOCAL_RETRY_MS - 1;
  assert.deepEqual(order.plan(undefined), [2, 1, 3, 0]);
  now += 1;
  assert.deepEqual(order.plan(undefined), [0, 2, 1, 3], "the node was not tried first again after its second");
  order.failed(0);
  order.answered(2, undefined);
  // Node 0 failed again once its second was up, without answering in between: it waits two.
  now += 2 * LOCAL_RETRY_MS;
  assert.deepEqual(order.plan(undefined), [2, 0, 3, 1], "the local node that answered is not where calls start");
});

test("a node that keeps failing after each wait waits twice as long each time, up to the cap; an answer starts afresh", () => {
  let now = 1_000_000;
  // Nodes 0 and 2 are of the client's region, 1 of another; the client starts at node 0.
  const order = new NodeOrder(3, [true, false, true], true, () => now);
  const waits = (idx: number): boolean => {
    const plan = order.plan(undefined);
    return plan[plan.length - 1] === idx;
  };
  const wantWait = (idx: number, ms: number): void => {
    assert.ok(waits(idx), `node ${idx} not behind the others right after it failed`);
    now += ms - 1;
    assert.ok(waits(idx), `node ${idx} back in its place before ${ms} ms`);
    now += 1;
    assert.ok(!waits(idx), `node ${idx} still behind the others ${ms} ms after it failed`);
  };
  for (const ms of [1000, 2000, 4000, 8000, 16000, LOCAL_RETRY_MAX_MS, LOCAL_RETRY_MAX_MS]) {
    order.failed(0);
    assert.ok(!waits(2), "node 2 waits while only node 0 failed");
    wantWait(0, ms);
  }
  assert.equal(LOCAL_RETRY_MAX_MS, 30_000);

  order.answered(0, undefined);
  order.failed(0);
  now += 500;
  order.failed(0); // within its wait: the same second again, from now
  wantWait(0, LOCAL_RETRY_MS);

  order.failed(0);
  order.failed(2);
  now += LOCAL_RETRY_MS;
  assert.ok(waits(0) && !waits(2), "node 0 failed for the second time and node 2 for the first: want node 0 waiting 2 s, node 2 1 s");
});

test("without a region, calls go round the nodes from the leader or the node that answered last, as before", () => {
  const order = new NodeOrder(3, undefined, true, () => 0);
  assert.deepEqual(order.plan(undefined), [0, 1, 2]);
  order.failed(0);
  assert.deepEqual(order.plan(undefined), [0, 1, 2], "a failed node moved without a region");
  order.answered(1, undefined);
  assert.deepEqual(order.plan(undefined), [1, 2, 0]);
  assert.deepEqual(order.plan(2), [2, 0, 1]);
  order.answered(2, 2);
  assert.deepEqual(order.plan(undefined), [1, 2, 0], "the leader answering moved the start");
  order.answered(0, 2);
  assert.deepEqual(order.plan(undefined), [0, 1, 2]);
});

test("without a region, a call's plan is made once for each node it can start at, not once a call", () => {
  const order = new NodeOrder(5, undefined, true, () => 0);
  for (const first of [undefined, 0, 3, 4]) {
    assert.equal(order.plan(first), order.plan(first), `two calls from ${first ?? "the start"} each made a plan`);
  }
  assert.deepEqual(order.plan(3), [3, 4, 0, 1, 2]);
  order.answered(4, undefined);
  assert.equal(order.plan(undefined), order.plan(4), "the start's plan is the one of the node that answered");
  assert.deepEqual(order.plan(undefined), [4, 0, 1, 2, 3]);
});

test("with several local nodes, clients spread over them and keep to them", () => {
  const starts = new Set<number>();
  for (let i = 0; i < 200; i++) {
    const plan = new NodeOrder(4, [false, true, false, true], false).plan(undefined);
    assert.deepEqual(plan.slice(0, 2).sort(), [1, 3], `plan ${plan.join(",")} did not start with the local nodes`);
    starts.add(plan[0]!);
  }
  assert.deepEqual([...starts].sort(), [1, 3], "every client started at the same local node");
});

test("region options that cannot mean what they say are refused when the client is made", () => {
  const nodes = ["127.0.0.1:7081", "http://127.0.0.1:7082"];
  const make = (region: unknown, nodeRegions: unknown): Client => new Client(nodes, { region, nodeRegions } as { region?: string; nodeRegions?: Record<string, string> });
  const refused = (region: unknown, nodeRegions: unknown, kind: typeof TypeError | typeof RangeError, message: RegExp): void => {
    const err = (() => {
      try {
        make(region, nodeRegions);
      } catch (e) {
        return e;
      }
      return assert.fail(`region ${JSON.stringify(region)} with ${JSON.stringify(nodeRegions)} was accepted`);
    })();
    assert.ok(err instanceof kind, `${String(err)} is not a ${kind.name}`);
    assert.match((err as Error).message, message);
  };
  refused("", { "127.0.0.1:7081": "west" }, RangeError, /region "" is not a region label/);
  refused("eu west", { "127.0.0.1:7081": "eu west" }, RangeError, /region "eu west" is not a region label/);
  refused(7, { "127.0.0.1:7081": "west" }, TypeError, /region must be a string/);
  refused("west", undefined, TypeError, /needs nodeRegions/);
  refused(undefined, { "127.0.0.1:7081": "west" }, TypeError, /nodeRegions needs region/);
  refused("west", ["west"], TypeError, /nodeRegions must be an object/);
  refused("west", { "127.0.0.1:7081": "" }, RangeError, /nodeRegions\["127.0.0.1:7081"\] "" is not a region label/);
  refused("west", { "127.0.0.1:7081": "west", "127.0.0.1:9999": "west" }, RangeError, /nodeRegions names "127.0.0.1:9999", which is not one of the client's nodes/);
  refused("west", { "not an address": "west" }, RangeError, /nodeRegions names "not an address", which is not one of the client's nodes/);
  refused("west", { "127.0.0.1:7081": "west", "http://127.0.0.1:7081/": "east" }, RangeError, /in two regions, "west" and "east"/);
  refused("west", { "127.0.0.1:7081": "east" }, RangeError, /none of the client's nodes is in its region "west"/);
  refused("west", {}, RangeError, /none of the client's nodes is in its region "west"/);
  // The same node by another spelling of its address, and a node left out, are fine.
  make("west", { "http://127.0.0.1:7081": "west" });
  make("west", { "127.0.0.1:7082": "west", "127.0.0.1:7081": "east" });
});
