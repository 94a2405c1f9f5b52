import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { FakeNode } from "../support/fakenode.js";

test("a program that ends without close still gives its unused HiLo numbers back", async () => {
  const node = new FakeNode((req) =>
    req.path.endsWith(":next")
      ? { status: 200, body: { prefix: "orders/", low: "1", high: "32", lastSize: "32", serverTag: "A", lastRangeAt: "1", grantId: "g1" } }
      : { status: 200, body: { returned: true } },
  );
  try {
    const addr = await node.listen();
    const child = spawn(process.execPath, [fileURLToPath(new URL("../support/exit-child.js", import.meta.url).href), addr], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (c) => (out += String(c)));
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (c) => (err += String(c)));
    // "close", not "exit": at "exit" the child's output may not all have been read yet.
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    assert.equal(code, 0, err);
    assert.deepEqual(JSON.parse(out), ["orders/1-A", "orders/2-A", "orders/3-A"]);
    const returns = node.seen.filter((s) => s.path.endsWith(":return"));
    assert.equal(returns.length, 1, "no return at the end of the program");
    const { requestId, ...ret } = returns[0]!.body;
    assert.deepEqual(ret, { end: "32", last: "3", grantId: "g1" });
    assert.match(String(requestId), /^hilo-return-/, "the return carries a request id of its own");
  } finally {
    await node.close();
  }
});
