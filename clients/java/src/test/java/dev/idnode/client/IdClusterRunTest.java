package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** How the harness reports a build that fails or does not finish: with what it printed. */
class IdClusterRunTest {
  private static final Path HERE = Path.of("").toAbsolutePath();

  @Test
  void failedCommandReportsItsExitAndOutput() {
    // The printed line is put together by printf, so the message's copy of the command
    // cannot pass for it.
    IllegalStateException e = assertThrows(IllegalStateException.class, () ->
        IdCluster.run(List.of("sh", "-c", "printf 'cannot %s\\n' build >&2; exit 3"), HERE, 5, TimeUnit.MINUTES, "; a hint"));
    String m = e.getMessage();
    assertTrue(m.contains("exit 3") && m.contains("cannot build") && m.contains("a hint"), m);
  }

  // A wait of no time at all ends before the command does, whatever the machine's load: the
  // harness must say so rather than ask a running process for its exit value.
  @Test
  void commandThatDoesNotFinishReportsTheTimeout() {
    IllegalStateException e = assertThrows(IllegalStateException.class, () ->
        IdCluster.run(List.of("sleep", "600"), HERE, 0, TimeUnit.SECONDS, "; a hint"));
    String m = e.getMessage();
    assertTrue(m.contains("did not finish within 0 seconds") && m.contains("a hint"), m);
  }
}
