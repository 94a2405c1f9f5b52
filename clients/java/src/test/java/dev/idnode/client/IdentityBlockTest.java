package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.NoSuchElementException;
import java.util.PrimitiveIterator;
import org.junit.jupiter.api.Test;

/** The values a block hands out: first..last without the claimed ones, wherever they fall. */
class IdentityBlockTest {
  @Test
  void theValuesLeaveOutEverySkippedOne() {
    assertArrayEquals(new long[] {1, 2, 3}, new IdentityBlock(1, 3, List.of()).values().toArray());
    assertArrayEquals(new long[] {2, 4, 7}, new IdentityBlock(1, 8, List.of(1L, 3L, 5L, 6L, 8L)).values().toArray());
    assertArrayEquals(new long[] {}, new IdentityBlock(4, 5, List.of(4L, 5L)).values().toArray());
    assertArrayEquals(new long[] {10, 11}, new IdentityBlock(10, 11, List.of(3L, 12L)).values().toArray(),
        "skipped values outside the block change nothing");
  }

  @Test
  void aBlockEndingAtTheLargestValueStopsThere() {
    long max = Long.MAX_VALUE;
    assertArrayEquals(new long[] {max - 2, max}, new IdentityBlock(max - 2, max, List.of(max - 1)).values().toArray());
    assertArrayEquals(new long[] {max - 1}, new IdentityBlock(max - 1, max, List.of(max)).values().toArray());
    PrimitiveIterator.OfLong it = new IdentityBlock(max, max, List.of()).valueIterator();
    it.nextLong();
    assertFalse(it.hasNext());
    assertThrows(NoSuchElementException.class, it::nextLong);
  }
}
