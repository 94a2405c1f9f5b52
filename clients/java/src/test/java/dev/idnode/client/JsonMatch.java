package dev.idnode.client;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.math.BigInteger;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * The conformance suite's matchers (test/conformance/README.md, "Values and matchers"): plain
 * values match by value (objects by the keys they name), matcher objects by their {@code $}
 * conditions. {@code $ref}s are resolved by the caller's function.
 */
final class JsonMatch {
  private JsonMatch() {}

  /** Null when {@code actual} matches {@code matcher}, else what differs. */
  static String mismatch(JsonElement matcher, JsonElement actual, UnaryOperator<JsonElement> resolve, String path) {
    if (matcher.isJsonObject() && isMatcherObject(matcher.getAsJsonObject())) {
      for (Map.Entry<String, JsonElement> c : matcher.getAsJsonObject().entrySet()) {
        String why = condition(c.getKey(), c.getValue(), actual, resolve, path);
        if (why != null) {
          return why;
        }
      }
      return null;
    }
    if (matcher.isJsonObject()) {
      if (!actual.isJsonObject()) {
        return path + ": want an object, got " + actual;
      }
      for (Map.Entry<String, JsonElement> e : matcher.getAsJsonObject().entrySet()) {
        JsonElement a = actual.getAsJsonObject().get(e.getKey());
        if (a == null) {
          return path + "." + e.getKey() + ": missing in " + actual;
        }
        String why = mismatch(e.getValue(), a, resolve, path + "." + e.getKey());
        if (why != null) {
          return why;
        }
      }
      return null;
    }
    if (matcher.isJsonArray()) {
      if (!actual.isJsonArray() || actual.getAsJsonArray().size() != matcher.getAsJsonArray().size()) {
        return path + ": want " + matcher + ", got " + actual;
      }
      for (int i = 0; i < matcher.getAsJsonArray().size(); i++) {
        String why = mismatch(matcher.getAsJsonArray().get(i), actual.getAsJsonArray().get(i), resolve, path + "." + i);
        if (why != null) {
          return why;
        }
      }
      return null;
    }
    return scalarEquals(matcher, actual) ? null : path + ": want " + matcher + ", got " + actual;
  }

  private static boolean isMatcherObject(JsonObject o) {
    return !o.keySet().isEmpty() && o.keySet().stream().allMatch(k -> k.startsWith("$"));
  }

  private static String condition(String op, JsonElement arg, JsonElement actual, UnaryOperator<JsonElement> resolve, String path) {
    switch (op) {
      case "$regex" -> {
        if (!isString(actual) || !Pattern.compile(arg.getAsString()).matcher(actual.getAsString()).find()) {
          return path + ": " + actual + " does not match /" + arg.getAsString() + "/";
        }
      }
      case "$ref" -> {
        JsonElement want = resolve.apply(arg);
        return mismatch(want, actual, resolve, path);
      }
      case "$len" -> {
        int n = actual.isJsonArray() ? actual.getAsJsonArray().size() : isString(actual) ? actual.getAsString().length() : -1;
        if (n != arg.getAsInt()) {
          return path + ": want length " + arg + ", got " + actual;
        }
      }
      case "$distinct" -> {
        Set<JsonElement> seen = new HashSet<>();
        JsonArray a = actual.getAsJsonArray();
        a.forEach(seen::add);
        if (arg.getAsBoolean() != (seen.size() == a.size())) {
          return path + ": want distinct=" + arg + ", " + (a.size() - seen.size()) + " repeated in " + actual;
        }
      }
      case "$each" -> {
        if (!actual.isJsonArray()) {
          return path + ": $each wants an array, got " + actual;
        }
        JsonArray a = actual.getAsJsonArray();
        for (int i = 0; i < a.size(); i++) {
          String why = mismatch(arg, a.get(i), resolve, path + "." + i);
          if (why != null) {
            return why;
          }
        }
      }
      case "$gt", "$gte", "$lt", "$lte" -> {
        JsonElement bound = arg.isJsonObject() ? resolve.apply(arg.getAsJsonObject().get("$ref")) : arg;
        BigInteger a = integer(actual);
        BigInteger b = integer(bound);
        if (a == null || b == null) {
          return path + ": " + op + " wants integers, got " + actual + " and " + bound;
        }
        int c = a.compareTo(b);
        boolean ok = switch (op) {
          case "$gt" -> c > 0;
          case "$gte" -> c >= 0;
          case "$lt" -> c < 0;
          default -> c <= 0;
        };
        if (!ok) {
          return path + ": want " + op + " " + bound + ", got " + actual;
        }
      }
      case "$not" -> {
        if (mismatch(arg, actual, resolve, path) == null) {
          return path + ": " + actual + " matches " + arg + ", which it must not";
        }
      }
      default -> throw new IllegalArgumentException("unknown matcher " + op + " at " + path);
    }
    return null;
  }

  private static boolean isString(JsonElement e) {
    return e.isJsonPrimitive() && e.getAsJsonPrimitive().isString();
  }

  /** An integer held as a JSON number or a decimal string (numeric IDs), else null. */
  static BigInteger integer(JsonElement e) {
    if (e == null || !e.isJsonPrimitive()) {
      return null;
    }
    JsonPrimitive p = e.getAsJsonPrimitive();
    try {
      if (p.isNumber()) {
        return p.getAsBigDecimal().toBigIntegerExact();
      }
      if (p.isString() && p.getAsString().matches("-?[0-9]+")) {
        return new BigInteger(p.getAsString());
      }
    } catch (ArithmeticException notWhole) {
      return null;
    }
    return null;
  }

  private static boolean scalarEquals(JsonElement want, JsonElement got) {
    if (want.isJsonNull() || got.isJsonNull()) {
      return want.isJsonNull() && got.isJsonNull();
    }
    JsonPrimitive w = want.getAsJsonPrimitive();
    if (!got.isJsonPrimitive()) {
      return false;
    }
    JsonPrimitive g = got.getAsJsonPrimitive();
    if (w.isNumber() && g.isNumber()) {
      return w.getAsBigDecimal().compareTo(g.getAsBigDecimal()) == 0;
    }
    return w.equals(g);
  }
}
