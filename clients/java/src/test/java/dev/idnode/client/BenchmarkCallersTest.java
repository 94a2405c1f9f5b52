package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The benchmark takes its identity callers from a system property, as bench/clients.sh's CALLERS. */
class BenchmarkCallersTest {
  @Test
  void theCallersComeFromTheProperty() {
    assertEquals(64, BenchmarkTest.callers(null));
    assertEquals(64, BenchmarkTest.callers(" "));
    assertEquals(1, BenchmarkTest.callers("1"));
    assertEquals(512, BenchmarkTest.callers("512"));
    assertEquals(1024, BenchmarkTest.callers("1024"));
  }

  @Test
  void aCallerCountOutOfRangeIsRefusedWithTheRange() {
    for (String bad : List.of("0", "1025", "-3", "many", "64.5")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BenchmarkTest.callers(bad));
      assertTrue(e.getMessage().contains(BenchmarkTest.CALLERS_PROPERTY + " must be a whole number from 1 to 1024"), e.getMessage());
    }
  }
}
