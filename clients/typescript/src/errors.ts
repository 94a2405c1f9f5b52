/** The gRPC status codes, by number, as the node sends them in its JSON error answers. */
export const Code = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

export type CodeName = keyof typeof Code;

/** The ErrorInfo reasons the node gives (reason package); a refusal without one carries its code's name. */
export const Reason = {
  NO_QUORUM: "NO_QUORUM",
  OUTCOME_UNKNOWN: "OUTCOME_UNKNOWN",
  SHUTTING_DOWN: "SHUTTING_DOWN",
  NOT_REGISTERED: "NOT_REGISTERED",
  NOT_CAUGHT_UP: "NOT_CAUGHT_UP",
  INVALID_INPUT: "INVALID_INPUT",
  REQUEST_ID_REUSED: "REQUEST_ID_REUSED",
  IN_USE: "IN_USE",
  CLAIMED: "CLAIMED",
  SEPARATOR_MISMATCH: "SEPARATOR_MISMATCH",
  RANGE_RETURNED: "RANGE_RETURNED",
  SERIES_RESTORING: "SERIES_RESTORING",
  COUNTER_OVERFLOW: "COUNTER_OVERFLOW",
  STORAGE_FULL: "STORAGE_FULL",
  STORAGE_FAILED: "STORAGE_FAILED",
  NODE_BUSY: "NODE_BUSY",
  /** The node's state differs from the majority's: the cluster fenced it until it is rebuilt; another node serves. */
  REPLICA_DIVERGED: "REPLICA_DIVERGED",
  /** The collection is opaque: its values are not published, so nextIdentity is refused; generate("orders|") gives its IDs. */
  OPAQUE_COLLECTION: "OPAQUE_COLLECTION",
  /** A string under an opaque collection that is not one of its IDs (length, alphabet, or another database's key). */
  NOT_OPAQUE_FORM: "NOT_OPAQUE_FORM",
} as const;

const codeNames: readonly CodeName[] = Object.keys(Code) as CodeName[];

/** The canonical name of a gRPC code number ("UNAVAILABLE" for 14); "UNKNOWN" for one outside 0..16. */
export function codeName(code: number): CodeName {
  return codeNames[code] ?? "UNKNOWN";
}

/** What the client knows about a refusal beyond its code. */
export interface ErrorDetails {
  /** The ErrorInfo reason ("NO_QUORUM", "INVALID_INPUT", …); "" when the answer carried none. */
  reason?: string;
  /** The ErrorInfo metadata: fields the node attached to the reason. */
  metadata?: Readonly<Record<string, string>>;
  /** The HTTP status of the answer; 0 when no node answered (network error, timeout). */
  httpStatus?: number;
  /** The node (base URL) that gave this answer. */
  node?: string;
  /** How many attempts the call made before giving up, when it retried. */
  attempts?: number;
  cause?: unknown;
}

/**
 * Every error the client throws: the gRPC code (number and name), the ErrorInfo reason and its
 * metadata, so callers branch on `err.reason === "NO_QUORUM"` or `err instanceof UnavailableError`
 * rather than on message text.
 */
export class IdnodeError extends Error {
  readonly code: number;
  readonly codeName: CodeName;
  readonly reason: string;
  readonly metadata: Readonly<Record<string, string>>;
  readonly httpStatus: number;
  readonly node: string;
  readonly attempts: number;
  readonly cause: unknown;

  constructor(code: number, message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.codeName = codeName(code);
    this.reason = details.reason ?? "";
    this.metadata = details.metadata ?? {};
    this.httpStatus = details.httpStatus ?? 0;
    this.node = details.node ?? "";
    this.attempts = details.attempts ?? 1;
    this.cause = details.cause;
  }

  /** Whether the node did nothing and another node (or a later attempt) may succeed. */
  get retryable(): boolean {
    return this.code === Code.UNAVAILABLE || (this.code === Code.RESOURCE_EXHAUSTED && this.reason === Reason.NODE_BUSY);
  }
}

export class CancelledError extends IdnodeError {}
export class UnknownError extends IdnodeError {}
/** Bad input: the message names the rule and the value. Nothing changed. */
export class InvalidArgumentError extends IdnodeError {}
/** The call's deadline passed (the caller's, or one attempt's while others were tried). */
export class DeadlineExceededError extends IdnodeError {}
export class NotFoundError extends IdnodeError {}
/** A duplicate: a claimed semantic ID (reason CLAIMED), a node tag or series in use. */
export class AlreadyExistsError extends IdnodeError {}
export class PermissionDeniedError extends IdnodeError {}
/** NODE_BUSY: the node holds as many calls as it takes; the client tries another node. */
export class ResourceExhaustedError extends IdnodeError {}
export class FailedPreconditionError extends IdnodeError {}
export class AbortedError extends IdnodeError {}
export class OutOfRangeError extends IdnodeError {}
export class UnimplementedError extends IdnodeError {}
export class InternalError extends IdnodeError {}
/** No leader, no quorum, node down: safe to retry; reason OUTCOME_UNKNOWN means retry with the same request id. */
export class UnavailableError extends IdnodeError {}
export class DataLossError extends IdnodeError {}
/** No credential, or one the cluster does not know: give the client an API key. */
export class UnauthenticatedError extends IdnodeError {}

type ErrorClass = new (code: number, message: string, details?: ErrorDetails) => IdnodeError;

const classes: readonly ErrorClass[] = [
  IdnodeError,
  CancelledError,
  UnknownError,
  InvalidArgumentError,
  DeadlineExceededError,
  NotFoundError,
  AlreadyExistsError,
  PermissionDeniedError,
  ResourceExhaustedError,
  FailedPreconditionError,
  AbortedError,
  OutOfRangeError,
  UnimplementedError,
  InternalError,
  UnavailableError,
  DataLossError,
  UnauthenticatedError,
];

/**
 * The collection is opaque (reason OPAQUE_COLLECTION): its values are not published, so
 * `nextIdentity` is refused; `generate("orders|", count)` gives its IDs, each an opaque form
 * (`opaqueId` checks one).
 */
export class OpaqueCollectionError extends FailedPreconditionError {}
/**
 * A string under an opaque collection that is not one of its IDs (reason NOT_OPAQUE_FORM): the
 * wrong length, a character outside Crockford's base 32, or a form made under another
 * database's key; the message says which.
 */
export class NotOpaqueFormError extends InvalidArgumentError {}

/** The reasons that have a class of their own, with the code they come with. */
const reasonClasses: Readonly<Record<string, { code: number; Class: ErrorClass }>> = {
  [Reason.OPAQUE_COLLECTION]: { code: Code.FAILED_PRECONDITION, Class: OpaqueCollectionError },
  [Reason.NOT_OPAQUE_FORM]: { code: Code.INVALID_ARGUMENT, Class: NotOpaqueFormError },
};

/**
 * The error of gRPC code `code`, as the subclass of IdnodeError made for it, or for its reason
 * when the reason has one (OPAQUE_COLLECTION, NOT_OPAQUE_FORM) and comes with its code.
 */
export function errorOf(code: number, message: string, details: ErrorDetails = {}): IdnodeError {
  const byReason = Object.prototype.hasOwnProperty.call(reasonClasses, details.reason ?? "") ? reasonClasses[details.reason as string] : undefined;
  const Class = byReason?.code === code ? byReason.Class : (classes[code] ?? UnknownError);
  return new Class(code, message, details);
}

/** The refusal a client makes itself for input the node would refuse, with the node's code and reason. */
export function invalidInput(message: string): InvalidArgumentError {
  return new InvalidArgumentError(Code.INVALID_ARGUMENT, message, { reason: Reason.INVALID_INPUT });
}

/** Thrown by calls on a closed Client or generator. */
export class ClosedError extends IdnodeError {
  constructor(what: string) {
    super(Code.FAILED_PRECONDITION, `idnode: ${what} is closed; make a new one`, { reason: "CLOSED" });
  }
}
