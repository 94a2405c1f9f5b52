package dev.idnode.client;

import io.grpc.Status;

/**
 * Every attempt of a call failed with a retryable error until its deadline passed or the
 * attempts ran out. Reason and metadata are the most telling attempt's: the latest refusal a
 * node sent with a reason of idnode's ({@code NO_QUORUM}, {@code NOT_CAUGHT_UP} …) over a dead
 * node's connection refusal tried after it, else the last attempt's; {@link #getCause()} is that
 * attempt's exception. The code is that attempt's too ({@code UNAVAILABLE} when the attempts ran
 * out), but {@code DEADLINE_EXCEEDED} when the caller's deadline ended the call, the reason
 * still the refusal's.
 */
public final class NodesFailedException extends UnavailableException {
  private static final long serialVersionUID = 1L;

  private final int attempts;
  private final int nodes;

  NodesFailedException(int attempts, int nodes, Refusals refusals, String stopped, boolean deadline) {
    this(attempts, nodes, refusals.telling(), refusals.last(), stopped, deadline);
  }

  private NodesFailedException(int attempts, int nodes, IdnodeException telling, IdnodeException last, String stopped,
      boolean deadline) {
    super(deadline ? Status.Code.DEADLINE_EXCEEDED : telling.code(), telling.reason(), telling.metadata(),
        "idnode client: all nodes failed (" + attempts + " attempts over " + nodes + " nodes, " + stopped + "); "
            + (telling == last ? "last error: " + telling.getMessage()
                : "most telling error: " + telling.getMessage() + "; last error: " + last.getMessage()),
        telling);
    this.attempts = attempts;
    this.nodes = nodes;
  }

  private NodesFailedException(NodesFailedException e) {
    super(e.code(), e.reason(), e.metadata(), e.getMessage(), e.getCause());
    this.attempts = e.attempts;
    this.nodes = e.nodes;
  }

  @Override
  IdnodeException copy() {
    return new NodesFailedException(this);
  }

  /** How many attempts the call made. */
  public int attempts() {
    return attempts;
  }

  /** How many nodes the client knows. */
  public int nodes() {
    return nodes;
  }
}
