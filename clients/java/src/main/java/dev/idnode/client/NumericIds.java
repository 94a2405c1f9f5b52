package dev.idnode.client;

/**
 * The two text forms of a numeric ID, both fixed-width so that they sort as the numbers do
 * (the Go package flake's encodings): base62 (11 characters of {@code 0-9A-Za-z}) and Crockford's
 * base 32 (13 upper-case symbols, no {@code I L O U}).
 */
public final class NumericIds {
  private static final String BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  private static final String CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  /** Characters of every base62 form. */
  public static final int BASE62_WIDTH = 11;
  /** Symbols of every Crockford form. */
  public static final int CROCKFORD_WIDTH = 13;
  private static final byte[] CROCKFORD_VALUES = new byte[128];

  static {
    java.util.Arrays.fill(CROCKFORD_VALUES, (byte) -1);
    for (int v = 0; v < CROCKFORD.length(); v++) {
      char c = CROCKFORD.charAt(v);
      CROCKFORD_VALUES[c] = (byte) v;
      CROCKFORD_VALUES[Character.toLowerCase(c)] = (byte) v;
    }
    CROCKFORD_VALUES['I'] = CROCKFORD_VALUES['i'] = CROCKFORD_VALUES['L'] = CROCKFORD_VALUES['l'] = 1;
    CROCKFORD_VALUES['O'] = CROCKFORD_VALUES['o'] = 0;
  }

  private NumericIds() {}

  /**
   * @param id an ID, not negative
   * @return its 11 base62 digits, zero-padded
   */
  public static String toBase62(long id) {
    checkId(id);
    char[] b = new char[BASE62_WIDTH];
    long v = id;
    for (int i = BASE62_WIDTH - 1; i >= 0; i--) {
      b[i] = BASE62.charAt((int) (v % 62));
      v /= 62;
    }
    return new String(b);
  }

  /**
   * @param s exactly 11 characters of {@code 0-9A-Za-z}, at most 2^63−1
   * @return the ID
   * @throws IllegalArgumentException naming what is wrong
   */
  public static long fromBase62(String s) {
    if (s.length() != BASE62_WIDTH) {
      throw new IllegalArgumentException("a base62 ID is " + BASE62_WIDTH + " characters, got " + s.length());
    }
    long v = 0;
    for (int i = 0; i < s.length(); i++) {
      int d = BASE62.indexOf(s.charAt(i));
      if (d < 0) {
        throw new IllegalArgumentException("character '" + s.charAt(i) + "' at " + i + " of \"" + s + "\" is not 0-9, A-Z or a-z");
      }
      if (v > (Long.MAX_VALUE - d) / 62) {
        throw new IllegalArgumentException("\"" + s + "\" is above 2^63-1");
      }
      v = v * 62 + d;
    }
    return v;
  }

  /**
   * @param id an ID, not negative
   * @return its 13 Crockford base-32 symbols, upper case, zero-padded
   */
  public static String toCrockford(long id) {
    checkId(id);
    char[] b = new char[CROCKFORD_WIDTH];
    long v = id;
    for (int i = CROCKFORD_WIDTH - 1; i >= 0; i--) {
      b[i] = CROCKFORD.charAt((int) (v & 31));
      v >>>= 5;
    }
    return new String(b);
  }

  /**
   * Reads 13 Crockford symbols as Crockford asks: any case, {@code I}/{@code L} as 1, {@code O}
   * as 0, hyphens ignored (at most 26 characters in all).
   *
   * @param s the text
   * @return the ID
   * @throws IllegalArgumentException naming what is wrong
   */
  public static long fromCrockford(String s) {
    if (s.length() > 2 * CROCKFORD_WIDTH) {
      throw new IllegalArgumentException("a Crockford ID is " + CROCKFORD_WIDTH + " symbols (hyphens allowed), got " + s.length() + " characters");
    }
    long v = 0;
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '-') {
        continue;
      }
      int d = c < 128 ? CROCKFORD_VALUES[c] : -1;
      if (d < 0) {
        throw new IllegalArgumentException("character '" + c + "' at " + i + " of \"" + s + "\" is not a Crockford base-32 symbol");
      }
      if (n == CROCKFORD_WIDTH) {
        throw new IllegalArgumentException("\"" + s + "\" has more than " + CROCKFORD_WIDTH + " symbols");
      }
      if (v > Long.MAX_VALUE >> 5) {
        throw new IllegalArgumentException("\"" + s + "\" is above 2^63-1");
      }
      v = v << 5 | d;
      n++;
    }
    if (n != CROCKFORD_WIDTH) {
      throw new IllegalArgumentException("a Crockford ID is " + CROCKFORD_WIDTH + " symbols, \"" + s + "\" has " + n);
    }
    return v;
  }

  private static void checkId(long id) {
    if (id < 0) {
      throw new IllegalArgumentException("numeric IDs are never negative, got " + id);
    }
  }
}
