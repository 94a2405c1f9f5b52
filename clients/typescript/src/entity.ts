/**
 * The seeds' conventions for an entity's collection, as the Go client's AssignID follows them:
 * the class's name, pluralised by English rules; lower-cased when the name is one word (Order →
 * orders, Category → categories), kept as it is when it is several (PackageTracking →
 * PackageTrackings). Words are split at camel-case humps, a run of capitals being one word: URL
 * is one word (urls), HTTPRequest two (HTTPRequests).
 */
export function collectionName(className: string): string {
  if (className === "") return "";
  const words = splitWords(className);
  if (words.length === 1) return plural(className.toLowerCase());
  const last = words[words.length - 1] ?? "";
  return className.slice(0, className.length - last.length) + plural(last);
}

const isUpper = (c: string): boolean => c !== c.toLowerCase() && c === c.toUpperCase();
const isLower = (c: string): boolean => c !== c.toUpperCase() && c === c.toLowerCase();
const isDigit = (c: string): boolean => c >= "0" && c <= "9";

/** An identifier's words: "PackageTracking" → Package, Tracking; "HTTPRequest" → HTTP, Request; "order2Line" → order2, Line. */
function splitWords(name: string): string[] {
  const chars = [...name];
  const words: string[] = [];
  let start = 0;
  for (let i = 1; i < chars.length; i++) {
    const prev = chars[i - 1] ?? "";
    const cur = chars[i] ?? "";
    const next = chars[i + 1] ?? "";
    const boundary =
      (prev === "_" && cur !== "_") ||
      (isUpper(cur) && (isLower(prev) || isDigit(prev))) || // orderLine, order2Line
      (isUpper(cur) && isUpper(prev) && isLower(next)); // HTTPRequest: the R starts a word
    if (boundary) {
      words.push(chars.slice(start, i).join(""));
      start = i;
    }
  }
  words.push(chars.slice(start).join(""));
  return words;
}

/** @internal The plural tables: tests/unit/entity.test.ts checks them against the conformance suite's collection-names.json. */
export const uncountable: ReadonlySet<string> = new Set(["sheep", "fish", "deer", "series", "species", "news", "equipment", "information", "money", "rice", "data", "metadata", "feedback", "software", "hardware", "staff"]);

/** @internal */
export const irregular: Readonly<Record<string, string>> = {
  person: "people", man: "men", woman: "women", child: "children", mouse: "mice", goose: "geese", foot: "feet", tooth: "teeth", ox: "oxen",
  quiz: "quizzes", leaf: "leaves", knife: "knives", life: "lives", wife: "wives", half: "halves", shelf: "shelves", wolf: "wolves",
  thief: "thieves", loaf: "loaves", calf: "calves", self: "selves", elf: "elves", index: "indexes", matrix: "matrices", vertex: "vertices",
  criterion: "criteria", phenomenon: "phenomena", alias: "aliases", gas: "gases", canvas: "canvases", atlas: "atlases", bias: "biases",
  lens: "lenses", iris: "irises",
};

/** @internal */
export const oEs: ReadonlySet<string> = new Set(["hero", "potato", "tomato", "echo", "veto", "volcano", "torpedo", "mosquito", "buffalo", "embargo"]);

/** repl spelled with model's case: all capitals if model is (and has more than one letter), capitalised if model is. */
function matchCase(model: string, repl: string): string {
  const chars = [...model];
  if (chars.length > 1 && isUpper(model)) return repl.toUpperCase();
  if (chars.length > 1 && isUpper(chars[0] ?? "")) return repl.charAt(0).toUpperCase() + repl.slice(1);
  return repl;
}

/**
 * The English plural of one word, keeping its capitalisation: a small table of irregular and
 * uncountable nouns, then the regular rules (address → addresses, category → categories,
 * analysis → analyses, hero → heroes, otherwise +s). Any other word ending in s ("settings") is
 * taken as plural already. All-capital words get a lower-case ending (URL → URLs).
 */
export function plural(word: string): string {
  if (word === "") return "";
  const lower = word.toLowerCase();
  if (uncountable.has(lower)) return word;
  const irr = irregular[lower];
  if (irr !== undefined) return matchCase(word, irr);
  const chars = [...word];
  const allCaps = isUpper(word);
  const suffix = (s: string): string => (allCaps && chars.length > 1 ? word + s : word + matchCase(chars[chars.length - 1] ?? "", s));
  if (["ss", "us", "x", "z", "ch", "sh"].some((e) => lower.endsWith(e))) return suffix("es");
  if (lower.endsWith("is") && lower.length > 2) return word.slice(0, -2) + matchCase(word.slice(-2), "es");
  if (lower.endsWith("s")) return word;
  if (lower.endsWith("y") && lower.length > 1 && !"aeiou".includes(lower.charAt(lower.length - 2))) return word.slice(0, -1) + matchCase(word.slice(-1), "ies");
  if (oEs.has(lower)) return suffix("es");
  return suffix("s");
}
