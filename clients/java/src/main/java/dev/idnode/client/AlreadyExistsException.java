package dev.idnode.client;

import io.grpc.Status;
import java.util.Map;

/**
 * Someone else holds it ({@code ALREADY_EXISTS}): a claimed ID (reason {@code CLAIMED}, the
 * message names its owner), a node tag or address in use ({@code IN_USE}), an existing series or
 * database.
 */
public class AlreadyExistsException extends IdnodeException {
  private static final long serialVersionUID = 1L;

  AlreadyExistsException(Status.Code code, String reason, Map<String, String> metadata, String message, Throwable cause) {
    super(code, reason, metadata, message, cause);
  }

  @Override
  IdnodeException copy() {
    return new AlreadyExistsException(code(), reason(), metadata(), getMessage(), getCause());
  }
}
