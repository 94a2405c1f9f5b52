package dev.idnode.client;

import io.grpc.Status;
import java.util.Map;

/** The client (or generator) was closed; make a new one. Code {@code CANCELLED}, reason {@code CLOSED}. */
public final class ClientClosedException extends IdnodeException {
  private static final long serialVersionUID = 1L;

  ClientClosedException(String what) {
    super(Status.Code.CANCELLED, "CLOSED", Map.of(), what + " is closed", null);
  }
}
