package dev.idnode.client;

import java.nio.charset.StandardCharsets;

/**
 * The checks the client makes before a call, with the rules (and messages) the server applies
 * (Go: package docid), so a bad argument is refused the same way whether or not it was sent.
 */
final class Validation {
  /** The longest document ID or request string in UTF-8 bytes. */
  static final int MAX_ID_BYTES = 2025;
  /** The longest name or tag in UTF-8 bytes: 2025 less room for a number, node tag and separators. */
  static final int MAX_NAME_BYTES = MAX_ID_BYTES - 4 - 20 - 1 - 4;

  private Validation() {}

  /** A HiLo tag printed with separator sep: a valid name, not blank, not ending with sep. */
  static void hiloTag(String tag, char sep) {
    name("hilo tag", tag);
    if (tag.isBlank()) {
      throw invalid("hilo tag is blank", tag);
    }
    if (tag.charAt(tag.length() - 1) == sep) {
      throw invalid("hilo tag ends with the separator \"" + sep + "\": give the tag without it", tag);
    }
  }

  /** A HiLo server prefix (legacy format): one word between two separators. */
  static void serverPrefix(String prefix, char sep) {
    if (prefix.isEmpty()) {
      throw invalid("hilo server prefix is empty", prefix);
    }
    text("hilo server prefix", prefix, MAX_NAME_BYTES);
    if (prefix.indexOf(sep) >= 0 || prefix.chars().anyMatch(Character::isWhitespace) || prefix.indexOf('|') >= 0) {
      throw invalid("hilo server prefix must be one word without the separator \"" + sep + "\", whitespace or a pipe", prefix);
    }
  }

  static void name(String what, String name) {
    if (name == null || name.isEmpty()) {
      throw invalid(what + " is empty", "");
    }
    text(what, name, MAX_NAME_BYTES);
    if (name.indexOf('|') >= 0) {
      throw invalid(what + " contains a pipe", name);
    }
  }

  /** A document ID kept as it is (a semantic ID): the server's rules for its text. */
  static void documentId(String id) {
    text("document id", id, MAX_ID_BYTES);
  }

  static char separator(char sep) {
    if (sep == '|' || Character.isISOControl(sep) || Character.isWhitespace(sep) || Character.isSurrogate(sep)) {
      throw new IllegalArgumentException("separator must be one printable character other than '|', got " + (int) sep);
    }
    return sep;
  }

  private static void text(String what, String s, int maxBytes) {
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      if (Character.isSurrogate((char) cp)) {
        throw invalid(what + " is not valid UTF-8", s);
      }
      if (cp == '\\') {
        throw invalid(what + " contains a backslash", s);
      }
      if (Character.isISOControl(cp)) {
        throw invalid(what + " contains a control character", s);
      }
      if (Character.getType(cp) == Character.FORMAT) {
        throw invalid(String.format("%s contains an invisible format character U+%04X (Unicode category Cf)", what, cp), s);
      }
      i += Character.charCount(cp);
    }
    if (s.getBytes(StandardCharsets.UTF_8).length > maxBytes) {
      throw invalid(what + " is longer than " + maxBytes + " bytes", s);
    }
  }

  /** A count of values for one call: 0 means 1, negative is refused. */
  static long count(long count) {
    if (count < 0) {
      throw invalid("count must be 1 or more (0 means 1)", Long.toString(count));
    }
    return count;
  }

  static long nonNegative(String what, long value) {
    if (value < 0) {
      throw invalid(what + " must not be negative", Long.toString(value));
    }
    return value;
  }

  static IdnodeException invalid(String rule, String value) {
    String shown = value.length() > 64 ? value.substring(0, 32) + "…(" + value.length() + " chars)" : value;
    return IdnodeException.invalidInput(rule + ": \"" + shown + "\"");
  }
}
