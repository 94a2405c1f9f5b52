package dev.idnode.client;

/**
 * Every attempt of a call failed with a retryable error until its deadline passed or the
 * attempts ran out. Code, reason and metadata are the last attempt's (so a cluster without
 * quorum still reads as {@code UNAVAILABLE}/{@code NO_QUORUM}); {@link #getCause()} is that
 * attempt's exception.
 */
public final class NodesFailedException extends UnavailableException {
  private static final long serialVersionUID = 1L;

  private final int attempts;
  private final int nodes;

  NodesFailedException(int attempts, int nodes, IdnodeException last, String stopped) {
    super(last.code(), last.reason(), last.metadata(),
        "idnode client: all nodes failed (" + attempts + " attempts over " + nodes + " nodes, " + stopped
            + "); last error: " + last.getMessage(),
        last);
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
