package dev.idnode.client;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import dev.idnode.v1.IdServiceGrpc;
import dev.idnode.v1.GenerateRequest;
import dev.idnode.v1.GenerateResponse;
import dev.idnode.v1.AcquireWorkerRequest;
import dev.idnode.v1.ReleaseRequest;
import dev.idnode.v1.ReleaseResponse;
import dev.idnode.v1.ReleaseWorkerRequest;
import dev.idnode.v1.ReleaseWorkerResponse;
import dev.idnode.v1.WorkerLease;
import dev.idnode.v1.NextHiLoRequest;
import dev.idnode.v1.NextHiLoResponse;
import dev.idnode.v1.NextIdentityRequest;
import dev.idnode.v1.NextIdentityResponse;
import dev.idnode.v1.ReturnHiLoRequest;
import dev.idnode.v1.ReturnHiLoResponse;
import io.grpc.ForwardingServerCall;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An in-process IdService on a loopback port that answers NextIdentity and Generate with the
 * refusals a test queues, then successfully, and records every request it got. Enough of a node
 * to watch the client's retry loop from the other side. NextHiLo hands out the ranges a test
 * queued ({@link #grant}); ReturnHiLo records each return and takes it back. AcquireWorker
 * leases worker 1 for a minute once the test opens {@link #acquireGate}; ReleaseWorker is recorded.
 */
final class FakeNode implements AutoCloseable {
  final List<String> requestIds = Collections.synchronizedList(new ArrayList<>());
  final List<String> calls = Collections.synchronizedList(new ArrayList<>());
  private final ConcurrentLinkedQueue<StatusRuntimeException> refusals = new ConcurrentLinkedQueue<>();
  final List<ReturnHiLoRequest> returns = Collections.synchronizedList(new ArrayList<>());
  /** What ReturnHiLo answers for a return: whether it took the numbers back (always, unless set). */
  volatile java.util.function.Predicate<ReturnHiLoRequest> takesBack = r -> true;
  final List<ReleaseRequest> releases = Collections.synchronizedList(new ArrayList<>());
  /** What Release answers for a release: how many IDs it released (none, unless set). */
  volatile java.util.function.ToLongFunction<ReleaseRequest> released = r -> 0;
  private final ConcurrentLinkedQueue<StreamObserver<?>> held = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<long[]> ranges = new ConcurrentLinkedQueue<>();
  /** Opened by the test: AcquireWorker calls wait for it before answering. */
  final CountDownLatch acquireGate = new CountDownLatch(1);
  /** Counted down as each AcquireWorker call arrives. */
  final CountDownLatch acquireArrived = new CountDownLatch(1);
  private final String name;
  private final Server server;
  private volatile String leader;
  private volatile boolean silent;
  private volatile Runnable arrival = () -> {};

  FakeNode(String name) {
    this.name = name;
    ServerInterceptor leaderHeader = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
          @Override
          public void sendHeaders(Metadata h) {
            if (leader != null) {
              h.put(Transport.LEADER_HEADER, leader);
            }
            super.sendHeaders(h);
          }

          @Override
          public void close(Status status, Metadata trailers) {
            if (leader != null && !status.isOk()) {
              trailers.put(Transport.LEADER_HEADER, leader);
            }
            super.close(status, trailers);
          }
        }, headers);
      }
    };
    try {
      server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
          .addService(ServerInterceptors.intercept(new Ids(), leaderHeader)).build().start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String addr() {
    return "127.0.0.1:" + server.getPort();
  }

  /** Answer the next call with this refusal (queued in order). */
  FakeNode refuse(Status.Code code, String reason, Map<String, String> metadata) {
    refusals.add(refusal(code, reason, metadata));
    return this;
  }

  /** Answer the next call with a bare status, no ErrorInfo: what a broken connection looks like. */
  FakeNode refuseBare(Status.Code code) {
    refusals.add(code.toStatus().withDescription("channel closed").asRuntimeException());
    return this;
  }

  /** Name this address as the leader in every answer's idnode-leader header. */
  FakeNode leader(String addr) {
    this.leader = addr;
    return this;
  }

  /** Run this as each call arrives, before it is answered. */
  FakeNode onArrival(Runnable r) {
    this.arrival = r;
    return this;
  }

  /** Never answer: hold every call open (a paused node). */
  FakeNode silent() {
    this.silent = true;
    return this;
  }

  /** Answer the next NextHiLo call with the range [low, high] (queued in order). */
  FakeNode grant(long low, long high) {
    ranges.add(new long[] {low, high});
    return this;
  }

  static StatusRuntimeException refusal(Status.Code code, String reason, Map<String, String> metadata) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      CodedOutputStream out = CodedOutputStream.newInstance(bytes);
      out.writeString(1, reason);
      out.writeString(2, "idnode.dev");
      for (Map.Entry<String, String> e : metadata.entrySet()) {
        ByteArrayOutputStream entry = new ByteArrayOutputStream();
        CodedOutputStream eo = CodedOutputStream.newInstance(entry);
        eo.writeString(1, e.getKey());
        eo.writeString(2, e.getValue());
        eo.flush();
        out.writeBytes(3, ByteString.copyFrom(entry.toByteArray()));
      }
      out.flush();
      Any info = Any.newBuilder().setTypeUrl("type.googleapis.com/google.rpc.ErrorInfo")
          .setValue(ByteString.copyFrom(bytes.toByteArray())).build();
      return StatusProto.toStatusRuntimeException(com.google.rpc.Status.newBuilder().setCode(code.value())
          .setMessage("refused by the fake: " + reason).addDetails(info).build());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private final class Ids extends IdServiceGrpc.IdServiceImplBase {
    @Override
    public void nextIdentity(NextIdentityRequest req, StreamObserver<NextIdentityResponse> out) {
      requestIds.add(req.getRequestId());
      if (answerRefusal("nextIdentity", out)) {
        out.onNext(NextIdentityResponse.newBuilder().setFirst(7).setLast(6 + Math.max(1, req.getCount())).build());
        out.onCompleted();
      }
    }

    @Override
    public void generate(GenerateRequest req, StreamObserver<GenerateResponse> out) {
      if (answerRefusal("generate", out)) {
        out.onNext(GenerateResponse.newBuilder().addIds(req.getId() + "@" + name).build());
        out.onCompleted();
      }
    }

    @Override
    public void nextHiLo(NextHiLoRequest req, StreamObserver<NextHiLoResponse> out) {
      if (answerRefusal("nextHiLo", out)) {
        long[] r = ranges.poll();
        if (r == null) {
          out.onError(Status.FAILED_PRECONDITION.withDescription("the test queued no range").asRuntimeException());
          return;
        }
        out.onNext(NextHiLoResponse.newBuilder().setPrefix(req.getTag() + "/").setLow(r[0]).setHigh(r[1])
            .setLastSize(r[1] - r[0] + 1).setServerTag(name).setGrantId("grant-" + r[0]).build());
        out.onCompleted();
      }
    }

    @Override
    public void returnHiLo(ReturnHiLoRequest req, StreamObserver<ReturnHiLoResponse> out) {
      returns.add(req);
      if (answerRefusal("returnHiLo", out)) {
        out.onNext(ReturnHiLoResponse.newBuilder().setReturned(takesBack.test(req)).build());
        out.onCompleted();
      }
    }

    @Override
    public void release(ReleaseRequest req, StreamObserver<ReleaseResponse> out) {
      releases.add(req);
      if (answerRefusal("release", out)) {
        out.onNext(ReleaseResponse.newBuilder().setReleased(released.applyAsLong(req)).build());
        out.onCompleted();
      }
    }

    @Override
    public void acquireWorker(AcquireWorkerRequest req, StreamObserver<WorkerLease> out) {
      calls.add("acquireWorker");
      acquireArrived.countDown();
      try {
        acquireGate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        out.onError(Status.CANCELLED.asRuntimeException());
        return;
      }
      long now = System.currentTimeMillis();
      out.onNext(WorkerLease.newBuilder().setWorker(1).setEpoch(1).setHolder(req.getHolder())
          .setMinMs(now - 1).setMaxMs(now + 60_000).setExpiresAtMs(now + 60_000).build());
      out.onCompleted();
    }

    @Override
    public void releaseWorker(ReleaseWorkerRequest req, StreamObserver<ReleaseWorkerResponse> out) {
      calls.add("releaseWorker");
      out.onNext(ReleaseWorkerResponse.getDefaultInstance());
      out.onCompleted();
    }

    /** Records the call; answers a queued refusal or holds it, else tells the caller to answer. */
    private boolean answerRefusal(String method, StreamObserver<?> out) {
      calls.add(method);
      arrival.run();
      if (silent) {
        held.add(out);
        return false;
      }
      StatusRuntimeException r = refusals.poll();
      if (r != null) {
        out.onError(r);
        return false;
      }
      return true;
    }
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
