package dev.idnode.client;

/**
 * The {@code google.rpc.ErrorInfo} reasons idnode sends (proto/idnode/v1/idnode.proto lists
 * what each means). Any other refusal carries its code's name as reason.
 */
public final class Reasons {
  /** No leader or majority now; nothing was done. Retry. */
  public static final String NO_QUORUM = "NO_QUORUM";
  /** Leadership was lost in flight; retry with the same request id. */
  public static final String OUTCOME_UNKNOWN = "OUTCOME_UNKNOWN";
  /** The node is stopping; another node serves. */
  public static final String SHUTTING_DOWN = "SHUTTING_DOWN";
  /** The node is not registered under its tag yet. */
  public static final String NOT_REGISTERED = "NOT_REGISTERED";
  /** The node has not caught up with the cluster since it started; another node serves. */
  public static final String NOT_CAUGHT_UP = "NOT_CAUGHT_UP";
  /** The message names the rule broken and the value. */
  public static final String INVALID_INPUT = "INVALID_INPUT";
  /** The request id answered a different request. */
  public static final String REQUEST_ID_REUSED = "REQUEST_ID_REUSED";
  /** A node tag or address another node holds, or a retired tag. */
  public static final String IN_USE = "IN_USE";
  /** A claimed ID (or an identity handed out); the message names its owner. */
  public static final String CLAIMED = "CLAIMED";
  /** The node's separator is not the cluster's. */
  public static final String SEPARATOR_MISMATCH = "SEPARATOR_MISMATCH";
  /** A retried HiLo request's range was given back since. */
  public static final String RANGE_RETURNED = "RANGE_RETURNED";
  /** A backup's restore put back only part of the series; run it again before issuing. */
  public static final String SERIES_RESTORING = "SERIES_RESTORING";
  /** A counter would pass the largest int64. */
  public static final String COUNTER_OVERFLOW = "COUNTER_OVERFLOW";
  /** The node's disk is full; another node serves. */
  public static final String STORAGE_FULL = "STORAGE_FULL";
  /** The node cannot write its storage; another node serves. */
  public static final String STORAGE_FAILED = "STORAGE_FAILED";
  /** The node holds as many calls as it takes; nothing was done. Retry elsewhere. */
  public static final String NODE_BUSY = "NODE_BUSY";
  /**
   * The node's state differs from the majority's: the cluster fenced it until an operator
   * rebuilds it. Another node serves.
   */
  public static final String REPLICA_DIVERGED = "REPLICA_DIVERGED";
  /**
   * The collection is opaque (FAILED_PRECONDITION): its values are not published, so
   * {@code nextIdentity} is refused; {@code generate("orders|", count)} gives its IDs, each an
   * opaque form ({@link OpaqueIds#parse} checks one).
   */
  public static final String OPAQUE_COLLECTION = "OPAQUE_COLLECTION";
  /**
   * A string under an opaque collection that is not one of its IDs (INVALID_ARGUMENT): the
   * wrong length, a character outside Crockford's base 32, or a form made under another
   * database's key; the message says which.
   */
  public static final String NOT_OPAQUE_FORM = "NOT_OPAQUE_FORM";

  /**
   * Whether a refusal with this reason is about the node that sent it, not the cluster: it is
   * busy, stopping, behind, or cannot write its own storage, and another node may serve the call
   * now. A client with a region tries such a node last for a while, as it does one it cannot
   * reach.
   */
  public static boolean aboutTheNode(String reason) {
    return switch (reason) {
      case NODE_BUSY, SHUTTING_DOWN, NOT_CAUGHT_UP, STORAGE_FULL, STORAGE_FAILED, NOT_REGISTERED,
          REPLICA_DIVERGED -> true;
      default -> false;
    };
  }

  private Reasons() {}
}
