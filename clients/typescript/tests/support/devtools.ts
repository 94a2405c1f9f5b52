import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: the
// browser reads commands on its fd 3 and writes answers and events on its fd 4, each a JSON
// text ended by a NUL byte). A test opens a page and waits for the promise the page's script
// leaves in window.outcome, in real time: Chromium's --virtual-time-budget, which --dump-dom
// needs, ran the page's timers ahead of calls still on the wire, and dumped pages whose calls
// had not ended.
//
// Chromium watches the machine's network interfaces and, when one comes or goes, fails every
// request in flight with net::ERR_NETWORK_CHANGED, also those to 127.0.0.1. Tests beside this one
// start Docker containers and network namespaces, each a new interface: a module of the page
// cut off that way leaves its script unrun, and window.outcome unset. Such a page made no call,
// so it is loaded again, at most maxLoads times in all.

/** How long a page may take to settle its outcome, in real time. */
const outcomeTimeoutMs = 90_000;

/** How many times a page whose script a network change kept from running is loaded, in all. */
const maxLoads = 3;

interface Message {
  id?: number;
  method?: string;
  sessionId?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

/**
 * The settled value of window.outcome of the page at url, a string, as headless Chromium
 * evaluates it. Rejects with what the page logged when the page throws, the outcome is not a
 * string, or nothing settles within outcomeTimeoutMs. note hears of each load again.
 */
export async function pageOutcome(chromium: string, url: string, note: (line: string) => void = () => {}): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), "idnode-ts-chromium-"));
  // As root in a container Chromium's sandbox cannot start; the page is the test's own.
  const proc = spawn(
    chromium,
    ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", `--user-data-dir=${profile}`, "--remote-debugging-pipe", "about:blank"],
    { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] },
  );
  const closed = new Promise<void>((resolve) => proc.on("close", () => resolve()));
  let stderr = "";
  proc.stderr?.setEncoding("utf8");
  proc.stderr?.on("data", (c) => (stderr = (stderr + String(c)).slice(-2000)));
  const logged: string[] = [];
  const waiting = new Map<number, { resolve: (m: Message) => void; reject: (e: Error) => void }>();
  const listeners: ((m: Message) => void)[] = [];
  let failed: ((e: Error) => void) | undefined;
  const gone = new Promise<never>((_, reject) => {
    failed = reject;
    proc.on("close", (code) => reject(new Error(`chromium exited ${code} before the page's outcome: ${stderr}`)));
  });
  gone.catch(() => {});

  const [toBrowser, fromBrowser] = [proc.stdio[3], proc.stdio[4]] as [PipeWritable, PipeReadable];
  let buf = "";
  fromBrowser.setEncoding("utf8");
  fromBrowser.on("data", (c) => {
    buf += String(c);
    for (let end = buf.indexOf("\0"); end >= 0; end = buf.indexOf("\0")) {
      const m = JSON.parse(buf.slice(0, end)) as Message;
      buf = buf.slice(end + 1);
      if (m.id === undefined) {
        for (const l of listeners) l(m);
        continue;
      }
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.error) w?.reject(new Error(m.error.message));
      else w?.resolve(m);
    }
  });
  let nextID = 1;
  const send = (method: string, params: Record<string, unknown>, sessionId?: string): Promise<Message> => {
    const id = nextID++;
    const answer = new Promise<Message>((resolve, reject) => waiting.set(id, { resolve, reject }));
    toBrowser.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + "\0");
    return Promise.race([answer, gone]);
  };
  listeners.push((m) => {
    if (m.method === "Runtime.consoleAPICalled") {
      const args = (m.params?.args as { value?: unknown; description?: string }[] | undefined) ?? [];
      logged.push(`console.${String(m.params?.type)}: ${args.map((a) => String(a.value ?? a.description)).join(" ")}`);
    } else if (m.method === "Runtime.exceptionThrown") {
      logged.push(`exception: ${JSON.stringify(m.params?.exceptionDetails)}`);
    } else if (m.method === "Log.entryAdded") {
      // The browser's own messages: a resource that failed to load is one.
      const entry = m.params?.entry as { level?: string; text?: string; url?: string } | undefined;
      logged.push(`log.${String(entry?.level)}: ${String(entry?.text)} ${entry?.url ?? ""}`);
    }
  });

  const timer = setTimeout(() => failed?.(new Error(`no outcome within ${outcomeTimeoutMs} ms; the page logged:\n${logged.join("\n")}\nchromium: ${stderr}`)), outcomeTimeoutMs);
  try {
    const targets = await send("Target.getTargets", {});
    const infos = (targets.result?.targetInfos as { targetId: string; type: string }[] | undefined) ?? [];
    const target = infos.find((t) => t.type === "page");
    if (target === undefined) throw new Error(`chromium opened no page: ${JSON.stringify(infos)}`);
    const attached = await send("Target.attachToTarget", { targetId: target.targetId, flatten: true });
    const session = String(attached.result?.sessionId);
    // The load that counts is the navigation's own. Chromium opens about:blank as it starts,
    // and a Chromium slow to start fires that page's load after Page.enable: waiting for any
    // load event then read window.outcome of a document whose script had not run. Page.navigate
    // names the loader of its document, and each lifecycle event names its loader.
    const loads = new Set<string>();
    let loadSeen = (): void => {};
    listeners.push((m) => {
      if (m.sessionId === session && m.method === "Page.lifecycleEvent" && m.params?.name === "load") {
        loads.add(String(m.params.loaderId));
        loadSeen();
      }
    });
    await send("Runtime.enable", {}, session);
    await send("Page.enable", {}, session);
    await send("Log.enable", {}, session);
    await send("Page.setLifecycleEventsEnabled", { enabled: true }, session);
    for (let load = 1; ; load++) {
      const loggedBefore = logged.length;
      const navigated = await send("Page.navigate", { url }, session);
      if (navigated.result?.errorText) throw new Error(`navigating to ${url}: ${String(navigated.result.errorText)}`);
      const loaderId = String(navigated.result?.loaderId);
      const loaded = new Promise<void>((resolve) => {
        loadSeen = () => loads.has(loaderId) && resolve();
        loadSeen();
      });
      await Promise.race([loaded, gone]);
      // A module script runs before the load event, and sets window.outcome as it starts.
      // The renderer logs the failed module that left the script unrun before it fires the
      // load, and its messages come in order: that line is here before this answer.
      const evaluated = await send("Runtime.evaluate", { expression: "window.outcome", awaitPromise: true, returnByValue: true }, session);
      const outcome = evaluated.result?.result as { type?: string; value?: unknown } | undefined;
      if (evaluated.result?.exceptionDetails === undefined && typeof outcome?.value === "string") return outcome.value;
      const cutOff = logged.slice(loggedBefore).some((l) => l.includes("net::ERR_NETWORK_CHANGED"));
      if (outcome?.type === "undefined" && cutOff && load < maxLoads) {
        const line = `load ${load} of ${url}: a network change kept the page's script from running; loading it again`;
        logged.push(line);
        note(line);
        continue;
      }
      throw new Error(`the page's outcome is ${JSON.stringify(evaluated.result)} after ${load} loads; the page logged:\n${logged.join("\n")}`);
    }
  } finally {
    clearTimeout(timer);
    proc.kill("SIGKILL");
    await closed;
    rmSync(profile, { recursive: true, force: true });
  }
}

/** The browser's end of fd 4, as Node hands it to the test. */
interface PipeReadable {
  on(event: "data", fn: (chunk: Uint8Array) => void): void;
  setEncoding(enc: string): void;
}

/** The browser's end of fd 3. */
interface PipeWritable {
  write(s: string): boolean;
}
