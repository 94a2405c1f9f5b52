package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The key-less check of an opaque ID's form against the cases every client shares
 * (test/conformance/opaque-forms.json), so the four checks cannot drift apart.
 */
class OpaqueIdsTest {
  private static JsonObject forms() throws IOException {
    String text = Files.readString(IdCluster.repoRoot().resolve("test/conformance/opaque-forms.json"));
    return JsonParser.parseString(text).getAsJsonObject();
  }

  private static Optional<String> parse(JsonObject c) {
    String sep = c.has("separator") ? c.get("separator").getAsString() : "/";
    assertEquals(1, sep.length(), "separator of " + c);
    return OpaqueIds.parse(c.get("id").getAsString(), c.get("collection").getAsString(), sep.charAt(0));
  }

  @Test
  void acceptsEveryValidFormAndNormalisesIt() throws IOException {
    JsonArray valid = forms().getAsJsonArray("valid");
    assertFalse(valid.isEmpty());
    for (JsonElement e : valid) {
      JsonObject c = e.getAsJsonObject();
      assertEquals(Optional.of(c.get("normalised").getAsString()), parse(c), c.get("why").getAsString());
    }
  }

  @Test
  void refusesEveryInvalidForm() throws IOException {
    JsonArray invalid = forms().getAsJsonArray("invalid");
    assertFalse(invalid.isEmpty());
    for (JsonElement e : invalid) {
      JsonObject c = e.getAsJsonObject();
      assertEquals(Optional.empty(), parse(c), c.get("id") + ": " + c.get("why").getAsString());
    }
  }

  @Test
  void acceptsEveryValidNumericFormAndNormalisesIt() throws IOException {
    JsonArray valid = forms().getAsJsonObject("numeric").getAsJsonArray("valid");
    assertFalse(valid.isEmpty());
    for (JsonElement e : valid) {
      JsonObject c = e.getAsJsonObject();
      assertEquals(Optional.of(c.get("normalised").getAsString()), OpaqueIds.parseNumeric(c.get("id").getAsString()),
          c.get("why").getAsString());
    }
  }

  @Test
  void refusesEveryInvalidNumericForm() throws IOException {
    JsonArray invalid = forms().getAsJsonObject("numeric").getAsJsonArray("invalid");
    assertFalse(invalid.isEmpty());
    for (JsonElement e : invalid) {
      JsonObject c = e.getAsJsonObject();
      assertEquals(Optional.empty(), OpaqueIds.parseNumeric(c.get("id").getAsString()), c.get("id") + ": " + c.get("why").getAsString());
    }
  }

  @Test
  void refusesNull() {
    assertTrue(OpaqueIds.parse(null, "orders").isEmpty());
    assertTrue(OpaqueIds.parse("orders/KC6HECSWE6SX7", null).isEmpty());
    assertTrue(OpaqueIds.parseNumeric(null).isEmpty());
  }
}
