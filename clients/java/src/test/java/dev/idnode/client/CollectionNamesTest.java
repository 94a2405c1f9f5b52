package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The collection-name conventions, against the tables and cases every client shares
 * (test/conformance/collection-names.json), so the four copies cannot drift apart.
 */
class CollectionNamesTest {
  static class Order {}

  static class Category {}

  static class Person {}

  static class PackageTracking {}

  static class SalesPerson {}

  static class URL {}

  static class HTTPRequest {}

  static class Settings {}

  static class ShippingBOX {}

  static class Item2 {}

  static class order_line {}

  @Test
  void aClassesCollectionIsItsNamePluralised() {
    Map<Class<?>, String> cases = Map.ofEntries(Map.entry(Order.class, "orders"), Map.entry(Category.class, "categories"),
        Map.entry(Person.class, "people"), Map.entry(PackageTracking.class, "PackageTrackings"),
        Map.entry(SalesPerson.class, "SalesPeople"), Map.entry(URL.class, "urls"), Map.entry(HTTPRequest.class, "HTTPRequests"),
        Map.entry(Settings.class, "settings"), Map.entry(ShippingBOX.class, "ShippingBOXes"), Map.entry(Item2.class, "item2s"),
        Map.entry(order_line.class, "order_lines"), Map.entry(new Object() {}.getClass(), ""));
    cases.forEach((type, want) -> assertEquals(want, CollectionNames.of(type), type.getName()));
  }

  /** The plural tables and cases every client shares. */
  private static JsonObject shared() throws IOException {
    String text = Files.readString(IdCluster.repoRoot().resolve("test/conformance/collection-names.json"));
    return JsonParser.parseString(text).getAsJsonObject();
  }

  private static Set<String> words(JsonArray a) {
    Set<String> out = new HashSet<>();
    a.forEach(e -> out.add(e.getAsString()));
    return out;
  }

  private static Map<String, String> pairs(JsonObject o) {
    Map<String, String> out = new HashMap<>();
    o.entrySet().forEach(e -> out.put(e.getKey(), e.getValue().getAsString()));
    return out;
  }

  @Test
  void theTablesAreTheSharedFiles() throws IOException {
    JsonObject n = shared();
    assertEquals(words(n.getAsJsonArray("uncountable")), CollectionNames.UNCOUNTABLE);
    assertEquals(pairs(n.getAsJsonObject("irregular")), CollectionNames.IRREGULAR);
    assertEquals(words(n.getAsJsonArray("esAfterO")), CollectionNames.O_ES);
  }

  @Test
  void pluralsFollowEnglishAndKeepTheCase() throws IOException {
    pairs(shared().getAsJsonObject("plurals")).forEach((word, want) -> assertEquals(want, CollectionNames.plural(word), word));
  }

  @Test
  void aNamesCollectionIsTheSharedFiles() throws IOException {
    pairs(shared().getAsJsonObject("collections")).forEach((name, want) -> assertEquals(want, CollectionNames.ofName(name), name));
  }
}
