// The few Node APIs the tests use. Debian packages no @types/node and npm is out of reach, so
// these are written by hand, as narrow as the tests need them; the client itself uses none.

declare module "node:test" {
  interface TestContext {
    test(name: string, fn: (t: TestContext) => Promise<void> | void): Promise<void>;
    skip(message?: string): void;
    diagnostic(message: string): void;
    after(fn: () => Promise<void> | void): void;
  }
  interface TestOptions {
    timeout?: number;
    skip?: boolean | string;
    concurrency?: number | boolean;
  }
  function test(name: string, fn: (t: TestContext) => Promise<void> | void): Promise<void>;
  function test(name: string, opts: TestOptions, fn: (t: TestContext) => Promise<void> | void): Promise<void>;
  function describe(name: string, fn: () => void): void;
  function before(fn: () => Promise<void> | void, opts?: { timeout?: number }): void;
  function after(fn: () => Promise<void> | void, opts?: { timeout?: number }): void;
  export { test, describe, before, after, TestContext };
  export default test;
}

declare module "node:assert/strict" {
  function ok(value: unknown, message?: string): asserts value;
  namespace ok {}
  function equal(actual: unknown, expected: unknown, message?: string): void;
  function notEqual(actual: unknown, expected: unknown, message?: string): void;
  function deepEqual(actual: unknown, expected: unknown, message?: string): void;
  function match(value: string, re: RegExp, message?: string): void;
  function doesNotMatch(value: string, re: RegExp, message?: string): void;
  function fail(message?: string): never;
  function rejects(p: Promise<unknown> | (() => Promise<unknown>), expected?: unknown, message?: string): Promise<void>;
  function throws(fn: () => unknown, expected?: unknown, message?: string): void;
  const assert: {
    ok: typeof ok;
    equal: typeof equal;
    notEqual: typeof notEqual;
    deepEqual: typeof deepEqual;
    match: typeof match;
    doesNotMatch: typeof doesNotMatch;
    fail: typeof fail;
    rejects: typeof rejects;
    throws: typeof throws;
  };
  export default assert;
}

declare module "node:child_process" {
  interface Readable {
    on(event: "data", fn: (chunk: Uint8Array) => void): void;
    setEncoding(enc: string): void;
  }
  interface Writable {
    write(s: string): boolean;
    end(): void;
  }
  interface ChildProcess {
    pid?: number;
    stdin: Writable | null;
    stdout: Readable | null;
    stderr: Readable | null;
    stdio: unknown[];
    exitCode: number | null;
    kill(signal?: string): boolean;
    on(event: "exit", fn: (code: number | null, signal: string | null) => void): void;
    on(event: "close", fn: (code: number | null, signal: string | null) => void): void;
    on(event: "error", fn: (err: Error) => void): void;
  }
  interface SpawnOptions {
    cwd?: string;
    env?: Record<string, string | undefined>;
    stdio?: ("pipe" | "inherit" | "ignore")[];
  }
  function spawn(cmd: string, args: readonly string[], opts?: SpawnOptions): ChildProcess;
  function execFileSync(cmd: string, args: readonly string[], opts?: { cwd?: string; stdio?: string; timeout?: number; encoding?: string; env?: Record<string, string | undefined> }): string;
  export { spawn, execFileSync, ChildProcess };
}

declare module "node:http" {
  interface IncomingMessage {
    method?: string;
    url?: string;
    headers: Record<string, string | string[] | undefined>;
    on(event: "data", fn: (chunk: Uint8Array) => void): void;
    on(event: "end", fn: () => void): void;
  }
  interface ServerResponse {
    writeHead(status: number, headers?: Record<string, string>): void;
    end(body?: string): void;
  }
  interface AddressInfo {
    port: number;
  }
  interface Server {
    listen(port: number, host: string, cb: () => void): void;
    address(): AddressInfo;
    close(cb?: () => void): void;
    closeAllConnections(): void;
  }
  function createServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Server;
  export { createServer, IncomingMessage, ServerResponse, Server };
}

declare module "node:fs" {
  function readFileSync(path: string, enc: "utf8"): string;
  function readdirSync(path: string): string[];
  function existsSync(path: string): boolean;
  function mkdtempSync(prefix: string): string;
  function writeFileSync(path: string, data: string): void;
  function rmSync(path: string, opts: { recursive: boolean; force: boolean }): void;
  function symlinkSync(target: string, path: string, type?: "dir" | "file"): void;
  function statSync(path: string): { mtimeMs: number };
  export { readFileSync, readdirSync, existsSync, mkdtempSync, writeFileSync, rmSync, symlinkSync, statSync };
}

declare module "node:os" {
  function tmpdir(): string;
  function cpus(): unknown[];
  export { tmpdir, cpus };
}

declare module "node:path" {
  function join(...parts: string[]): string;
  function resolve(...parts: string[]): string;
  function dirname(p: string): string;
  export { join, resolve, dirname };
}

declare module "node:url" {
  function fileURLToPath(url: string): string;
  export { fileURLToPath };
}

declare const process: {
  env: Record<string, string | undefined>;
  argv: string[];
  exitCode: number | undefined;
  pid: number;
  execPath: string;
  stdout: { write(s: string): boolean };
  stderr: { write(s: string): boolean };
  stdin: { on(event: "data", fn: (chunk: Uint8Array) => void): void; on(event: "end", fn: () => void): void; setEncoding(enc: string): void };
  hrtime: { bigint(): bigint };
  on(event: string, fn: () => void): void;
  exit(code?: number): never;
};

interface ImportMeta {
  url: string;
}
