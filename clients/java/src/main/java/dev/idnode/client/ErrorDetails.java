package dev.idnode.client;

import com.google.protobuf.Any;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads the {@code google.rpc.ErrorInfo} out of a status' details. Debian's
 * proto-google-common-protos (1.16) predates ErrorInfo, and a client should not force a newer
 * one on its users, so the three fields are decoded here by their wire numbers.
 */
final class ErrorDetails {
  private static final String ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo";

  /** The ErrorInfo domain of idnode's own reasons. */
  static final String DOMAIN = "idnode.dev";

  record Info(String reason, String domain, Map<String, String> metadata) {
    static final Info NONE = new Info("", "", Map.of());
  }

  private ErrorDetails() {}

  static Info of(StatusRuntimeException e) {
    com.google.rpc.Status status = StatusProto.fromThrowable(e);
    if (status == null) {
      return Info.NONE;
    }
    for (Any detail : status.getDetailsList()) {
      if (ERROR_INFO_TYPE.equals(detail.getTypeUrl())) {
        try {
          return decode(detail.getValue().newCodedInput());
        } catch (InvalidProtocolBufferException bad) {
          return Info.NONE;
        }
      }
    }
    return Info.NONE;
  }

  // ErrorInfo: reason = 1, domain = 2, map<string, string> metadata = 3 (entries: key 1, value 2).
  private static Info decode(CodedInputStream in) throws InvalidProtocolBufferException {
    try {
      String reason = "";
      String domain = "";
      Map<String, String> metadata = new HashMap<>();
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        switch (tag >>> 3) {
          case 1 -> reason = in.readStringRequireUtf8();
          case 2 -> domain = in.readStringRequireUtf8();
          case 3 -> {
            CodedInputStream entry = in.readBytes().newCodedInput();
            String key = "";
            String value = "";
            for (int t = entry.readTag(); t != 0; t = entry.readTag()) {
              switch (t >>> 3) {
                case 1 -> key = entry.readStringRequireUtf8();
                case 2 -> value = entry.readStringRequireUtf8();
                default -> entry.skipField(t);
              }
            }
            metadata.put(key, value);
          }
          default -> in.skipField(tag);
        }
      }
      return new Info(reason, domain, metadata);
    } catch (InvalidProtocolBufferException e) {
      throw e;
    } catch (java.io.IOException e) {
      throw new InvalidProtocolBufferException(e);
    }
  }
}
