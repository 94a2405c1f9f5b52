package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The collection-name conventions, the Go client's (client/entity_test.go). */
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

  @Test
  void pluralsFollowEnglishAndKeepTheCase() {
    Map<String, String> cases = Map.ofEntries(Map.entry("order", "orders"), Map.entry("Order", "Orders"),
        Map.entry("category", "categories"), Map.entry("Category", "Categories"), Map.entry("key", "keys"), Map.entry("toy", "toys"),
        Map.entry("address", "addresses"), Map.entry("box", "boxes"), Map.entry("buzz", "buzzes"), Map.entry("church", "churches"),
        Map.entry("dish", "dishes"), Map.entry("person", "people"), Map.entry("Person", "People"), Map.entry("PERSON", "PEOPLE"),
        Map.entry("man", "men"), Map.entry("mouse", "mice"), Map.entry("news", "news"), Map.entry("series", "series"),
        Map.entry("status", "statuses"), Map.entry("campus", "campuses"), Map.entry("axis", "axes"), Map.entry("knife", "knives"),
        Map.entry("potato", "potatoes"), Map.entry("video", "videos"), Map.entry("URL", "URLs"), Map.entry("ID", "IDs"),
        Map.entry("BOX", "BOXes"), Map.entry("alias", "aliases"), Map.entry("a", "as"), Map.entry("", ""),
        Map.entry("ÄPFEL", "ÄPFELs"), Map.entry("café", "cafés"));
    cases.forEach((word, want) -> assertEquals(want, CollectionNames.plural(word), word));
  }
}
