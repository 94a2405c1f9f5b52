package dev.idnode.client;

import com.google.protobuf.ByteString;
import dev.idnode.v1.BackupChunk;
import dev.idnode.v1.BackupRequest;
import dev.idnode.v1.ClusterServiceGrpc;
import dev.idnode.v1.RestoreChunk;
import dev.idnode.v1.RestoreMargin;
import dev.idnode.v1.RestoreResponse;
import io.grpc.ClientCall;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The attempts of the two streaming admin calls, Backup and Restore, as the Go client makes
 * them: another node may take over only while nothing of the stream is lost (no backup bytes
 * written yet; no restore bytes read past the first chunk, which is kept to send again). After
 * that a failure ends the call, as an {@link IdnodeException} the retry loop passes through.
 */
final class Backups {
  /** The size of the chunks a restore sends, and of the first one it keeps for a retry. */
  static final int RESTORE_CHUNK = 256 << 10;

  private Backups() {}

  /** One attempt at writing a node's backup to {@code out}. */
  static Transport.Attempt<BackupInfo> backup(OutputStream out) {
    return (channel, options, node) -> {
      CompletableFuture<BackupInfo> f = new CompletableFuture<>();
      ClientCall<BackupRequest, BackupChunk> call = channel.newCall(ClusterServiceGrpc.getBackupMethod(), options);
      cancelWith(f, call);
      ClientCalls.asyncServerStreamingCall(call, BackupRequest.getDefaultInstance(), new StreamObserver<BackupChunk>() {
        private BackupInfo info;

        @Override
        public void onNext(BackupChunk chunk) {
          if (f.isDone()) {
            return;
          }
          if (info == null) {
            info = new BackupInfo(chunk.getLeader(), chunk.getIndex(), 0);
          }
          try {
            chunk.getData().writeTo(out);
          } catch (IOException e) {
            f.completeExceptionally(new UncheckedIOException("writing the backup: " + e.getMessage(), e));
            call.cancel("writing the backup failed", e);
            return;
          }
          info = new BackupInfo(info.leader(), info.index(), info.bytes() + chunk.getData().size());
        }

        @Override
        public void onError(Throwable t) {
          // Before the first bytes another node may answer; after, out holds part of a backup.
          f.completeExceptionally(info == null ? t : finalError(t));
        }

        @Override
        public void onCompleted() {
          f.complete(info != null ? info : new BackupInfo("", 0, 0));
        }
      });
      return f;
    };
  }

  /**
   * A restore of what {@code in} holds, its first chunk carrying the margin {@code ahead} unless
   * that asks for none (the request a build without margins sends then). The first chunk is
   * read now, so that an attempt that fails before reading further can be made again on
   * another node.
   */
  static Transport.Attempt<RestoreResponse> restore(InputStream in, RestoreMargin ahead) {
    byte[] first;
    try {
      first = in.readNBytes(RESTORE_CHUNK);
    } catch (IOException e) {
      throw new UncheckedIOException("reading the backup: " + e.getMessage(), e);
    }
    AtomicBoolean readPast = new AtomicBoolean();
    return (channel, options, node) -> {
      CompletableFuture<RestoreResponse> f = new CompletableFuture<>();
      ClientCall<RestoreChunk, RestoreResponse> call = channel.newCall(ClusterServiceGrpc.getRestoreMethod(), options);
      cancelWith(f, call);
      ClientCalls.asyncClientStreamingCall(call, new ClientResponseObserver<RestoreChunk, RestoreResponse>() {
        private RestoreResponse resp;
        private boolean sentFirst;
        private boolean ended;

        @Override
        public void beforeStart(ClientCallStreamObserver<RestoreChunk> requests) {
          // Send as fast as the node takes them, reading no more of in than that.
          requests.setOnReadyHandler(() -> {
            while (!ended && requests.isReady()) {
              byte[] next;
              if (!sentFirst) {
                sentFirst = true;
                next = first;
              } else {
                readPast.set(true);
                try {
                  next = in.readNBytes(RESTORE_CHUNK);
                } catch (IOException e) {
                  ended = true;
                  f.completeExceptionally(new UncheckedIOException("reading the backup: " + e.getMessage(), e));
                  requests.cancel("reading the backup failed", e);
                  return;
                }
              }
              if (next.length > 0) {
                RestoreChunk.Builder chunk = RestoreChunk.newBuilder().setData(ByteString.copyFrom(next));
                if (next == first && !RestoreMargins.isNone(ahead)) {
                  chunk.setAhead(ahead);
                }
                requests.onNext(chunk.build());
              }
              if (next.length < RESTORE_CHUNK) {
                ended = true;
                requests.onCompleted();
              }
            }
          });
        }

        @Override
        public void onNext(RestoreResponse r) {
          resp = r;
        }

        @Override
        public void onError(Throwable t) {
          f.completeExceptionally(readPast.get() ? finalError(t) : t);
        }

        @Override
        public void onCompleted() {
          f.complete(resp);
        }
      });
      return f;
    };
  }

  /** Cancelling the call's future cancels its RPC. */
  private static void cancelWith(CompletableFuture<?> f, ClientCall<?, ?> call) {
    f.whenComplete((r, e) -> {
      if (e instanceof CancellationException) {
        call.cancel("cancelled by the caller", null);
      }
    });
  }

  /** The error as one the retry loop does not retry. */
  private static Throwable finalError(Throwable t) {
    return t instanceof StatusRuntimeException sre ? IdnodeException.of(sre) : t;
  }
}
