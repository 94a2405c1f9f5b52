import { test } from "node:test";
import assert from "node:assert/strict";
import { collectionName, plural } from "../../src/entity.js";

// The Go client's collection-name conventions (client/entity_test.go), case for case.

test("a class's collection: its name pluralised, lower-cased when it is one word", () => {
  const cases: Record<string, string> = {
    Order: "orders", Category: "categories", Address: "addresses", Box: "boxes", Person: "people", PackageTracking: "PackageTrackings",
    SalesPerson: "SalesPeople", Status: "statuses", URL: "urls", HTTPRequest: "HTTPRequests", Day: "days", Hero: "heroes", Photo: "photos",
    Settings: "settings", Analysis: "analyses", Leaf: "leaves", Sheep: "sheep", Child: "children", Match: "matches", Wish: "wishes",
    Quiz: "quizzes", Bus: "buses", orderLine: "orderLines", user: "users", ShippingBOX: "ShippingBOXes", Item2: "item2s", Invoice: "invoices", "": "",
  };
  for (const [name, want] of Object.entries(cases)) assert.equal(collectionName(name), want, name);
});

test("English plurals keep the word's case", () => {
  const cases: Record<string, string> = {
    order: "orders", Order: "Orders", category: "categories", Category: "Categories", key: "keys", toy: "toys", address: "addresses",
    box: "boxes", buzz: "buzzes", church: "churches", dish: "dishes", person: "people", Person: "People", PERSON: "PEOPLE", man: "men",
    mouse: "mice", news: "news", series: "series", status: "statuses", campus: "campuses", axis: "axes", knife: "knives", potato: "potatoes",
    video: "videos", URL: "URLs", ID: "IDs", BOX: "BOXes", alias: "aliases", a: "as", "": "", ÄPFEL: "ÄPFELs", café: "cafés",
  };
  for (const [word, want] of Object.entries(cases)) assert.equal(plural(word), want, word);
});
