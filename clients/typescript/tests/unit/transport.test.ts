import { test } from "node:test";
import assert from "node:assert/strict";
import {
  CancelledError,
  Client,
  ClosedError,
  Code,
  DeadlineExceededError,
  IdnodeError,
  Interceptor,
  InvalidArgumentError,
  ResourceExhaustedError,
  UnavailableError,
} from "../../src/index.js";
import { FakeNode, Reply, Seen, statusBody } from "../support/fakenode.js";
import { CapturedLog } from "../support/logs.js";

const fastBackoff = { initialMs: 1, maxMs: 5 };

async function withNodes(handlers: ((req: Seen, n: number) => Reply)[], fn: (nodes: FakeNode[], addrs: string[]) => Promise<void>): Promise<void> {
  const nodes = handlers.map((h) => new FakeNode(h));
  try {
    const addrs = await Promise.all(nodes.map((n) => n.listen()));
    await fn(nodes, addrs);
  } finally {
    await Promise.all(nodes.map((n) => n.close()));
  }
}

const identity = (first: number, last: number): Reply => ({ status: 200, body: { first: String(first), last: String(last), skipped: [] } });

test("an identity call keeps one request id across a retry; the next call makes a new one", async () => {
  await withNodes(
    [(_, n) => (n === 1 ? { status: 503, body: statusBody(Code.UNAVAILABLE, "leadership lost", "OUTCOME_UNKNOWN") } : identity(n, n))],
    async ([node], addrs) => {
      const client = new Client(addrs, { backoff: fastBackoff });
      const block = await client.nextIdentity("orders");
      await client.nextIdentity("orders");
      await client.close();
      assert.deepEqual(block, { first: 2n, last: 2n, skipped: [] });
      const ids = node!.seen.map((s) => s.body.requestId);
      assert.equal(ids.length, 3);
      assert.equal(typeof ids[0], "string");
      assert.equal(ids[1], ids[0], "the retry carried another request id");
      assert.notEqual(ids[2], ids[0], "a new call reused the request id");
      assert.equal(node!.seen[0]!.path, "/v1/identities/orders:next");
    },
  );
});

test("a return whose answer was lost is retried with its request id and answers returned, as its first attempt did", async () => {
  // Node 0 gives the numbers back and its answer is lost; the cluster answers the retry by its
  // request id as the first attempt, where the range alone would say false.
  const done = new Set<unknown>();
  await withNodes(
    [
      (req) => (done.add(req.body.requestId), { status: 503, body: { code: Code.UNAVAILABLE, message: "upstream connect error" } }),
      (req) => ({ status: 200, body: { returned: done.has(req.body.requestId) } }),
    ],
    async ([a, b], addrs) => {
      const client = new Client(addrs, { backoff: fastBackoff, nodesInOrder: true });
      assert.equal(await client.returnHiLo("orders", { end: 32n, last: 4n, grantId: "g1" }), true);
      await client.close();
      const ids = [...a!.seen, ...b!.seen].map((s) => s.body.requestId);
      assert.equal(ids.length, 2);
      assert.equal(typeof ids[0], "string");
      assert.equal(ids[1], ids[0], "the retry carried another request id");
    },
  );
});

test("a release whose answer was lost is retried with its request id and answers the first attempt's count", async () => {
  // Node 0 releases two IDs and its answer is lost; the cluster answers the retry by its request
  // id with the first attempt's count, where the IDs alone, released by then, would say 0.
  const done = new Set<unknown>();
  await withNodes(
    [
      (req) => (done.add(req.body.requestId), { status: 503, body: { code: Code.UNAVAILABLE, message: "upstream connect error" } }),
      (req) => ({ status: 200, body: { released: done.has(req.body.requestId) ? "2" : "0" } }),
    ],
    async ([a, b], addrs) => {
      const client = new Client(addrs, { backoff: fastBackoff, nodesInOrder: true });
      assert.equal(await client.release(["users/1", "users/2"]), 2n);
      await client.close();
      const ids = [...a!.seen, ...b!.seen].map((s) => s.body.requestId);
      assert.equal(ids.length, 2);
      assert.equal(typeof ids[0], "string");
      assert.equal(ids[1], ids[0], "the retry carried another request id");
      assert.equal(a!.seen[0]!.path, "/v1/claims:release");
    },
  );
});

test("the logger hears of each failover and each retry round: from which node to which, and why", async () => {
  const down: Reply = { status: 503, body: statusBody(Code.UNAVAILABLE, "no quorum", "NO_QUORUM") };
  await withNodes([() => down, () => down], async (_, addrs) => {
    const log = new CapturedLog();
    const client = new Client(addrs, { backoff: { ...fastBackoff, maxAttempts: 4 }, nodesInOrder: true, logger: log });
    await assert.rejects(client.generate(""), UnavailableError);
    await client.close();
    const [a, b] = client.nodes;
    assert.deepEqual(
      log.records.map((r) => [r.level, r.fields.from, r.fields.to, r.fields.round, r.fields.reason, r.fields.path]),
      [
        ["warn", a, b, undefined, "NO_QUORUM", "/v1/ids"],
        ["warn", b, a, 2, "NO_QUORUM", "/v1/ids"],
        ["warn", a, b, undefined, "NO_QUORUM", "/v1/ids"],
      ],
    );
    assert.match(log.records[0]!.message, new RegExp(`failing over from ${a} to ${b}: .*no quorum`));
    assert.match(log.records[1]!.message, new RegExp(`every node failed; round 2 starts at ${a} in \\d+ ms; last error: .*no quorum`));
  });
});

test("interceptors see every request, the first outermost: they add headers and see each answer and error", async () => {
  const down: Reply = { status: 503, body: statusBody(Code.UNAVAILABLE, "no quorum", "NO_QUORUM") };
  await withNodes([() => down, (req) => (req.path === "/v1/ids" ? { status: 200, body: { ids: ["users/1"] } } : identity(1, 1))], async (nodes, addrs) => {
    const trace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const seen: string[] = [];
    const outer: Interceptor = (next) => async (req) => {
      seen.push(`${req.method} ${req.path} at node ${addrs.findIndex((a) => req.node.endsWith(a))}`);
      req.headers.traceparent = trace;
      try {
        const res = await next(req);
        seen.push(`answer ${res.status}`);
        return res;
      } catch (e) {
        seen.push(`error ${e instanceof IdnodeError ? e.reason : String(e)}`);
        throw e;
      }
    };
    const inner: Interceptor = (next) => (req) => {
      seen.push(`inner sees ${req.headers.traceparent === trace ? "the trace" : "no trace"}`);
      return next(req);
    };
    const client = new Client(addrs, { nodesInOrder: true, backoff: fastBackoff, interceptors: [outer, inner] });
    assert.deepEqual(await client.generate("users/"), ["users/1"]); // the first node refuses, the second answers
    await client.nextIdentity("orders");
    await client.close();
    assert.deepEqual(seen, [
      "POST /v1/ids at node 0",
      "inner sees the trace",
      "error NO_QUORUM",
      "POST /v1/ids at node 1",
      "inner sees the trace",
      "answer 200",
      "POST /v1/identities/orders:next at node 1",
      "inner sees the trace",
      "answer 200",
    ]);
    const received = nodes.flatMap((n) => n.seen);
    assert.equal(received.length, 3, "the nodes saw requests the interceptors did not");
    assert.ok(received.every((r) => r.headers.traceparent === trace), "a request went out without the header an interceptor added");
  });
});

test("a caller's request id passes through every attempt, over every node", async () => {
  const down: Reply = { status: 503, body: statusBody(Code.UNAVAILABLE, "no quorum", "NO_QUORUM") };
  await withNodes(
    [() => down, (_, n) => (n === 1 ? down : { status: 200, body: { ids: ["users/7"] } })],
    async (nodes, addrs) => {
      const client = new Client(addrs, { backoff: fastBackoff, nodesInOrder: true });
      assert.deepEqual(await client.generate("users|", { requestId: "mine-1" }), ["users/7"]);
      const seen = nodes.flatMap((n) => n.seen.map((s) => s.body.requestId));
      assert.ok(seen.length >= 3, `expected a second round, saw ${seen.length} attempts`);
      assert.ok(seen.every((id) => id === "mine-1"), `request ids: ${seen.join(", ")}`);
    },
  );
});

test("NODE_BUSY goes to the next node; a refusal comes back typed with its reason and metadata", async () => {
  await withNodes(
    [
      () => ({ status: 429, body: statusBody(Code.RESOURCE_EXHAUSTED, "busy", "NODE_BUSY") }),
      (req) =>
        req.body.id === "bad\\id"
          ? { status: 400, body: statusBody(Code.INVALID_ARGUMENT, "contains a backslash", "INVALID_INPUT", { field: "id" }) }
          : { status: 200, body: { ids: ["users/0000000000000000001-B"] } },
    ],
    async ([busy, ok], addrs) => {
      const client = new Client(addrs, { backoff: fastBackoff, nodesInOrder: true });
      assert.deepEqual(await client.generate("users/"), ["users/0000000000000000001-B"]);
      assert.equal(busy!.seen.length, 1);
      // The client now starts at the node that answered; a refusal there is final.
      const err = await client.generate("bad\\id").then(
        () => assert.fail("a refused call resolved"),
        (e: unknown) => e,
      );
      assert.ok(err instanceof InvalidArgumentError, String(err));
      assert.equal(err.codeName, "INVALID_ARGUMENT");
      assert.equal(err.reason, "INVALID_INPUT");
      assert.deepEqual(err.metadata, { field: "id" });
      assert.equal(err.httpStatus, 400);
      assert.equal(ok!.seen.length, 2);
      assert.equal(busy!.seen.length, 1, "a final refusal was retried");
      await client.close();
    },
  );
});

test("NODE_BUSY on every node: the call ends with maxAttempts, as ResourceExhaustedError", async () => {
  await withNodes([() => ({ status: 429, body: statusBody(Code.RESOURCE_EXHAUSTED, "busy", "NODE_BUSY") })], async ([node], addrs) => {
    const client = new Client(addrs, { backoff: { ...fastBackoff, maxAttempts: 4 } });
    const err = await client.generate("users/").catch((e: unknown) => e);
    assert.ok(err instanceof ResourceExhaustedError, String(err));
    assert.equal(err.reason, "NODE_BUSY");
    assert.equal(err.attempts, 4);
    assert.equal(node!.seen.length, 4);
  });
});

test("a node that hangs costs one attempt timeout, then the next node answers", async () => {
  await withNodes([() => "hang", () => ({ status: 200, body: { ids: ["x"] } })], async ([, ok], addrs) => {
    const client = new Client(addrs, { attemptTimeoutMs: 100, nodesInOrder: true });
    assert.deepEqual(await client.generate("x"), ["x"]);
    assert.equal(ok!.seen.length, 1);
  });
});

test("a leadership transfer waits past the attempt timeout for its answer, which it cannot ask for again", async () => {
  const moved = { status: 200, body: { leader: "B" }, afterMs: 300 };
  await withNodes([() => moved], async ([node], addrs) => {
    const client = new Client(addrs, { attemptTimeoutMs: 100, adminToken: "t" });
    assert.equal(await client.admin.transferLeadership("B"), "B");
    assert.equal(node!.seen.length, 1);
    // Any other call still gives up on a node after the attempt timeout.
    const err = await client.generate("x", { timeoutMs: 250 }).catch((e: unknown) => e);
    assert.ok(err instanceof DeadlineExceededError, String(err));
    await client.close();
  });
});

test("the caller's deadline ends a call: DEADLINE_EXCEEDED, with the nodes' refusal inside after retries", async () => {
  await withNodes([() => "hang"], async (_, addrs) => {
    const client = new Client(addrs);
    const err = await client.generate("x", { timeoutMs: 150 }).catch((e: unknown) => e);
    assert.ok(err instanceof DeadlineExceededError, String(err));
    const ac = new AbortController();
    const call = client.generate("x", { signal: ac.signal });
    ac.abort();
    await assert.rejects(call, CancelledError);
  });
  await withNodes([() => ({ status: 503, body: statusBody(Code.UNAVAILABLE, "no quorum", "NO_QUORUM") })], async (_, addrs) => {
    const client = new Client(addrs);
    const err = await client.nextIdentity("orders", { timeoutMs: 300 }).catch((e: unknown) => e);
    assert.ok(err instanceof DeadlineExceededError, String(err));
    assert.equal(err.reason, "NO_QUORUM");
    assert.ok(err.attempts > 1, `attempts ${err.attempts}`);
    assert.match(err.message, /deadline passed after \d+ failed attempts; most telling error: .*no quorum/);
    assert.ok(err.cause instanceof UnavailableError && err.cause.reason === "NO_QUORUM", `cause: ${String(err.cause)}`);
  });
});

const asyncDispose = (Symbol as { asyncDispose?: symbol }).asyncDispose;

test("where the runtime has Symbol.asyncDispose, disposing of a client closes it", { skip: asyncDispose === undefined ? "this runtime has no Symbol.asyncDispose" : false }, async () => {
  const client = new Client(["127.0.0.1:1"]);
  const dispose = (client as unknown as Record<symbol, (() => Promise<void>) | undefined>)[asyncDispose as symbol];
  assert.equal(typeof dispose, "function");
  await dispose?.call(client);
  await assert.rejects(client.generate("users/"), ClosedError);
});

test("every node failed: a live node's reason outranks a dead node's refusal that came after it", async () => {
  const dead = new FakeNode(() => "hang");
  const deadAddr = await dead.listen();
  await dead.close(); // its port now refuses connections
  await withNodes([() => ({ status: 503, body: statusBody(Code.UNAVAILABLE, "not caught up", "NOT_CAUGHT_UP") })], async (_, addrs) => {
    const client = new Client([...addrs, deadAddr], { nodesInOrder: true, backoff: { ...fastBackoff, maxAttempts: 4 } });
    const err = await client.generate("users/").catch((e: unknown) => e);
    assert.ok(err instanceof UnavailableError, String(err));
    assert.equal(err.reason, "NOT_CAUGHT_UP");
    assert.equal(err.node, client.nodes[0]);
    assert.equal(err.attempts, 4);
    assert.match(err.message, /most telling error: .*not caught up; last error: .*unreachable/);
    await client.close();
  });
});

test("close is bounded when no node answers a return: the numbers are counted and logged, not thrown", async () => {
  await withNodes(
    [(req) => (req.path.endsWith(":return") ? "hang" : { status: 200, body: { prefix: "orders/", low: "1", high: "32", lastSize: "32", serverTag: "A", grantId: "g1" } })],
    async (_, addrs) => {
      const log = new CapturedLog();
      const client = new Client(addrs, { logger: log, closeTimeoutMs: 50 });
      assert.equal(await client.nextId("orders"), "orders/1-A");
      await client.close(); // without its bound this waits for the client's 30 s deadline, then throws
      assert.equal(client.unreturned, 31);
      const gap = log.records.find((r) => r.level === "warn" && r.fields.first === "2" && r.fields.last === "32");
      assert.ok(gap !== undefined, JSON.stringify(log.records));
      assert.match(String(gap.fields.error), /deadline/);
    },
  );
});

test("a deadline further off than a timer can wait does not end a call at once", async () => {
  // Answers 20 ms after it is asked, unless the request is aborted first: setTimeout fires a
  // delay above 2^31 - 1 ms after 1 ms, which would end every call below before its answer.
  const fetch = (_url: string, init: RequestInit): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const count = String((JSON.parse(String(init.body)) as { count: string }).count);
      const t = setTimeout(() => resolve(new Response(JSON.stringify({ first: "1", last: count, skipped: [] }))), 20);
      init.signal?.addEventListener("abort", () => {
        clearTimeout(t);
        reject(init.signal?.reason);
      });
    });
  const client = new Client(["127.0.0.1:1"], { fetch, timeoutMs: 2 ** 40, attemptTimeoutMs: 2 ** 40 });
  assert.equal((await client.nextIdentity("orders")).first, 1n, "a folded call under the client's deadline");
  assert.equal((await client.nextIdentity("orders", { timeoutMs: 2 ** 31 })).first, 1n, "a folded call under its own");
  assert.equal((await client.nextIdentity("orders", { count: 2, timeoutMs: Number.MAX_SAFE_INTEGER })).last, 2n, "a call for a block");
  await client.close();
});

test("an unreachable node is UNAVAILABLE and the next one is tried", async () => {
  await withNodes([() => ({ status: 200, body: { ids: ["x"] } })], async ([ok], addrs) => {
    const dead = new FakeNode(() => "hang");
    const deadAddr = await dead.listen();
    await dead.close(); // its port now refuses connections
    const client = new Client([deadAddr, ...addrs], { nodesInOrder: true });
    assert.deepEqual(await client.generate("x"), ["x"]);
    assert.equal(ok!.seen.length, 1);
  });
});

test("the leader hint sends identity calls to the node that leads", async () => {
  const leaderGrpc = "127.0.0.1:1";
  const status = (self: string, grpcAddress: string): Reply => ({ status: 200, body: { self, nodes: [{ tag: self, grpcAddress }] } });
  const hint = { "grpc-metadata-idnode-leader": leaderGrpc };
  await withNodes(
    [
      (req) => (req.path.startsWith("/v1/status") ? status("A", "127.0.0.1:2") : { status: 200, body: { first: "1", last: "1" }, headers: hint }),
      (req) => (req.path.startsWith("/v1/status") ? status("B", leaderGrpc) : { status: 200, body: { first: "1", last: "1" }, headers: hint }),
    ],
    async ([follower, leader], addrs) => {
      const client = new Client(addrs, { nodesInOrder: true });
      // The first answers name the leader by its gRPC address; the client asks the nodes
      // theirs in the background and from then on starts identity calls at the leader.
      let calls = 0;
      while (leader!.seen.filter((s) => s.path.endsWith(":next")).length === 0 && calls < 200) {
        await client.nextIdentity("orders");
        calls++;
      }
      const before = follower!.seen.filter((s) => s.path.endsWith(":next")).length;
      for (let i = 0; i < 5; i++) await client.nextIdentity("orders");
      assert.equal(follower!.seen.filter((s) => s.path.endsWith(":next")).length, before, "calls went on to the follower");
      assert.ok(calls < 200, "the client never followed the hint");
      await client.close();
    },
  );
});

test("a follower still naming a leader the client saw fail does not send the next calls to it first", async () => {
  // After the leader dies the followers name it until they elect another: the client believes
  // its own observation over such a hint for a while.
  const leaderGrpc = "127.0.0.1:1";
  const status = (self: string, grpcAddress: string): Reply => ({ status: 200, body: { self, nodes: [{ tag: self, grpcAddress }] } });
  const hint = { "grpc-metadata-idnode-leader": leaderGrpc };
  let leaderDown = false;
  await withNodes(
    [
      (req) => (req.path.startsWith("/v1/status") ? status("A", "127.0.0.1:2") : { status: 200, body: { first: "1", last: "1" }, headers: hint }),
      (req) =>
        req.path.startsWith("/v1/status")
          ? status("B", leaderGrpc)
          : leaderDown
            ? { status: 503, body: { code: Code.UNAVAILABLE, message: "no healthy upstream" } }
            : { status: 200, body: { first: "1", last: "1" }, headers: hint },
    ],
    async ([, leader], addrs) => {
      const client = new Client(addrs, { nodesInOrder: true, backoff: fastBackoff });
      const atLeader = (): number => leader!.seen.filter((s) => s.path.endsWith(":next")).length;
      let calls = 0;
      while (atLeader() === 0 && calls < 200) {
        await client.nextIdentity("orders", { count: 2 });
        calls++;
      }
      assert.ok(calls < 200, "the client never followed the hint");
      leaderDown = true;
      const before = atLeader();
      for (let i = 0; i < 3; i++) await client.nextIdentity("orders", { count: 2 });
      assert.equal(atLeader(), before + 1, "after the leader failed, a follower's stale hint sent the next calls to it first again");
      await client.close();
    },
  );
});

test("credentials and database travel as headers; int64 values as strings; unsafe numbers are refused", async () => {
  await withNodes([() => ({ status: 200, body: { value: "9007199254740993" } })], async ([node], addrs) => {
    const client = new Client(addrs, { apiKey: "idk_1_secret", database: "shop" });
    assert.equal(await client.seedIdentity("orders", 9007199254740993n), 9007199254740993n);
    const seen = node!.seen[0]!;
    assert.equal(seen.headers.authorization, "Bearer idk_1_secret");
    assert.equal(seen.headers["idnode-database"], "shop");
    assert.equal(seen.body.value, "9007199254740993");
    await assert.rejects(client.seedIdentity("orders", 2 ** 60), InvalidArgumentError);
    await assert.rejects(client.seedIdentity("orders", -1n), InvalidArgumentError);
    await assert.rejects(client.nextIdentity("orders", { count: 1.5 }), InvalidArgumentError);
    assert.equal(node!.seen.length, 1, "a refused value reached the node");
  });
});

test("options out of range are refused when the client is made", () => {
  assert.throws(() => new Client([]), TypeError);
  assert.throws(() => new Client(["ftp://x:1"]), TypeError);
  assert.throws(() => new Client(["127.0.0.1:1"], { attemptTimeoutMs: -1 }), RangeError);
  assert.throws(() => new Client(["127.0.0.1:1"], { backoff: { jitter: 2 } }), RangeError);
  assert.throws(() => new Client(["127.0.0.1:1"], { backoff: { maxAttempts: 1.5 } }), RangeError);
  assert.throws(() => new Client(["127.0.0.1:1"], { separator: "|" }), InvalidArgumentError);
});

test("an admin call that may have been carried out is not sent again; one refused with NO_QUORUM is", async () => {
  const key: Reply = { status: 200, body: { id: "k1", key: "idk_k1_secret" } };
  await withNodes(
    [() => ({ status: 503, body: statusBody(Code.UNAVAILABLE, "answer lost", "OUTCOME_UNKNOWN") }), () => key],
    async ([first, second], addrs) => {
      const client = new Client(addrs, { backoff: fastBackoff, nodesInOrder: true, adminToken: "t" });
      await assert.rejects(client.databases.createKey("shop", "writer"), UnavailableError);
      assert.equal(first!.seen.length, 1);
      assert.equal(second!.seen.length, 0, "a key that may exist was made again");
      assert.equal(first!.seen[0]!.headers.authorization, "Bearer t");
    },
  );
  await withNodes(
    [() => ({ status: 503, body: statusBody(Code.UNAVAILABLE, "no quorum", "NO_QUORUM") }), () => key],
    async (_, addrs) => {
      const client = new Client(addrs, { backoff: fastBackoff, nodesInOrder: true });
      assert.deepEqual(await client.databases.createKey("shop", "writer"), { id: "k1", key: "idk_k1_secret" });
    },
  );
  assert.throws(() => new Client(["127.0.0.1:1"], { apiKey: "idk_1", adminToken: "t" }), TypeError);
});

// Only idnode's own ErrorInfo carries a reason, as in the Go, Python and Java clients: another
// domain's reason (a proxy's, say) is no idnode reason, so the error has none, as for a bare status.
test("an ErrorInfo of another domain gives no reason", async () => {
  const { errorOfAnswer } = await import("../../src/transport.js");
  const body = (domain: string) => JSON.stringify({
    code: Code.UNAVAILABLE,
    message: "no quorum",
    details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "NO_QUORUM", domain, metadata: { k: "v" } }],
  });
  const ours = errorOfAnswer(503, body("idnode.dev"), "n1");
  assert.equal(ours.reason, "NO_QUORUM");
  const theirs = errorOfAnswer(503, body("proxy.example.com"), "n1");
  const bare = errorOfAnswer(503, JSON.stringify({ code: Code.UNAVAILABLE, message: "no quorum" }), "n1");
  assert.equal(theirs.reason, bare.reason);
  assert.equal(theirs.reason, "");
  assert.deepEqual(theirs.metadata, bare.metadata);
});
