package dev.idnode.client;

import dev.idnode.v1.RestoreMargin;
import dev.idnode.v1.RestoreResponse;
import io.grpc.Status;
import java.util.Map;

/**
 * A restore whose answer does not echo the margin asked: a node on the way runs a build that
 * knows no margins, so the counters are at the backup's values only. Upgrade it, then restore
 * again with the margin; a restore only raises, so repeating it is safe. Code {@code
 * FAILED_PRECONDITION}, reason {@code MARGIN_NOT_APPLIED}; {@link #response()} is the answer.
 */
public final class MarginNotAppliedException extends IdnodeException {
  private static final long serialVersionUID = 1L;

  /** The restore's answer: what it did without the margin. */
  private final RestoreResponse response;

  MarginNotAppliedException(RestoreMargin asked, RestoreResponse response) {
    this("the restore did not apply the margin asked (" + RestoreMargins.text(asked, asked.getByRates()) + "; applied "
        + RestoreMargins.text(response.getAhead(), response.hasRates()) + "): the counters are at the backup's values only; "
        + "upgrade the nodes, then restore again with the margin", response);
  }

  private MarginNotAppliedException(String message, RestoreResponse response) {
    super(Status.Code.FAILED_PRECONDITION, "MARGIN_NOT_APPLIED", Map.of(), message, null);
    this.response = response;
  }

  /**
   * The restore's answer: what the backup held and what was raised, without the margin.
   *
   * @return the answer
   */
  public RestoreResponse response() {
    return response;
  }

  @Override
  IdnodeException copy() {
    return new MarginNotAppliedException(getMessage(), response);
  }
}
