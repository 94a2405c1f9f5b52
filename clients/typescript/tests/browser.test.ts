import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer, Server } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { IdCluster, httpAddrs } from "./support/cluster.js";
import { pageOutcome } from "./support/devtools.js";

// A page in headless Chromium uses the client from another origin than the nodes': the page of
// an origin the operator allowed (--http-allowed-origins) gets IDs from a 3-node cluster, the
// same page from any other origin gets nothing. The page's script leaves its outcome in
// window.outcome, a promise of a string, which the test waits for over the DevTools protocol.

/** The compiled client, as the page imports it. */
const clientDir = join(dirname(fileURLToPath(import.meta.url)), "..", "src");

function browser(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
      if (existsSync(join(dir, name))) return join(dir, name);
    }
  }
  return undefined;
}

/**
 * A page whose module script makes a client of nodes with options (JavaScript source) and runs
 * body (statements that return the outcome's text after "OK "): window.outcome is the promise
 * of "OK …", or of "ERR" with the error's name, code name and message.
 */
function pageWith(nodes: string[], options: string, body: string): string {
  return `<!doctype html><html><body><script type="module">
import { Client } from "/idnode/index.js";
const client = new Client(${JSON.stringify(nodes)}, ${options});
window.outcome = (async () => {
  try {
${body}
  } catch (e) {
    return "ERR " + e.name + " " + e.codeName + " " + e.message;
  }
})();
</script></body></html>`;
}

function page(nodes: string[]): string {
  return pageWith(nodes, "{ attemptTimeoutMs: 2000, backoff: { maxAttempts: 4 } }", `
    const ids = await client.generate("users|", { count: 2, timeoutMs: 8000 });
    const hilo = await client.nextId("orders");
    await client.close({ timeoutMs: 5000 });
    return "OK " + JSON.stringify([...ids, hilo]);`);
}

/**
 * A page that takes a HiLo ID, then goes into the back/forward cache and comes back: pagehide
 * and pageshow with persisted set, the events the browser fires around the cache. The numbers
 * given back when the page was hidden are the ones the page hands out once shown again.
 */
function cachedPage(nodes: string[]): string {
  return pageWith(nodes, "{ attemptTimeoutMs: 2000, timeoutMs: 8000 }", `
    const gen = client.hilo("orders");
    const ids = [await gen.next()];
    window.dispatchEvent(new PageTransitionEvent("pagehide", { persisted: true }));
    window.dispatchEvent(new PageTransitionEvent("pageshow", { persisted: true }));
    ids.push(await gen.next(), await client.nextId("orders"));
    return "OK " + JSON.stringify(ids) + " " + gen.stats.returned;`);
}

/** A web server of the page (made when asked for) and the client's modules, on its own origin. */
async function serve(html: () => string): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const url = req.url ?? "/";
    if (url === "/") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(html());
      return;
    }
    const file = /^\/idnode\/([a-z]+\.js)$/.exec(url);
    if (file === null || !existsSync(join(clientDir, file[1]!))) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "text/javascript" });
    res.end(readFileSync(join(clientDir, file[1]!), "utf8"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${server.address().port}` };
}

const chromium = browser();

test(
  "a page of an allowed origin gets IDs from three nodes; the same page from another origin gets nothing",
  { skip: chromium === undefined ? "no chromium on PATH (apt-get install chromium)" : false, timeout: 180_000 },
  async (t) => {
    let nodes: string[] = [];
    const pages = await Promise.all([serve(() => page(nodes)), serve(() => page(nodes))]);
    const [allowed, other] = pages as [{ server: Server; origin: string }, { server: Server; origin: string }];
    const cluster = new IdCluster();
    try {
      const info = await cluster.start({ nodes: 3, httpAllowedOrigins: [allowed.origin] });
      nodes = httpAddrs(info).map((a) => `http://${a}`);
      // The refused page goes first: had any call of it got through, the allowed page's
      // identities would not start at 1. Its first call fails, so it never asks for a HiLo
      // range, and the allowed page's range may start anywhere: each node's pool reserves its
      // own block of the tag, and on a busy machine an attempt that timed out may have made a
      // node reserve one before the node that answered did.
      const refused = await pageOutcome(chromium as string, `${other.origin}/`, (l) => t.diagnostic(l));
      t.diagnostic(`refused page: ${refused}`);
      assert.match(refused, /^ERR UnavailableError UNAVAILABLE /, refused);
      assert.doesNotMatch(refused, /users\/\d/);
      const got = await pageOutcome(chromium as string, `${allowed.origin}/`, (l) => t.diagnostic(l));
      t.diagnostic(`allowed page: ${got}`);
      assert.match(got, /^OK \["users\/1","users\/2","orders\/[1-9]\d*-[ABC]"\]$/, got);
    } finally {
      for (const p of pages) p.server.close();
      await cluster.close();
    }
  },
);

test(
  "a page shown again from the back/forward cache takes IDs again, starting with the numbers it gave back",
  { skip: chromium === undefined ? "no chromium on PATH (apt-get install chromium)" : false, timeout: 180_000 },
  async (t) => {
    let nodes: string[] = [];
    const site = await serve(() => cachedPage(nodes));
    const cluster = new IdCluster();
    try {
      const info = await cluster.start({ nodes: 1, httpAllowedOrigins: [site.origin] });
      nodes = httpAddrs(info).map((a) => `http://${a}`);
      const got = await pageOutcome(chromium as string, `${site.origin}/`, (l) => t.diagnostic(l));
      t.diagnostic(`page: ${got}`);
      assert.match(got, /^OK \["orders\/1-A","orders\/2-A","orders\/3-A"\] true$/, got);
    } finally {
      site.server.close();
      await cluster.close();
    }
  },
);
