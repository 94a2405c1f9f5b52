import { test } from "node:test";
import assert from "node:assert/strict";
import { Client, Code, DEFAULT_TIMEOUT_MS, DeadlineExceededError } from "../../src/index.js";
import { FakeNode, statusBody } from "../support/fakenode.js";

// What the client needs of its runtime, and what it does when a caller gives no deadline.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test("a runtime without globalThis.crypto (Node 18) still makes a request id for every call", async () => {
  const node = new FakeNode((req) => (req.path === "/v1/ids" ? { status: 200, body: { ids: ["users/1"] } } : { status: 200, body: { first: "1", last: "2" } }));
  const crypto = Object.getOwnPropertyDescriptor(globalThis, "crypto");
  try {
    const addr = await node.listen();
    // Node 18 has fetch but no global crypto: it is behind --experimental-global-webcrypto.
    Reflect.deleteProperty(globalThis, "crypto");
    assert.equal((globalThis as { crypto?: unknown }).crypto, undefined);
    const client = new Client([addr]);
    await client.generate("users|");
    await client.nextIdentity("orders", { count: 2 });
    await client.nextIdentity("orders", { count: 2 });
    const ids = node.seen.map((s) => s.body.requestId);
    assert.equal(ids.length, 3);
    for (const id of ids) assert.match(String(id), UUID);
    assert.equal(new Set(ids).size, 3, `request ids repeat: ${ids.join(", ")}`);
  } finally {
    if (crypto !== undefined) Object.defineProperty(globalThis, "crypto", crypto);
    await node.close();
  }
});

test("a call with no deadline of its own ends at the client's (30 s unless told otherwise)", { timeout: 20_000 }, async () => {
  assert.equal(DEFAULT_TIMEOUT_MS, 30_000);
  const node = new FakeNode(() => ({ status: 503, body: statusBody(Code.UNAVAILABLE, "no quorum", "NO_QUORUM") }));
  try {
    const addr = await node.listen();
    const opts = { timeoutMs: 200, backoff: { initialMs: 1, maxMs: 5 } };
    const client = new Client([addr], opts);
    // A call, a folded identity and a block: each ends by the client's deadline, not never.
    for (const call of [() => client.generate("users|"), () => client.nextIdentity("orders"), () => client.nextIdentity("orders", { count: 3 })]) {
      const err = await call().catch((e: unknown) => e);
      assert.ok(err instanceof Error && /deadline/.test(err.message), String(err));
    }
    // A call's own timeoutMs overrides the client's.
    const hung = new FakeNode(() => "hang");
    try {
      const long = { timeoutMs: 60_000, attemptTimeoutMs: 0 };
      const slow = new Client([await hung.listen()], long);
      await assert.rejects(slow.generate("x", { timeoutMs: 100 }), DeadlineExceededError);
    } finally {
      await hung.close();
    }
  } finally {
    await node.close();
  }
});

test("on Node the client speaks HTTP through node:http; a fetch of the caller's own is used as given", async () => {
  const node = new FakeNode(() => ({ status: 200, body: { ids: ["users/1"] } }));
  const platformFetch = globalThis.fetch;
  let platformCalls = 0;
  globalThis.fetch = (input, init) => {
    platformCalls++;
    return platformFetch(input, init);
  };
  try {
    const addr = await node.listen();
    assert.deepEqual(await new Client([addr]).generate("users|"), ["users/1"]);
    assert.equal(platformCalls, 0, "the platform's fetch was used on Node");
    let ownCalls = 0;
    const own = new Client([addr], {
      fetch: (input, init) => {
        ownCalls++;
        return platformFetch(input, init);
      },
    });
    assert.deepEqual(await own.generate("users|", { count: 1 }), ["users/1"]);
    assert.equal(ownCalls, 1);
    assert.equal(node.seen.length, 2);
    assert.equal(node.seen[1]!.headers["content-type"], "application/json");
  } finally {
    globalThis.fetch = platformFetch;
    await node.close();
  }
});
