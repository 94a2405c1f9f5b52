package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Deadline;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The order of a client without a region, on its own: its channels connect to nothing, since
 * working out an order makes no call. Routing by region must cost only the clients given one.
 */
class TransportOrderTest {
  private final Transport transport = new Transport(List.of("127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3", "127.0.0.1:4", "127.0.0.1:5"),
      addr -> Grpc.newChannelBuilder(addr, InsecureChannelCredentials.create()).build(), null, null,
      Duration.ofSeconds(1), new Backoff(Duration.ofMillis(5), Duration.ofMillis(20), 2, 0.2, 0), true, null,
      Deadline.getSystemTicker(), System::nanoTime);

  @AfterEach
  void stop() {
    transport.close(System.nanoTime() + Duration.ofSeconds(5).toNanos());
  }

  @Test
  void withoutARegionCallsGoRoundTheNodesFromTheirStart() {
    assertArrayEquals(new int[] {0, 1, 2, 3, 4}, transport.order(Transport.Route.ANY));
    assertArrayEquals(new int[] {3, 4, 0, 1, 2}, transport.orderFrom(3));
    assertArrayEquals(new int[] {4, 0, 1, 2, 3}, transport.orderFrom(4));
  }

  @Test
  void withoutARegionEveryCallFromOneNodeTakesTheSameOrder() {
    assertSame(transport.order(Transport.Route.ANY), transport.order(Transport.Route.ANY), "each call made its order again");
    assertSame(transport.orderFrom(2), transport.orderFrom(2), "each call made its order again");
  }

  @Test
  void withoutARegionWorkingOutTheOrderAllocatesNothing() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    int calls = 100_000;
    for (int i = 0; i < calls; i++) {
      transport.order(Transport.Route.LEADER); // compiled before it is measured
    }
    long before = threads.getCurrentThreadAllocatedBytes();
    int sum = 0;
    for (int i = 0; i < calls; i++) {
      sum += transport.order(i % 2 == 0 ? Transport.Route.ANY : Transport.Route.LEADER)[0];
    }
    long bytes = threads.getCurrentThreadAllocatedBytes() - before;
    // The measuring itself may allocate a little; an order a call is 40 bytes.
    assertTrue(bytes < calls, "working out " + calls + " orders allocated " + bytes + " bytes (" + (double) bytes / calls + " a call); sum " + sum);
  }
}
