package dev.idnode.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Map;

/**
 * A call that idnode (or the client, before sending anything) refused: the gRPC status code,
 * the {@code google.rpc.ErrorInfo} reason every refusal carries ({@link Reasons}) and that
 * reason's metadata. Branch on {@link #reason()}; the subclasses group the codes a caller
 * usually handles alike.
 */
public class IdnodeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Status.Code code;
  private final String reason;
  private final Map<String, String> metadata;

  IdnodeException(Status.Code code, String reason, Map<String, String> metadata, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
    this.reason = reason;
    this.metadata = Map.copyOf(metadata);
  }

  /** The gRPC status code, such as {@code UNAVAILABLE}. */
  public Status.Code code() {
    return code;
  }

  /**
   * The ErrorInfo reason, such as {@code NO_QUORUM}; the code's name when the node sent none
   * (a transport failure).
   */
  public String reason() {
    return reason;
  }

  /** The ErrorInfo metadata (which field, which limit …); empty when there was none. */
  public Map<String, String> metadata() {
    return metadata;
  }

  /**
   * This refusal, as a new exception for one of the callers it reaches: the same class, code,
   * reason, message, cause and stack, with where the caller waited for it added as a suppressed
   * exception. A call folded for many callers fails them all with one exception; each gets a
   * copy, so none changes what the others see.
   */
  IdnodeException forCaller() {
    IdnodeException e = copy();
    e.setStackTrace(getStackTrace());
    e.addSuppressed(new Exception("awaited here"));
    return e;
  }

  /** The same refusal as a new object of the same class; each subclass makes its own. */
  IdnodeException copy() {
    return new IdnodeException(code, reason, metadata, getMessage(), getCause());
  }

  /** Maps a gRPC failure onto the hierarchy, reading its ErrorInfo. */
  static IdnodeException of(StatusRuntimeException e) {
    ErrorDetails.Info info = ErrorDetails.of(e);
    Status status = e.getStatus();
    String message = status.getDescription() != null ? status.getDescription() : status.getCode().name();
    String reason = info.reason().isEmpty() ? status.getCode().name() : info.reason();
    return create(status.getCode(), reason, info.metadata(), message, e);
  }

  /** A refusal made by the client itself, with the code and reason the server would give. */
  static IdnodeException create(Status.Code code, String reason, Map<String, String> metadata, String message, Throwable cause) {
    String text = message + " (" + code + ", " + reason + ")";
    return switch (code) {
      case INVALID_ARGUMENT, OUT_OF_RANGE -> new InvalidRequestException(code, reason, metadata, text, cause);
      case ALREADY_EXISTS -> new AlreadyExistsException(code, reason, metadata, text, cause);
      case UNAVAILABLE, DEADLINE_EXCEEDED -> new UnavailableException(code, reason, metadata, text, cause);
      case RESOURCE_EXHAUSTED -> Reasons.NODE_BUSY.equals(reason)
          ? new UnavailableException(code, reason, metadata, text, cause)
          : new IdnodeException(code, reason, metadata, text, cause);
      default -> new IdnodeException(code, reason, metadata, text, cause);
    };
  }

  static IdnodeException invalidInput(String message) {
    return create(Status.Code.INVALID_ARGUMENT, Reasons.INVALID_INPUT, Map.of(), message, null);
  }
}
