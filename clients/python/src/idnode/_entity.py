"""The collection an entity's new ID belongs to, by the seeds' convention: the class's name,
pluralised by English rules, the same names the Go client's DefaultCollectionName gives."""

from __future__ import annotations

from typing import List

_UNCOUNTABLE = frozenset({
    "sheep", "fish", "deer", "series", "species", "news", "equipment", "information", "money", "rice",
    "data", "metadata", "feedback", "software", "hardware", "staff",
})

_IRREGULAR = {
    "person": "people", "man": "men", "woman": "women", "child": "children", "mouse": "mice",
    "goose": "geese", "foot": "feet", "tooth": "teeth", "ox": "oxen", "quiz": "quizzes",
    "leaf": "leaves", "knife": "knives", "life": "lives", "wife": "wives", "half": "halves",
    "shelf": "shelves", "wolf": "wolves", "thief": "thieves", "loaf": "loaves", "calf": "calves",
    "self": "selves", "elf": "elves", "index": "indexes", "matrix": "matrices",
    "vertex": "vertices", "criterion": "criteria", "phenomenon": "phenomena",
    "alias": "aliases", "gas": "gases", "canvas": "canvases", "atlas": "atlases", "bias": "biases",
    "lens": "lenses", "iris": "irises",
}

_O_ES = frozenset({"hero", "potato", "tomato", "echo", "veto", "volcano", "torpedo", "mosquito", "buffalo", "embargo"})


def collection_name(cls: type) -> str:
    """The collection of a class's entities: its name, pluralised; lower-cased when the name is
    one word (Order → orders, Category → categories), kept as it is when it is several
    (PackageTracking → PackageTrackings). Words are split at camel-case humps, with a run of
    capitals as one word: URL is one word (urls), HTTPRequest two (HTTPRequests)."""
    name = cls.__name__
    words = _split_words(name)
    if len(words) == 1:
        return plural(name.lower())
    last = words[-1]
    return name[: len(name) - len(last)] + plural(last)


def _split_words(name: str) -> List[str]:
    """A class name's words: "PackageTracking" → Package, Tracking; "HTTPRequest" → HTTP,
    Request; "order2Line" → order2, Line. Underscores stay with the word before them."""
    words, start = [], 0
    for i in range(1, len(name)):
        prev, cur = name[i - 1], name[i]
        nxt = name[i + 1] if i + 1 < len(name) else ""
        if (
            (prev == "_" and cur != "_")
            or (cur.isupper() and (prev.islower() or prev.isdigit()))
            or (cur.isupper() and prev.isupper() and nxt.islower())
        ):
            words.append(name[start:i])
            start = i
    words.append(name[start:])
    return words


def plural(word: str) -> str:
    """The English plural of one word, keeping its capitalisation: a small table of irregular
    and uncountable nouns (person → people, sheep → sheep, leaf → leaves …), then the regular
    rules: -s/-x/-z/-ch/-sh → +es, consonant + y → -ies, -is → -es, a few -o words → +es,
    otherwise +s. Any other word ending in s ("settings") is taken as plural already. An
    all-capital word gets a lower-case ending (URL → URLs)."""
    if not word:
        return word
    lower = word.lower()
    if lower in _UNCOUNTABLE:
        return word
    if lower in _IRREGULAR:
        return _match_case(word, _IRREGULAR[lower])
    all_caps = word.isupper()

    def suffix(s: str) -> str:
        if all_caps and len(word) > 1:
            return word + s
        return word + _match_case(word[-1], s)

    if lower.endswith(("ss", "us", "x", "z", "ch", "sh")):
        return suffix("es")
    if lower.endswith("is") and len(lower) > 2:
        return word[:-2] + _match_case(word[-2:], "es")
    if lower.endswith("s"):
        return word
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        return word[:-1] + _match_case(word[-1], "ies")
    if lower in _O_ES:
        return suffix("es")
    return suffix("s")


def _match_case(model: str, repl: str) -> str:
    """repl spelled with model's case: all capitals if model is (and is longer than one
    letter), capitalised if model is, else as given."""
    if len(model) > 1 and model.isupper():
        return repl.upper()
    if len(model) > 1 and model[0].isupper():
        return repl[0].upper() + repl[1:]
    return repl


def entity_id(entity: object) -> str:
    """The ``id`` attribute of an entity, which assign_id reads and fills in."""
    id = getattr(entity, "id", None)
    if not isinstance(id, str):
        raise TypeError(f"assign_id: {type(entity).__name__} has no str attribute 'id' to fill in")
    return id
