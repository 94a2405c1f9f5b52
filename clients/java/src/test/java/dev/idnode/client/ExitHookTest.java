package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A JVM that exits with its generators open still gives their unused numbers back. */
class ExitHookTest {
  @Test
  void theShutdownHookReturnsWhatAJvmLeftOpen() throws Exception {
    try (IdCluster idcluster = new IdCluster()) {
      idcluster.start(1, false);
      String node = idcluster.grpcAddrs().get(0);
      Process p = new ProcessBuilder(IdCluster.javaBinary().toString(), "-cp", System.getProperty("java.class.path"),
          ExitWorker.class.getName(), node, "exits", "40").redirectError(ProcessBuilder.Redirect.INHERIT).start();
      String last;
      try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        last = out.readLine();
      }
      assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the worker exits");
      assertEquals(0, p.exitValue());
      assertEquals("exits/40-A", last, "40 IDs from ranges of 32 and 64: the second range was in use at exit");
      try (IdnodeClient c = IdnodeClient.builder().nodes(node).build()) {
        assertEquals("exits/41-A", c.nextId("exits"), "the hook gave back the tail of the range in use (and the one prefetched)");
      }
    }
  }
}
