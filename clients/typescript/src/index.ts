/**
 * idnode's TypeScript client: an ES module with no dependencies that speaks the nodes' HTTP/JSON
 * API through the platform's fetch (node:http on Node), so it runs on Node, Deno, Bun and in
 * browsers.
 */
export { Client } from "./client.js";
export type { AdminCalls, Backup, ClusterStatus, ClusterVersion, LeaderChange, MemberVersion, NewNode, NodeStatus, WhoAmI } from "./admin.js";
export type { Claim, ClientOptions, Explanation, GenerateOptions, HiLoPool, HiLoTag, Identity, IdentityBlock, OpaqueStatus } from "./client.js";
export type { DatabaseCalls, DatabaseStatus, KeyStatus } from "./databases.js";
export type { Series, SeriesCalls, SeriesEntry, SeriesPeriod, SeriesPolicy, SeriesVerification } from "./series.js";
export type { WorkerCalls, WorkerStatus } from "./workers.js";
export {
  AbortedError,
  AlreadyExistsError,
  CancelledError,
  ClosedError,
  Code,
  DataLossError,
  DeadlineExceededError,
  FailedPreconditionError,
  IdnodeError,
  InternalError,
  InvalidArgumentError,
  NotFoundError,
  NotOpaqueFormError,
  OpaqueCollectionError,
  OutOfRangeError,
  PermissionDeniedError,
  Reason,
  ResourceExhaustedError,
  UnauthenticatedError,
  UnavailableError,
  UnimplementedError,
  UnknownError,
  codeName,
} from "./errors.js";
export type { CodeName, ErrorDetails } from "./errors.js";
export { DEFAULT_FETCH_TIMEOUT_MS, DEFAULT_PREFETCH_AT, HiLoGenerator, HiLoGenerators } from "./hilo.js";
export type { HiLoOptions, HiLoRange, HiLoReturn, HiLoStats, NextHiLoRequest, RangeSource, ReturnOptions } from "./hilo.js";
export type { LogFields, Logger } from "./log.js";
export { DEFAULT_LAYOUT, JS_SAFE_LAYOUT, NumericError, NumericGenerator } from "./numeric.js";
export type { Layout, NumericOptions, WorkerLease, WorkerLeaser } from "./numeric.js";
export { DEFAULT_ATTEMPT_TIMEOUT_MS, DEFAULT_BACKOFF, DEFAULT_CLOSE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, LEADER_HEADER } from "./transport.js";
export type { Refusals } from "./refusals.js";
export type { Backoff, CallOptions, FetchFunction, IdnodeRequest, IdnodeResponse, Interceptor, RequestHandler } from "./transport.js";
export type { Json, JsonObject } from "./json.js";
export { MarginNotAppliedError } from "./restore.js";
export type { CounterMargin, MarginPart, RatesMargin, RestoreMargin, RestoreOptions, RestoreResult } from "./restore.js";
export { OPAQUE_ID_LENGTH, opaqueId, opaqueNumericId } from "./opaque.js";
