package dev.idnode.client;

import io.grpc.Status;
import java.util.Map;

/** The client (or generator) was closed; make a new one. Code {@code CANCELLED}, reason {@code CLOSED}. */
public final class ClientClosedException extends IdnodeException {
  private static final long serialVersionUID = 1L;

  ClientClosedException(String what) {
    this(what + " is closed", null);
  }

  private ClientClosedException(String message, Throwable cause) {
    super(Status.Code.CANCELLED, "CLOSED", Map.of(), message, cause);
  }

  @Override
  IdnodeException copy() {
    return new ClientClosedException(getMessage(), getCause());
  }
}
