package dev.idnode.client;

import io.grpc.Status;
import java.util.Map;

/**
 * The request breaks a rule ({@code INVALID_ARGUMENT}, or {@code OUT_OF_RANGE} for a number
 * whose result would leave the int64 range): the message names the rule and the value. Fix the
 * request; repeating it changes nothing.
 */
public class InvalidRequestException extends IdnodeException {
  private static final long serialVersionUID = 1L;

  InvalidRequestException(Status.Code code, String reason, Map<String, String> metadata, String message, Throwable cause) {
    super(code, reason, metadata, message, cause);
  }

  @Override
  IdnodeException copy() {
    return new InvalidRequestException(code(), reason(), metadata(), getMessage(), getCause());
  }
}
