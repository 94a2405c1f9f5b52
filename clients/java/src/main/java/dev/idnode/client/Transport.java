package dev.idnode.client;

import com.google.common.util.concurrent.MoreExecutors;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Deadline;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The connections to the nodes and the retry loop every call goes through: the next node at
 * once within a round, {@link Backoff} between rounds, each attempt bounded by the call timeout
 * and the whole call by its deadline.
 */
final class Transport {
  static final Metadata.Key<String> LEADER_HEADER = Metadata.Key.of("idnode-leader", Metadata.ASCII_STRING_MARSHALLER);
  /**
   * How long after the client saw a node fail by itself it believes that over a hint naming the
   * node as leader: the other nodes name a leader that died until they elect another, within
   * about a second on a LAN and a few with long round trips. A leader that only timed out once
   * is named again after it, so the calls that need it take a follower's hop at most this long.
   */
  static final java.time.Duration LEADER_HINT_DISTRUST = java.time.Duration.ofSeconds(5);
  /** failedAt's value for a node that has not failed since it last answered. */
  private static final long NOT_FAILED = Long.MIN_VALUE;
  static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> DATABASE = Metadata.Key.of("idnode-database", Metadata.ASCII_STRING_MARSHALLER);

  /** How many HiLo grants the transport remembers the granting node of (a generator holds two per tag). */
  private static final int MAX_GRANTS = 1024;

  /** Where a call starts. */
  enum Route {
    /**
     * Any node: the one that answered last, of the client's region if it has one (GUIDs,
     * server-side and semantic IDs, reads).
     */
    ANY,
    /** The leader the nodes named last, else any (identities, claims, seeds, series). */
    LEADER,
    /**
     * HiLo ranges: with a region, as {@link #ANY}, since with HiLo pools every node grants
     * ranges from its own pool (and without them a follower relays to the leader); without
     * one, as {@link #LEADER}.
     */
    HILO
  }

  /** One attempt on one node; the future fails with a {@link StatusRuntimeException}. */
  @FunctionalInterface
  interface Attempt<R> {
    CompletableFuture<R> run(Channel channel, CallOptions options, int node);
  }

  /** A call's value and the node that gave it. */
  record Answer<R>(R value, int node) {}

  /**
   * Runs a call's callbacks on the thread that read its answer, the connection's event loop,
   * rather than on the channel's executor: for the client's own continuations alone, which
   * never block. A folded identity call's answer then reaches its waiting threads with no
   * thread in between, and the next folded call can go out from the same thread.
   */
  private static final Executor ON_EVENT_LOOP = MoreExecutors.directExecutor(); // the one grpc-java recognises

  private final List<String> addrs;
  private final List<ManagedChannel> channels;
  private final List<Channel> intercepted;
  private final java.time.Duration callTimeout;
  private final Backoff backoff;
  /** The clock deadlines are read on: the system's, but for a test's. */
  private final Deadline.Ticker ticker;
  private final ScheduledExecutorService timer;
  /** Runs the callbacks of futures the client completes on an event loop (handOff). */
  private final ExecutorService callbacks;
  /** Without a region: where calls start, the node that answered last. */
  private final AtomicInteger preferred;
  /** With a region: the order calls try the nodes in; null without one. */
  private final RegionRouting regions;
  /**
   * Without a region: each node's round of the nodes, from it, made once so that a call takes
   * its order without allocating one. Shared by every call: only read.
   */
  private final int[][] rounds;
  private final AtomicInteger leader = new AtomicInteger(-1);
  /**
   * By node, when it last failed an attempt by itself ({@link #nodeFailed}, ticker nanos), or
   * {@link #NOT_FAILED} since it answered: a hint naming it as leader is not believed for
   * {@link #LEADER_HINT_DISTRUST} after it.
   */
  private final AtomicLongArray failedAt;
  /** The clock failedAt is read on (nanos): the region routing's, a test's seam. */
  private final LongSupplier clock;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Map<String, Integer> grants = new LinkedHashMap<>(16, 0.75f, false) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
      return size() > MAX_GRANTS;
    }
  };

  Transport(List<String> addrs, Function<String, ManagedChannel> dial, String bearer, String database,
      java.time.Duration callTimeout, Backoff backoff, boolean inOrder, RegionRouting regions, Deadline.Ticker ticker,
      LongSupplier clock) {
    this.addrs = List.copyOf(addrs);
    this.clock = clock;
    this.failedAt = new AtomicLongArray(this.addrs.size());
    for (int i = 0; i < this.addrs.size(); i++) {
      failedAt.set(i, NOT_FAILED);
    }
    this.regions = regions;
    this.callTimeout = callTimeout;
    this.backoff = backoff;
    this.ticker = ticker;
    this.preferred = new AtomicInteger(inOrder ? 0 : ThreadLocalRandom.current().nextInt(addrs.size()));
    int n = this.addrs.size();
    this.rounds = new int[n][n];
    for (int first = 0; first < n; first++) {
      for (int i = 0; i < n; i++) {
        rounds[first][i] = (first + i) % n;
      }
    }
    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "idnode-client-retry");
      t.setDaemon(true);
      return t;
    });
    // The fold schedules a timer with almost every folded call and cancels most before they
    // fire; left queued, each would still wake this thread at its time.
    timer.setRemoveOnCancelPolicy(true);
    this.timer = timer;
    this.callbacks = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "idnode-client-callback");
      t.setDaemon(true);
      return t;
    });
    List<ManagedChannel> chans = new ArrayList<>();
    List<Channel> wrapped = new ArrayList<>();
    for (String addr : this.addrs) {
      ManagedChannel ch = dial.apply(addr);
      chans.add(ch);
      wrapped.add(io.grpc.ClientInterceptors.intercept(ch, new Headers(bearer, database)));
    }
    this.channels = List.copyOf(chans);
    this.intercepted = List.copyOf(wrapped);
  }

  int size() {
    return addrs.size();
  }

  List<String> addrs() {
    return addrs;
  }

  boolean isClosed() {
    return closed.get();
  }

  ScheduledExecutorService timer() {
    return timer;
  }

  /** The deadline d from now, on the transport's clock (every deadline a call compares). */
  Deadline deadlineAfter(java.time.Duration d) {
    return Deadline.after(d.toNanos(), TimeUnit.NANOSECONDS, ticker);
  }

  /**
   * A future completed as f is, but on the client's callback threads: what a caller's own
   * stages may block in, unlike the event loop f may complete on. Cancelling it cancels f.
   */
  <T> CompletableFuture<T> handOff(CompletableFuture<T> f) {
    CompletableFuture<T> out = new CompletableFuture<>();
    out.whenComplete((v, e) -> {
      if (e instanceof CancellationException) {
        f.cancel(false);
      }
    });
    f.whenComplete((v, e) -> {
      try {
        callbacks.execute(() -> {
          if (e != null) {
            out.completeExceptionally(e);
          } else {
            out.complete(v);
          }
        });
      } catch (java.util.concurrent.RejectedExecutionException closing) {
        out.completeExceptionally(e != null ? e : new ClientClosedException("idnode client"));
      }
    });
    return out;
  }

  /** Remembers which node granted a HiLo range: only its pool takes the range back. */
  void rememberGrant(String grantId, int node) {
    if (!grantId.isEmpty()) {
      synchronized (grants) {
        grants.put(grantId, node);
      }
    }
  }

  Integer granter(String grantId) {
    synchronized (grants) {
      return grants.get(grantId);
    }
  }

  /** A unary call through the retry loop, starting where route says. */
  <Q, R> CompletableFuture<Answer<R>> unary(Route route, MethodDescriptor<Q, R> method, Q request, Deadline deadline, boolean atMostOnce) {
    return unary(route, method, request, deadline, atMostOnce, new Refusals());
  }

  /** {@link #unary} whose failed attempts go to refusals, for a caller that waits on the call. */
  <Q, R> CompletableFuture<Answer<R>> unary(Route route, MethodDescriptor<Q, R> method, Q request, Deadline deadline, boolean atMostOnce,
      Refusals refusals) {
    CompletableFuture<Answer<R>> result = new CompletableFuture<>();
    new Loop<>(order(route), unaryAttempt(method, request), deadline, atMostOnce, false, result, refusals).attempt();
    return result;
  }

  /**
   * {@link #unary} whose future completes on the connection's event loop: only for the
   * client's own continuations, which never block (a caller's stages go through
   * {@link #handOff}).
   */
  <Q, R> CompletableFuture<Answer<R>> unaryOnEventLoop(Route route, MethodDescriptor<Q, R> method, Q request, Deadline deadline) {
    CompletableFuture<Answer<R>> result = new CompletableFuture<>();
    new Loop<>(order(route), unaryAttempt(method, request), deadline, false, true, result, new Refusals()).attempt();
    return result;
  }

  /** One unary attempt; cancelling its future cancels the RPC. */
  static <Q, R> Attempt<R> unaryAttempt(MethodDescriptor<Q, R> method, Q request) {
    return (channel, options, node) -> {
      CompletableFuture<R> f = new CompletableFuture<>();
      ClientCall<Q, R> call = channel.newCall(method, options);
      f.whenComplete((r, e) -> {
        if (e instanceof CancellationException) {
          call.cancel("cancelled by the caller", null);
        }
      });
      ClientCalls.asyncUnaryCall(call, request, new StreamObserver<R>() {
        @Override
        public void onNext(R value) {
          f.complete(value);
        }

        @Override
        public void onError(Throwable t) {
          f.completeExceptionally(t);
        }

        @Override
        public void onCompleted() {
          f.completeExceptionally(Status.INTERNAL.withDescription("the node answered nothing").asRuntimeException());
        }
      });
      return f;
    };
  }

  /**
   * The nodes in the order a call on route tries them. A leader a client with a region could
   * not reach lately is not tried first: its successor is more likely to be found near.
   */
  int[] order(Route route) {
    int l = leader.get();
    boolean toLeader = route == Route.LEADER || route == Route.HILO && regions == null;
    if (regions == null) {
      return orderFrom(toLeader && l >= 0 ? l : preferred.get());
    }
    return regions.order(toLeader && l >= 0 && !regions.skipping(l) ? l : -1);
  }

  /**
   * The nodes in the order a call tries them, first the given one whatever its state. Without a
   * region it is the same array for every call from first, which callers only read.
   */
  int[] orderFrom(int first) {
    if (regions != null) {
      return regions.order(first);
    }
    return rounds[first];
  }

  /**
   * Runs attempt on one node after another, in order, until it succeeds, fails for good, or
   * the deadline passes.
   */
  <R> CompletableFuture<Answer<R>> call(int[] order, Attempt<R> attempt, Deadline deadline, boolean atMostOnce) {
    CompletableFuture<Answer<R>> result = new CompletableFuture<>();
    new Loop<>(order, attempt, deadline, atMostOnce, false, result, new Refusals()).attempt();
    return result;
  }

  /** A node answered a call whose order began with first. */
  private void answered(int node, int first) {
    failedAt.set(node, NOT_FAILED);
    if (regions != null) {
      regions.answered(node, first);
    } else if (node != first) {
      preferred.set(node);
    }
  }

  /** Closes the connections, waiting for calls in flight until end (System.nanoTime) at most. */
  void close(long end) {
    if (closed.compareAndSet(false, true)) {
      for (ManagedChannel ch : channels) {
        ch.shutdown();
      }
      timer.shutdown();
      callbacks.shutdown();
      for (ManagedChannel ch : channels) {
        try {
          if (!ch.awaitTermination(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            ch.shutdownNow();
          }
        } catch (InterruptedException e) {
          ch.shutdownNow();
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  private final class Loop<R> {
    private final int[] order;
    private final Attempt<R> attempt;
    private final Deadline deadline;
    private final boolean atMostOnce;
    private final boolean onEventLoop;
    private final CompletableFuture<Answer<R>> result;
    private final AtomicReference<CompletableFuture<R>> current = new AtomicReference<>();
    private int i;
    /** The attempts that failed: the call's error names the most telling. */
    private final Refusals refusals;

    Loop(int[] order, Attempt<R> attempt, Deadline deadline, boolean atMostOnce, boolean onEventLoop, CompletableFuture<Answer<R>> result,
        Refusals refusals) {
      this.refusals = refusals;
      this.order = order;
      this.attempt = attempt;
      this.deadline = deadline;
      this.atMostOnce = atMostOnce;
      this.onEventLoop = onEventLoop;
      this.result = result;
      result.whenComplete((r, e) -> {
        CompletableFuture<R> c = current.get();
        if (e instanceof CancellationException && c != null) {
          c.cancel(false);
        }
      });
    }

    void attempt() {
      if (result.isDone()) {
        return;
      }
      if (closed.get()) {
        result.completeExceptionally(new ClientClosedException("idnode client"));
        return;
      }
      if (deadline.isExpired()) {
        result.completeExceptionally(stopped("the call's deadline passed", true));
        return;
      }
      int node = order[i % order.length];
      if (regions != null && regions.retryDue(node)) {
        // grpc-java waits up to two minutes between attempts to reconnect to a node that was
        // down; the client's own pause is the shorter one, so a node back up is used again.
        channels.get(node).resetConnectBackoff();
      }
      Deadline perAttempt = deadlineAfter(callTimeout);
      boolean callersDeadline = !perAttempt.isBefore(deadline);
      CallOptions options = CallOptions.DEFAULT.withDeadline(callersDeadline ? deadline : perAttempt);
      if (onEventLoop) {
        options = options.withExecutor(ON_EVENT_LOOP);
      }
      CompletableFuture<R> f;
      try {
        f = attempt.run(intercepted.get(node), options, node);
      } catch (RuntimeException e) {
        result.completeExceptionally(e);
        return;
      }
      current.set(f);
      f.whenComplete((value, error) -> {
        if (error == null) {
          answered(node, order[0]);
          result.complete(new Answer<>(value, node));
        } else {
          failed(node, error, callersDeadline);
        }
      });
    }

    private void failed(int node, Throwable error, boolean callersDeadline) {
      if (!(error instanceof StatusRuntimeException sre)) {
        result.completeExceptionally(error);
        return;
      }
      IdnodeException e = IdnodeException.of(sre);
      if (callersDeadline && e.code() == Status.Code.DEADLINE_EXCEEDED) {
        result.completeExceptionally(refusals.last() == null ? e : stopped("the call's deadline passed", true));
        return;
      }
      if (!retryable(e, sre)) {
        result.completeExceptionally(e);
        return;
      }
      refusals.add(e, ErrorDetails.DOMAIN.equals(ErrorDetails.of(sre).domain()));
      if (nodeFailed(sre)) {
        // Not the leader any more as far as this client knows (see learnLeader).
        failedAt.set(node, clock.getAsLong());
        leader.compareAndSet(node, -1);
        if (regions != null) {
          regions.failed(node);
        }
      }
      i++;
      if (backoff.maxAttempts() > 0 && i >= backoff.maxAttempts()) {
        result.completeExceptionally(stopped("no attempts left", false));
        return;
      }
      if (closed.get()) {
        result.completeExceptionally(new ClientClosedException("idnode client"));
        return;
      }
      // Back off only once every node failed: a node that is down refuses at once and says
      // nothing about the others, and a pause after each refusal would make the wait before
      // the survivors are asked again grow with every dead node.
      long delay = i % addrs.size() == 0 ? backoff.delayNanos(i / addrs.size()) : 0;
      if (delay >= deadline.timeRemaining(TimeUnit.NANOSECONDS)) {
        result.completeExceptionally(stopped("the call's deadline passed", true));
        return;
      }
      logFailover(e, delay);
      try {
        timer.schedule(this::attempt, delay, TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.RejectedExecutionException closing) {
        result.completeExceptionally(new ClientClosedException("idnode client"));
      }
    }

    /** Says which node failed, why, and which node the call goes to next, and when. */
    private void logFailover(IdnodeException e, long delayNanos) {
      if (!ClientLog.LOGGER.isLoggable(System.Logger.Level.INFO)) {
        return;
      }
      String from = addrs.get(order[(i - 1) % order.length]);
      String to = addrs.get(order[i % order.length]);
      String why = e.getMessage();
      if (delayNanos == 0) {
        ClientLog.LOGGER.log(System.Logger.Level.INFO, "idnode: failing over from {0} to {1}: {0} failed: {2}",
            from, to, why);
      } else {
        ClientLog.LOGGER.log(System.Logger.Level.INFO,
            "idnode: every node failed (retry round {0}); asking {1} again in {2} ms, after {3} failed: {4}",
            String.valueOf(i / addrs.size()), to, String.valueOf(TimeUnit.NANOSECONDS.toMillis(delayNanos)), from, why);
      }
    }

    /**
     * Whether another node may take the call: it (or the cluster, for now) could not serve, and
     * for a call that changes the cluster only when it certainly did nothing.
     */
    private boolean retryable(IdnodeException e, StatusRuntimeException sre) {
      boolean busy = e.code() == Status.Code.RESOURCE_EXHAUSTED && Reasons.NODE_BUSY.equals(e.reason());
      if (atMostOnce) {
        return busy || Reasons.NO_QUORUM.equals(e.reason()) || neverSent(sre);
      }
      // grpc-java reports a connection that closed under a call in flight (a node killed) as
      // UNKNOWN "channel closed", with no ErrorInfo: a transport failure like UNAVAILABLE. A
      // node never refuses with UNKNOWN for an expected condition.
      boolean lostConnection = e.code() == Status.Code.UNKNOWN && e.reason().equals(Status.Code.UNKNOWN.name());
      return busy || lostConnection || e.code() == Status.Code.UNAVAILABLE || e.code() == Status.Code.DEADLINE_EXCEEDED;
    }

    /**
     * Whether the node itself failed a retryable attempt, which puts it last for a while: it
     * sent no idnode ErrorInfo (no connection, a connection lost under the call, or no answer
     * within the call timeout), or it refused for a reason about itself alone
     * ({@link Reasons#aboutTheNode}: busy, stopping, behind, its storage). A refusal with another
     * idnode reason (NO_QUORUM, OUTCOME_UNKNOWN …) is about the cluster, which every node
     * shares: putting a healthy local node last for it would keep calls in other regions long
     * after the cluster recovered.
     */
    private static boolean nodeFailed(StatusRuntimeException sre) {
      ErrorDetails.Info info = ErrorDetails.of(sre);
      return !ErrorDetails.DOMAIN.equals(info.domain()) || Reasons.aboutTheNode(info.reason());
    }

    /** The call's error once it stops trying: by the caller's deadline, or with no attempts left. */
    private IdnodeException stopped(String why, boolean byDeadline) {
      if (refusals.last() == null) {
        return IdnodeException.create(Status.Code.DEADLINE_EXCEEDED, Status.Code.DEADLINE_EXCEEDED.name(), Map.of(),
            "the call's deadline passed before any node answered", null);
      }
      return new NodesFailedException(i, addrs.size(), refusals, why, byDeadline);
    }
  }

  /** Whether the request never left: the connection to the node could not be made. */
  private static boolean neverSent(StatusRuntimeException e) {
    for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Sends the credential and database with every call, and learns from every answer's
   * {@code idnode-leader} header which node leads. An address the client does not know (a node
   * registered under another name) teaches nothing.
   */
  private final class Headers implements ClientInterceptor {
    private final String bearer;
    private final String database;

    Headers(String bearer, String database) {
      this.bearer = bearer;
      this.database = database;
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(Listener<R> listener, Metadata headers) {
          if (bearer != null) {
            headers.put(AUTHORIZATION, "Bearer " + bearer);
          }
          if (database != null) {
            headers.put(DATABASE, database);
          }
          super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
            @Override
            public void onHeaders(Metadata h) {
              learnLeader(h.get(LEADER_HEADER));
              super.onHeaders(h);
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
              learnLeader(trailers.get(LEADER_HEADER));
              super.onClose(status, trailers);
            }
          }, headers);
        }
      };
    }
  }

  /**
   * Takes the node at addr as the leader a hint named, unless the client saw it fail by itself
   * within {@link #LEADER_HINT_DISTRUST}: followers name a dead leader until they elect another,
   * and the client's own observation is newer.
   */
  private void learnLeader(String addr) {
    if (addr != null) {
      int idx = addrs.indexOf(addr);
      long at = idx >= 0 ? failedAt.get(idx) : NOT_FAILED;
      if (idx >= 0 && (at == NOT_FAILED || clock.getAsLong() - at >= LEADER_HINT_DISTRUST.toNanos())) {
        leader.set(idx);
      }
    }
  }
}
