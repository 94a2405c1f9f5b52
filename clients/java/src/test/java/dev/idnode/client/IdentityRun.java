package dev.idnode.client;

import dev.idnode.v1.IdServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One timed run of threads each taking identities in a loop, and what it cost the client's
 * process. On a machine whose cores the cluster shares, the CPU the client spends per identity
 * is what it takes from the cluster, and unlike identities/s load moves it little; so a run
 * measures it, with the share of each kind of thread, besides the rate.
 *
 * @param perSecond identities per second
 * @param identities identities taken
 * @param cpuMicros the process's CPU per identity, in microseconds
 * @param eventLoopMicros of which gRPC's event loops (reading answers, waking callers)
 * @param callerMicros of which the calling threads (the fold, parking and waking)
 * @param timerMicros of which the client's timer thread (the fold's regather timers)
 * @param otherMicros of which threads the JVM does not list: the JIT compilers and the GC
 * @param allocatedBytes bytes allocated per identity by the callers and the event loops
 * @param perCall identities per NextIdentity call: the callers one folded call served
 * @param jitMillis the time the JIT compiled during the run (none once the client is warm)
 */
record IdentityRun(double perSecond, long identities, double cpuMicros, double eventLoopMicros, double callerMicros,
    double timerMicros, double otherMicros, long allocatedBytes, double perCall, long jitMillis) {

  /** The counter the runs take identities of. */
  static final String COUNTER = "bench-identities";

  /** Counts the NextIdentity calls a client sends: one per folded batch. */
  static final class CallCounter implements ClientInterceptor {
    private final AtomicLong calls = new AtomicLong();

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      if (method.getFullMethodName().equals(IdServiceGrpc.getNextIdentityMethod().getFullMethodName())) {
        calls.incrementAndGet();
      }
      return next.newCall(method, options);
    }

    long calls() {
      return calls.get();
    }
  }

  /**
   * Runs callers threads calling nextIdentity in a loop for run.
   *
   * @param client the client, built with calls among its interceptors
   * @param callers the threads
   * @param run how long they call
   * @param calls the client's call counter
   * @return what the run measured
   * @throws InterruptedException if interrupted while waiting for the threads
   */
  static IdentityRun measure(IdnodeClient client, int callers, Duration run, CallCounter calls) throws InterruptedException {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    AtomicLong done = new AtomicLong();
    AtomicLong callerCpu = new AtomicLong();
    AtomicLong callerBytes = new AtomicLong();
    CountDownLatch go = new CountDownLatch(1);
    long end = System.nanoTime() + run.toNanos();
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < callers; t++) {
      // Each caller reads its own CPU and allocation: it has ended by the time the run is
      // summed up, when the JVM no longer lists it.
      Thread th = new Thread(() -> {
        try {
          go.await();
          long cpu = threads.getCurrentThreadCpuTime();
          long bytes = threads.getCurrentThreadAllocatedBytes();
          long n = 0;
          while (System.nanoTime() < end) {
            client.nextIdentity(COUNTER, 1);
            n++;
          }
          done.addAndGet(n);
          callerCpu.addAndGet(threads.getCurrentThreadCpuTime() - cpu);
          callerBytes.addAndGet(threads.getCurrentThreadAllocatedBytes() - bytes);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      th.start();
      started.add(th);
    }
    Map<Long, long[]> before = liveThreads(threads);
    long calls0 = calls.calls();
    long jit0 = jit.getTotalCompilationTime();
    long cpu0 = os.getProcessCpuTime();
    long start = System.nanoTime();
    go.countDown();
    for (Thread th : started) {
      th.join(run.toMillis() + 30_000);
    }
    long took = System.nanoTime() - start;
    long cpu = os.getProcessCpuTime() - cpu0;
    long jitMillis = jit.getTotalCompilationTime() - jit0;
    long perCall = Math.max(1, calls.calls() - calls0);
    Map<Long, long[]> after = liveThreads(threads);
    long[] eventLoop = new long[2];
    long timer = 0;
    long listed = callerCpu.get();
    for (Map.Entry<Long, long[]> e : after.entrySet()) {
      long[] was = before.getOrDefault(e.getKey(), new long[2]);
      long usedCpu = e.getValue()[0] - was[0];
      listed += usedCpu;
      String name = threads.getThreadInfo(e.getKey()) == null ? "" : threads.getThreadInfo(e.getKey()).getThreadName();
      if (name.startsWith("grpc-nio-worker")) {
        eventLoop[0] += usedCpu;
        eventLoop[1] += e.getValue()[1] - was[1];
      } else if (name.equals("idnode-client-retry")) {
        timer += usedCpu;
      }
    }
    long n = Math.max(1, done.get());
    return new IdentityRun(done.get() / (took / 1e9), done.get(), cpu / 1e3 / n, eventLoop[0] / 1e3 / n, callerCpu.get() / 1e3 / n,
        timer / 1e3 / n, Math.max(0, cpu - listed) / 1e3 / n, (eventLoop[1] + callerBytes.get()) / n, (double) done.get() / perCall,
        jitMillis);
  }

  /** The CPU nanoseconds and allocated bytes of every thread the JVM lists, by id. */
  private static Map<Long, long[]> liveThreads(com.sun.management.ThreadMXBean threads) {
    Map<Long, long[]> out = new HashMap<>();
    for (long id : threads.getAllThreadIds()) {
      out.put(id, new long[] {Math.max(0, threads.getThreadCpuTime(id)), Math.max(0, threads.getThreadAllocatedBytes(id))});
    }
    return out;
  }

  /** The run's cost as JSON fields, for the benchmark's line. */
  String costJson() {
    return String.format(Locale.ROOT,
        "\"cpu_us_per_identity\":%.2f,\"cpu_us_by_thread\":{\"event_loop\":%.2f,\"callers\":%.2f,\"timer\":%.2f,\"jit_and_gc\":%.2f},"
            + "\"alloc_bytes_per_identity\":%d,\"identities_per_call\":%.1f,\"jit_ms\":%d",
        cpuMicros, eventLoopMicros, callerMicros, timerMicros, otherMicros, allocatedBytes, perCall, jitMillis);
  }
}
