package client

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/reason"
)

// WithCollectionName replaces DefaultCollectionName: AssignID calls name with the entity's
// struct type to get the collection (the HiLo tag) for a new ID.
func WithCollectionName(name func(reflect.Type) string) Option {
	return func(o *options) error {
		if name == nil {
			return errors.New("WithCollectionName(nil)")
		}
		o.collectionName = name
		return nil
	}
}

// AssignID fills in the ID of an entity, a pointer to a struct with an exported string field
// named ID (or, failing that, Id), the way the seeds' conventions do on store:
//   - empty: a HiLo ID of the entity's collection, NextID(collection), e.g. "orders/1-A";
//   - ending with the separator or '|' ("orders/", "orders|"): resolved by the server
//     (a server-side ID or an identity), e.g. "orders/0000000000000000001-A" or "orders/1";
//   - anything else: kept as it is, after validation (INVALID_ARGUMENT if it is not a valid
//     document ID); with ClaimID, also claimed cluster-wide (ALREADY_EXISTS if it is taken).
//
// It returns the ID the field holds afterwards. The collection is DefaultCollectionName's
// unless WithCollectionName replaced it.
func (c *Client) AssignID(ctx context.Context, entity any, opts ...AssignOption) (string, error) {
	var o assignOptions
	for _, opt := range opts {
		opt(&o)
	}
	field, typ, err := idField(entity)
	if err != nil {
		return "", err
	}
	id := field.String()
	switch {
	case id == "":
		collection := c.opts.collectionName(typ)
		if collection == "" {
			return "", fmt.Errorf("idnode client: AssignID: no collection name for type %v; use WithCollectionName", typ)
		}
		if id, err = c.NextID(ctx, collection); err != nil {
			return "", err
		}
	case strings.HasSuffix(id, "|") || strings.HasSuffix(id, string(c.opts.separator)):
		ids, err := c.Generate(ctx, id, 1)
		if err != nil {
			return "", err
		}
		if len(ids) != 1 {
			return "", status.Errorf(codes.Internal, "idnode client: Generate(%q) returned %d IDs, want 1", id, len(ids))
		}
		id = ids[0]
	default:
		if err := c.ValidateID(id); err != nil {
			return "", err
		}
		if o.claim {
			if err := c.Claim(ctx, o.owner, id); err != nil {
				return "", err
			}
		}
		return id, nil
	}
	field.SetString(id)
	return id, nil
}

// ValidateID checks that id is a valid concrete document ID (not a request for one, such as
// "orders/" or "orders|") with the client's separator, as AssignID checks an ID an entity
// holds already: INVALID_ARGUMENT, reason INVALID_INPUT, saying which rule it breaks.
func (c *Client) ValidateID(id string) error {
	if err := docid.ValidateConcrete(id, c.opts.separator); err != nil {
		return reason.Error(codes.InvalidArgument, reason.InvalidInput, err.Error())
	}
	return nil
}

// idField finds the settable ID (or Id) string field of a non-nil pointer to a struct.
func idField(entity any) (reflect.Value, reflect.Type, error) {
	v := reflect.ValueOf(entity)
	if !v.IsValid() {
		return reflect.Value{}, nil, errors.New("idnode client: AssignID(nil): want a pointer to a struct")
	}
	if v.Kind() != reflect.Pointer || v.Type().Elem().Kind() != reflect.Struct {
		return reflect.Value{}, nil, fmt.Errorf("idnode client: AssignID(%v): want a pointer to a struct, so that its ID can be filled in", v.Type())
	}
	if v.IsNil() {
		return reflect.Value{}, nil, fmt.Errorf("idnode client: AssignID: nil %v", v.Type())
	}
	s := v.Elem()
	typ := s.Type()
	for _, name := range []string{"ID", "Id"} {
		sf, ok := typ.FieldByName(name)
		if !ok || len(sf.Index) == 0 {
			continue
		}
		if !sf.IsExported() {
			return reflect.Value{}, nil, fmt.Errorf("idnode client: AssignID: field %v.%s is not exported", typ, name)
		}
		if sf.Type.Kind() != reflect.String {
			return reflect.Value{}, nil, fmt.Errorf("idnode client: AssignID: field %v.%s is a %v, want a string", typ, name, sf.Type)
		}
		f, err := s.FieldByIndexErr(sf.Index)
		if err != nil { // through a nil embedded pointer
			return reflect.Value{}, nil, fmt.Errorf("idnode client: AssignID: field %v.%s: %w", typ, name, err)
		}
		return f, typ, nil
	}
	return reflect.Value{}, nil, fmt.Errorf("idnode client: AssignID: %v has no ID or Id field", typ)
}

func isValidation(err error) bool {
	var v *docid.ValidationError
	return errors.As(err, &v)
}

// DefaultCollectionName is the seeds' convention: the type's name, pluralised (English rules,
// see Plural); lower-cased when the name is one word (Order → orders, Category → categories),
// kept as it is when it is several (PackageTracking → PackageTrackings). Words are split at
// camel-case humps, with a run of capitals as one word: URL is one word (urls), HTTPRequest two
// (HTTPRequests). Generic types use their name without type arguments (Box[int] → boxes); an
// unnamed type has no collection name ("").
func DefaultCollectionName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return CollectionName(t.Name())
}

// CollectionName is DefaultCollectionName for a type's name ("Order" → "orders"), for code
// that knows its entities by name rather than by Go type (ent's mutations: Mutation.Type()).
func CollectionName(name string) string {
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	if name == "" {
		return ""
	}
	words := splitWords(name)
	if len(words) == 1 {
		return Plural(strings.ToLower(name))
	}
	last := words[len(words)-1]
	return name[:len(name)-len(last)] + Plural(last)
}

// splitWords splits a Go identifier at camel-case boundaries: "PackageTracking" → Package,
// Tracking; "HTTPRequest" → HTTP, Request; "URL" → URL; "order2Line" → order2, Line.
// Underscores separate words too and stay with the word before them.
func splitWords(name string) []string {
	var words []string
	runes := []rune(name)
	start := 0
	for i := 1; i < len(runes); i++ {
		prev, cur := runes[i-1], runes[i]
		var next rune
		if i+1 < len(runes) {
			next = runes[i+1]
		}
		boundary := false
		switch {
		case prev == '_' && cur != '_':
			boundary = true
		case unicode.IsUpper(cur) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			boundary = true // orderLine, order2Line
		case unicode.IsUpper(cur) && unicode.IsUpper(prev) && unicode.IsLower(next):
			boundary = true // HTTPRequest: the R starts a word
		}
		if boundary {
			words = append(words, string(runes[start:i]))
			start = i
		}
	}
	return append(words, string(runes[start:]))
}

// Plural returns the English plural of one word, keeping its capitalisation: a small table of
// irregular and uncountable nouns (person → people, child → children, sheep → sheep, leaf →
// leaves …), then the regular rules: -s/-x/-z/-ch/-sh → +es (address → addresses, box → boxes,
// status → statuses), consonant + y → -ies (category → categories), -is → -es (analysis →
// analyses), a few -o words → +es (hero → heroes), otherwise +s. Any other word ending in s
// ("settings", "sales") is taken as plural already and kept. All-capital words get a
// lower-case ending (URL → URLs).
func Plural(word string) string {
	if word == "" {
		return ""
	}
	lower := strings.ToLower(word)
	if uncountable[lower] {
		return word
	}
	if p, ok := irregular[lower]; ok {
		return matchCase(word, p)
	}
	allCaps := strings.ToUpper(word) == word && strings.ToLower(word) != word
	suffix := func(s string) string {
		if allCaps && len([]rune(word)) > 1 {
			return word + s
		}
		return word + matchCase(lastRune(word), s)
	}
	switch {
	case strings.HasSuffix(lower, "ss"), strings.HasSuffix(lower, "us"),
		strings.HasSuffix(lower, "x"), strings.HasSuffix(lower, "z"),
		strings.HasSuffix(lower, "ch"), strings.HasSuffix(lower, "sh"):
		return suffix("es")
	case strings.HasSuffix(lower, "is") && len(lower) > 2:
		return word[:len(word)-2] + matchCase(word[len(word)-2:], "es")
	case strings.HasSuffix(lower, "s"):
		return word // already plural: settings, news, sales
	case strings.HasSuffix(lower, "y") && len(lower) > 1 && !isVowel(lower[len(lower)-2]):
		return word[:len(word)-1] + matchCase(word[len(word)-1:], "ies")
	case oEs[lower]:
		return suffix("es")
	}
	return suffix("s")
}

func isVowel(b byte) bool { return strings.IndexByte("aeiou", b) >= 0 }

func lastRune(s string) string {
	_, size := utf8.DecodeLastRuneInString(s)
	return s[len(s)-size:]
}

// matchCase spells repl with the case of model: all capitals if model is (and is longer than
// one letter, or repl is a whole word), capitalised if model is, else as given.
func matchCase(model, repl string) string {
	r, _ := utf8.DecodeRuneInString(model)
	switch {
	case utf8.RuneCountInString(model) > 1 && strings.ToUpper(model) == model && strings.ToLower(model) != model:
		return strings.ToUpper(repl)
	case unicode.IsUpper(r) && utf8.RuneCountInString(model) > 1:
		rr, size := utf8.DecodeRuneInString(repl)
		return string(unicode.ToUpper(rr)) + repl[size:]
	}
	return repl
}

var uncountable = map[string]bool{
	"sheep": true, "fish": true, "deer": true, "series": true, "species": true, "news": true,
	"equipment": true, "information": true, "money": true, "rice": true, "data": true,
	"metadata": true, "feedback": true, "software": true, "hardware": true, "staff": true,
}

var irregular = map[string]string{
	"person": "people", "man": "men", "woman": "women", "child": "children", "mouse": "mice",
	"goose": "geese", "foot": "feet", "tooth": "teeth", "ox": "oxen", "quiz": "quizzes",
	"leaf": "leaves", "knife": "knives", "life": "lives", "wife": "wives", "half": "halves",
	"shelf": "shelves", "wolf": "wolves", "thief": "thieves", "loaf": "loaves", "calf": "calves",
	"self": "selves", "elf": "elves", "index": "indexes", "matrix": "matrices",
	"vertex": "vertices", "criterion": "criteria", "phenomenon": "phenomena",
	"alias": "aliases", "gas": "gases", "canvas": "canvases", "atlas": "atlases", "bias": "biases",
	"lens": "lenses", "iris": "irises",
}

var oEs = map[string]bool{
	"hero": true, "potato": true, "tomato": true, "echo": true, "veto": true, "volcano": true,
	"torpedo": true, "mosquito": true, "buffalo": true, "embargo": true,
}
