package dev.idnode.client;

import io.grpc.Status;
import java.util.Map;

/**
 * No node could serve the call now ({@code UNAVAILABLE}: {@code NO_QUORUM},
 * {@code OUTCOME_UNKNOWN}, a node down; {@code RESOURCE_EXHAUSTED} with {@code NODE_BUSY}; or
 * the call's deadline passed while nodes failed). The client already retried across the nodes
 * until the deadline: try again later, with the same request id for calls that reserve values.
 */
public class UnavailableException extends IdnodeException {
  private static final long serialVersionUID = 1L;

  UnavailableException(Status.Code code, String reason, Map<String, String> metadata, String message, Throwable cause) {
    super(code, reason, metadata, message, cause);
  }

  @Override
  IdnodeException copy() {
    return new UnavailableException(code(), reason(), metadata(), getMessage(), getCause());
  }
}
