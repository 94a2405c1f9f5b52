/**
 * Work to do when the program ends, where the runtime tells: Node and Bun emit "beforeExit" when
 * the event loop runs dry (not on process.exit() or a signal), which leaves time for the network
 * calls a HiLo return makes; browsers fire "pagehide", after which only fetches marked keepalive
 * get out, so those handlers are told to send them so.
 *
 * Neither is final: a page hidden into the back/forward cache is shown again, and a program
 * whose beforeExit handlers started work goes on. So handlers stay until cancelled, and run
 * each time; one with nothing left to do must start no work, or the program would not end.
 */
type Handler = (keepalive: boolean) => Promise<void>;

interface EventSource {
  on?(event: string, listener: () => void): unknown;
  addEventListener?(event: string, listener: () => void): unknown;
}

const handlers = new Set<Handler>();
let installed = false;

function runAll(keepalive: boolean): void {
  for (const h of [...handlers]) {
    h(keepalive).catch(() => undefined); // the program is ending: nobody is left to tell
  }
}

function install(): void {
  installed = true;
  const g = globalThis as unknown as { process?: EventSource } & EventSource;
  if (typeof g.process?.on === "function") {
    g.process.on("beforeExit", () => runAll(false));
  } else if (typeof g.addEventListener === "function") {
    g.addEventListener("pagehide", () => runAll(true));
  }
}

/** Runs h when the program ends (see above); the function returned cancels that. */
export function atExit(h: Handler): () => void {
  if (!installed) install();
  handlers.add(h);
  return () => {
    handlers.delete(h);
  };
}
