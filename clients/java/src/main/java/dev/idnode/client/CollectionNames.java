package dev.idnode.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The collection (HiLo tag) {@link IdnodeClient#assignId} gives an entity of a class, by the
 * convention of the Go client and RavenDB: the class's simple name, pluralised.
 */
public final class CollectionNames {
  static final Set<String> UNCOUNTABLE = Set.of("sheep", "fish", "deer", "series", "species", "news",
      "equipment", "information", "money", "rice", "data", "metadata", "feedback", "software", "hardware", "staff");

  static final Map<String, String> IRREGULAR = Map.ofEntries(
      Map.entry("person", "people"), Map.entry("man", "men"), Map.entry("woman", "women"), Map.entry("child", "children"),
      Map.entry("mouse", "mice"), Map.entry("goose", "geese"), Map.entry("foot", "feet"), Map.entry("tooth", "teeth"),
      Map.entry("ox", "oxen"), Map.entry("quiz", "quizzes"), Map.entry("leaf", "leaves"), Map.entry("knife", "knives"),
      Map.entry("life", "lives"), Map.entry("wife", "wives"), Map.entry("half", "halves"), Map.entry("shelf", "shelves"),
      Map.entry("wolf", "wolves"), Map.entry("thief", "thieves"), Map.entry("loaf", "loaves"), Map.entry("calf", "calves"),
      Map.entry("self", "selves"), Map.entry("elf", "elves"), Map.entry("index", "indexes"), Map.entry("matrix", "matrices"),
      Map.entry("vertex", "vertices"), Map.entry("criterion", "criteria"), Map.entry("phenomenon", "phenomena"),
      Map.entry("alias", "aliases"), Map.entry("gas", "gases"), Map.entry("canvas", "canvases"), Map.entry("atlas", "atlases"),
      Map.entry("bias", "biases"), Map.entry("lens", "lenses"), Map.entry("iris", "irises"));

  static final Set<String> O_ES = Set.of("hero", "potato", "tomato", "echo", "veto", "volcano", "torpedo",
      "mosquito", "buffalo", "embargo");

  private CollectionNames() {}

  /**
   * The default collection of a class: its simple name, pluralised ({@link #plural});
   * lower-cased when the name is one word ({@code Order} → {@code orders}, {@code Category} →
   * {@code categories}), kept as it is when it is several ({@code PackageTracking} →
   * {@code PackageTrackings}). Words are split at camel-case humps, with a run of capitals as
   * one word: {@code URL} is one word ({@code urls}), {@code HTTPRequest} two
   * ({@code HTTPRequests}).
   *
   * @param type the entity's class
   * @return the collection, or {@code ""} for a class without a name (an anonymous one)
   */
  public static String of(Class<?> type) {
    return ofName(type.getSimpleName());
  }

  /** {@link #of} for a class's simple name. */
  static String ofName(String name) {
    if (name.isEmpty()) {
      return "";
    }
    List<String> words = words(name);
    if (words.size() == 1) {
      return plural(name.toLowerCase(Locale.ROOT));
    }
    String last = words.get(words.size() - 1);
    return name.substring(0, name.length() - last.length()) + plural(last);
  }

  /**
   * The English plural of one word, keeping its capitalisation: a small table of irregular and
   * uncountable nouns ({@code person} → {@code people}, {@code sheep} → {@code sheep}), then
   * the regular rules: -s/-x/-z/-ch/-sh → +es, consonant + y → -ies, -is → -es, a few -o words
   * → +es, otherwise +s. Any other word ending in s ({@code settings}) is taken as plural
   * already. All-capital words get a lower-case ending ({@code URL} → {@code URLs}).
   *
   * @param word the word
   * @return its plural
   */
  public static String plural(String word) {
    if (word.isEmpty()) {
      return "";
    }
    String lower = word.toLowerCase(Locale.ROOT);
    if (UNCOUNTABLE.contains(lower)) {
      return word;
    }
    String irregular = IRREGULAR.get(lower);
    if (irregular != null) {
      return matchCase(word, irregular);
    }
    if (lower.endsWith("ss") || lower.endsWith("us") || lower.endsWith("x") || lower.endsWith("z")
        || lower.endsWith("ch") || lower.endsWith("sh")) {
      return withEnding(word, "es");
    }
    if (lower.endsWith("is") && lower.length() > 2) {
      return word.substring(0, word.length() - 2) + matchCase(word.substring(word.length() - 2), "es");
    }
    if (lower.endsWith("s")) {
      return word; // already plural: settings, news, sales
    }
    if (lower.endsWith("y") && lower.length() > 1 && "aeiou".indexOf(lower.charAt(lower.length() - 2)) < 0) {
      return word.substring(0, word.length() - 1) + matchCase(word.substring(word.length() - 1), "ies");
    }
    if (O_ES.contains(lower)) {
      return withEnding(word, "es");
    }
    return withEnding(word, "s");
  }

  /** word + ending, the ending in the case of word's last letter (all-capital words: lower). */
  private static String withEnding(String word, String ending) {
    if (isAllCaps(word) && word.codePointCount(0, word.length()) > 1) {
      return word + ending;
    }
    int last = word.offsetByCodePoints(word.length(), -1);
    return word + matchCase(word.substring(last), ending);
  }

  private static boolean isAllCaps(String s) {
    return s.toUpperCase(Locale.ROOT).equals(s) && !s.toLowerCase(Locale.ROOT).equals(s);
  }

  /**
   * repl in the case of model: all capitals if model is (and is longer than one letter),
   * capitalised if model is, else as given.
   */
  private static String matchCase(String model, String repl) {
    boolean longer = model.codePointCount(0, model.length()) > 1;
    if (longer && isAllCaps(model)) {
      return repl.toUpperCase(Locale.ROOT);
    }
    if (longer && Character.isUpperCase(model.codePointAt(0))) {
      int first = repl.offsetByCodePoints(0, 1);
      return repl.substring(0, first).toUpperCase(Locale.ROOT) + repl.substring(first);
    }
    return repl;
  }

  /**
   * Splits an identifier at camel-case boundaries: {@code PackageTracking} → Package, Tracking;
   * {@code HTTPRequest} → HTTP, Request; {@code order2Line} → order2, Line. Underscores stay with
   * the word before them.
   */
  private static List<String> words(String name) {
    int[] cps = name.codePoints().toArray();
    List<String> words = new ArrayList<>();
    int start = 0;
    for (int i = 1; i < cps.length; i++) {
      int prev = cps[i - 1];
      int cur = cps[i];
      int next = i + 1 < cps.length ? cps[i + 1] : 0;
      boolean boundary = (prev == '_' && cur != '_')
          || (Character.isUpperCase(cur) && (Character.isLowerCase(prev) || Character.isDigit(prev)))
          || (Character.isUpperCase(cur) && Character.isUpperCase(prev) && Character.isLowerCase(next));
      if (boundary) {
        words.add(new String(cps, start, i - start));
        start = i;
      }
    }
    words.add(new String(cps, start, cps.length - start));
    return words;
  }
}
