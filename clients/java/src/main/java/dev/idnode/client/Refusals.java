package dev.idnode.client;

import io.grpc.Status;
import java.util.Map;

/**
 * The failed attempts of one call, kept so that its final error names the most telling of them.
 * A node that refused with idnode's ErrorInfo ({@code NO_QUORUM}, {@code NOT_CAUGHT_UP},
 * {@code STORAGE_FULL} …) says why the call cannot be served now; a dead node's connection
 * refusal, or an attempt's timeout, says only that the node was not reached. With two nodes of
 * three dead and the third without a majority, the last attempt of a round is on a dead node,
 * and its refusal alone would hide the {@code NO_QUORUM} that tells the caller what is wrong.
 * Thread-safe: a call's attempts record here while a caller waiting for it may read.
 */
final class Refusals {
  private IdnodeException last;
  private IdnodeException telling;
  private boolean tellingFromNode;
  private int count;

  /**
   * Records a failed attempt; {@code fromNode} says the node itself refused with a reason of
   * idnode's. The latest such refusal stays the most telling.
   */
  synchronized void add(IdnodeException e, boolean fromNode) {
    count++;
    last = e;
    if (telling == null || fromNode || !tellingFromNode) {
      telling = e;
      tellingFromNode = fromNode;
    }
  }

  /** The latest refusal a node gave with a reason, else the last error; null before any. */
  synchronized IdnodeException telling() {
    return telling;
  }

  /** The last attempt's error; null before any attempt failed. */
  synchronized IdnodeException last() {
    return last;
  }

  /** How many attempts failed. */
  synchronized int count() {
    return count;
  }

  /**
   * The error of a wait its caller's deadline ended (a HiLo caller waiting for a range):
   * {@code DEADLINE_EXCEEDED} with the most telling refusal's reason and metadata, and that
   * refusal as cause; the code's name as reason before any attempt failed.
   */
  IdnodeException deadlineExceeded(String what) {
    IdnodeException t = telling();
    if (t == null) {
      return IdnodeException.create(Status.Code.DEADLINE_EXCEEDED, Status.Code.DEADLINE_EXCEEDED.name(), Map.of(),
          what + " before a node answered", null);
    }
    return IdnodeException.create(Status.Code.DEADLINE_EXCEEDED, t.reason(), t.metadata(),
        what + " after " + count() + " failed attempts; most telling error: " + t.getMessage(), t);
  }
}
