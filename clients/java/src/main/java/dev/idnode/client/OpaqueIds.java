package dev.idnode.client;

import java.util.Optional;

/**
 * The key-less check of an opaque ID's form (docs/opaque-ids.md). A collection an admin made
 * opaque answers {@code generate("orders|")} with {@code orders/} and 13 Crockford base-32
 * symbols in place of the counter's value; the key that reads a form back stays in the cluster,
 * so what an application can check alone is the shape. The cases every client agrees on are
 * data, in the conformance suite's {@code test/conformance/opaque-forms.json}. A database whose
 * numeric IDs are opaque answers them as the 13 symbols alone, which {@link #parseNumeric}
 * checks.
 */
public final class OpaqueIds {
  /** The number of Crockford base-32 symbols of every opaque ID, after the collection and separator. */
  public static final int LENGTH = 13;

  private static final String ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

  private OpaqueIds() {}

  /** {@link #parse(String, String, char)} on a cluster whose separator is {@code /}. */
  public static Optional<String> parse(String id, String collection) {
    return parse(id, collection, '/');
  }

  /**
   * The opaque form of an ID of {@code collection}, normalised, or empty when {@code id} is not
   * one. The form is the collection, the cluster's {@code separator}, then 13 Crockford base-32
   * symbols. The symbols are read in either case with I and L as 1 and O as 0, and come back in
   * their canonical upper-case spelling; hyphens are refused (the length is fixed, and a
   * separator may itself be a hyphen). The collection's ASCII letters match in either case, as
   * the cluster folds names (other letters must be spelt alike); the ID's own spelling of it is
   * kept.
   *
   * <p>No key is needed and no call is made. A form of the right shape may still be refused by
   * the cluster ({@link Reasons#NOT_OPAQUE_FORM}): three in four of them decode outside any
   * counter, which only the key tells.
   *
   * <pre>{@code
   * OpaqueIds.parse("orders/kc6hecswe6sx7", "orders"); // Optional[orders/KC6HECSWE6SX7]
   * OpaqueIds.parse("orders/1", "orders");             // Optional.empty
   * }</pre>
   */
  public static Optional<String> parse(String id, String collection, char separator) {
    if (id == null || collection == null || collection.isEmpty()) {
      return Optional.empty();
    }
    String prefix = collection + separator;
    if (id.length() != prefix.length() + LENGTH || !equalFoldAscii(id, prefix)) {
      return Optional.empty();
    }
    return canonicalSymbols(id.substring(prefix.length())).map(symbols -> id.substring(0, prefix.length()) + symbols);
  }

  /**
   * The opaque form of a numeric ID, normalised, or empty when {@code id} is not one. A database
   * whose numeric IDs an admin made opaque answers {@code generate} with {@code numeric} set
   * with 13 Crockford base-32 symbols and nothing else, since a numeric ID has no collection. The
   * symbols are read as {@link #parse(String, String, char)} reads them.
   *
   * <p>No key is needed and no call is made, so a form of the right shape may still be none the
   * database's key decodes.
   *
   * <pre>{@code
   * OpaqueIds.parseNumeric("kc6hecswe6sx7");       // Optional[KC6HECSWE6SX7]
   * OpaqueIds.parseNumeric("1234567890123456789"); // Optional.empty
   * }</pre>
   */
  public static Optional<String> parseNumeric(String id) {
    return id == null ? Optional.empty() : canonicalSymbols(id);
  }

  /** The 13 symbols of s in their canonical spelling, or empty when s is not 13 symbols. */
  private static Optional<String> canonicalSymbols(String s) {
    if (s.length() != LENGTH) {
      return Optional.empty();
    }
    char[] form = new char[LENGTH];
    for (int i = 0; i < LENGTH; i++) {
      int symbol = canonical(s.charAt(i));
      if (symbol < 0) {
        return Optional.empty();
      }
      form[i] = ALPHABET.charAt(symbol);
    }
    return Optional.of(new String(form));
  }

  /** Whether id starts with prefix, their ASCII letters compared in either case. */
  private static boolean equalFoldAscii(String id, String prefix) {
    for (int i = 0; i < prefix.length(); i++) {
      if (lowerAscii(id.charAt(i)) != lowerAscii(prefix.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static char lowerAscii(char c) {
    return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
  }

  /** The value of a Crockford symbol in either case, I and L as 1, O as 0; -1 for anything else. */
  private static int canonical(char c) {
    char upper = c >= 'a' && c <= 'z' ? (char) (c - ('a' - 'A')) : c;
    switch (upper) {
      case 'I', 'L' -> {
        return 1;
      }
      case 'O' -> {
        return 0;
      }
      default -> {
        return upper < 128 ? ALPHABET.indexOf(upper) : -1;
      }
    }
  }
}
