package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The text forms of numeric IDs: the Go package flake's known values, order and refusals. */
class NumericIdsTest {
  @ParameterizedTest
  @CsvSource({
    "0, 00000000000, 0000000000000",
    "1, 00000000001, 0000000000001",
    "61, 0000000000z, 000000000001X",
    "62, 00000000010, 000000000001Y",
    "9223372036854775807, AzL8n0Y58m7, 7ZZZZZZZZZZZZ",
  })
  void knownValuesOfFlake(long id, String base62, String crockford) {
    assertEquals(base62, NumericIds.toBase62(id));
    assertEquals(crockford, NumericIds.toCrockford(id));
    assertEquals(id, NumericIds.fromBase62(base62));
    assertEquals(id, NumericIds.fromCrockford(crockford));
  }

  @Test
  void fixedWidthFormsSortAsTheNumbers() {
    SplittableRandom rng = new SplittableRandom(27);
    for (int i = 0; i < 10_000; i++) {
      long x = rng.nextLong(Long.MAX_VALUE);
      long y = rng.nextLong(Long.MAX_VALUE);
      assertEquals(Long.signum(Long.compare(x, y)), Integer.signum(NumericIds.toBase62(x).compareTo(NumericIds.toBase62(y))));
      assertEquals(Long.signum(Long.compare(x, y)), Integer.signum(NumericIds.toCrockford(x).compareTo(NumericIds.toCrockford(y))));
      assertEquals(x, NumericIds.fromBase62(NumericIds.toBase62(x)));
      assertEquals(x, NumericIds.fromCrockford(NumericIds.toCrockford(x)));
    }
  }

  @Test
  void crockfordReadsAsCrockfordAsks() {
    assertEquals(1, NumericIds.fromCrockford("000000000000l"));
    assertEquals(1, NumericIds.fromCrockford("000000000000I"));
    assertEquals(0, NumericIds.fromCrockford("oooooo-oooooo-o"));
    assertEquals(NumericIds.fromCrockford("000000000001X"), NumericIds.fromCrockford("000000000001x"));
  }

  @Test
  void badTextIsRefusedWithWhatIsWrong() {
    assertThrows(IllegalArgumentException.class, () -> NumericIds.fromBase62("0000000000"));
    assertThrows(IllegalArgumentException.class, () -> NumericIds.fromBase62("0000000000-"));
    assertThrows(IllegalArgumentException.class, () -> NumericIds.fromBase62("AzL8n0Y58m8"), "above 2^63-1");
    assertThrows(IllegalArgumentException.class, () -> NumericIds.fromCrockford("000000000000U"));
    assertThrows(IllegalArgumentException.class, () -> NumericIds.fromCrockford("8000000000000"), "above 2^63-1");
    assertThrows(IllegalArgumentException.class, () -> NumericIds.fromCrockford("00000000000000"));
    assertThrows(IllegalArgumentException.class, () -> NumericIds.toBase62(-1));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NumericIds.fromCrockford("0".repeat(27)));
    assertTrue(e.getMessage().contains("13 symbols"), e.getMessage());
  }

  @Test
  void layoutsAreCheckedAndTakeIdsApart() {
    assertThrows(IllegalArgumentException.class, () -> new NumericLayout(NumericLayout.DEFAULT.epoch(), NumericLayout.DEFAULT.unit(), 41, 11, 12));
    assertThrows(IllegalArgumentException.class, () -> new NumericLayout(NumericLayout.DEFAULT.epoch(), NumericLayout.DEFAULT.unit(), 40, 23, 0));
    long id = (5L << 22) | (7L << 12) | 3;
    NumericLayout.Parts p = NumericLayout.DEFAULT.decompose(id);
    assertEquals(new NumericLayout.Parts(5, 7, 3, NumericLayout.DEFAULT.epoch().plusMillis(5)), p);
  }
}
