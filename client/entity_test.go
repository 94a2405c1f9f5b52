package client

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

type (
	Order           struct{ ID string }
	Category        struct{ ID string }
	Address         struct{ ID string }
	Box             struct{ ID string }
	Person          struct{ ID string }
	PackageTracking struct{ ID string }
	SalesPerson     struct{ ID string }
	Status          struct{ ID string }
	URL             struct{ ID string }
	HTTPRequest     struct{ ID string }
	Day             struct{ ID string }
	Hero            struct{ ID string }
	Photo           struct{ ID string }
	Settings        struct{ ID string }
	Analysis        struct{ ID string }
	Leaf            struct{ ID string }
	Sheep           struct{ ID string }
	Child           struct{ ID string }
	Match           struct{ ID string }
	Wish            struct{ ID string }
	Quiz            struct{ ID string }
	Bus             struct{ ID string }
	orderLine       struct{ ID string }
	user            struct{ ID string }
	ShippingBOX     struct{ ID string }
	Item2           struct{ ID string }
	Generic[T any]  struct{ ID string }
	Invoice         struct {
		Id     string
		Amount int
	}
	Both struct {
		ID string
		Id string
	}
	NoID      struct{ Name string }
	IntID     struct{ ID int }
	NamedID   string
	NamedType struct{ ID NamedID }
	Base      struct{ ID string }
	Embeds    struct {
		Base
		Name string
	}
	EmbedsPtr struct{ *Base }
	hidden    struct{ id string } //lint:ignore U1000 an unexported id field, which AssignID must leave alone
	Lower     struct{ iD string } //lint:ignore U1000 the same, spelled iD
)

// The collection-name conventions: plural of the type name, lower-cased when it is one word.
func TestAssignIDCollectionNames(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{Order{}, "orders"},
		{Category{}, "categories"},
		{Address{}, "addresses"},
		{Box{}, "boxes"},
		{Person{}, "people"},
		{PackageTracking{}, "PackageTrackings"},
		{SalesPerson{}, "SalesPeople"},
		{Status{}, "statuses"},
		{URL{}, "urls"},
		{HTTPRequest{}, "HTTPRequests"},
		{Day{}, "days"},
		{Hero{}, "heroes"},
		{Photo{}, "photos"},
		{Settings{}, "settings"},
		{Analysis{}, "analyses"},
		{Leaf{}, "leaves"},
		{Sheep{}, "sheep"},
		{Child{}, "children"},
		{Match{}, "matches"},
		{Wish{}, "wishes"},
		{Quiz{}, "quizzes"},
		{Bus{}, "buses"},
		{orderLine{}, "orderLines"},
		{user{}, "users"},
		{ShippingBOX{}, "ShippingBOXes"},
		{Item2{}, "item2s"},
		{Generic[int]{}, "generics"},
		{Invoice{}, "invoices"},
		{&Order{}, "orders"},
		{struct{ ID string }{}, ""},
	}
	for _, c := range cases {
		if got := DefaultCollectionName(reflect.TypeOf(c.v)); got != c.want {
			t.Errorf("DefaultCollectionName(%T) = %q, want %q", c.v, got, c.want)
		}
	}
}

// sharedNames is test/conformance/collection-names.json: the plural tables and cases every
// client's collection names are checked against.
type sharedNames struct {
	Uncountable []string          `json:"uncountable"`
	Irregular   map[string]string `json:"irregular"`
	EsAfterO    []string          `json:"esAfterO"`
	Plurals     map[string]string `json:"plurals"`
	Collections map[string]string `json:"collections"`
}

func loadSharedNames(t *testing.T) sharedNames {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "test", "conformance", "collection-names.json"))
	if err != nil {
		t.Fatal(err)
	}
	var n sharedNames
	if err := json.Unmarshal(b, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func setOf(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// The tables Plural reads are the ones every client shares, entry for entry.
func TestPluralTablesMatchSharedFile(t *testing.T) {
	n := loadSharedNames(t)
	if want := setOf(n.Uncountable); !maps.Equal(uncountable, want) {
		t.Errorf("uncountable = %v, the shared file has %v", slices.Sorted(maps.Keys(uncountable)), n.Uncountable)
	}
	if !maps.Equal(irregular, n.Irregular) {
		t.Errorf("irregular = %v, the shared file has %v", irregular, n.Irregular)
	}
	if want := setOf(n.EsAfterO); !maps.Equal(oEs, want) {
		t.Errorf("oEs = %v, the shared file has %v", slices.Sorted(maps.Keys(oEs)), n.EsAfterO)
	}
}

// The shared file's cases: every rule of Plural, and names of types and their collections.
func TestAssignIDPlural(t *testing.T) {
	n := loadSharedNames(t)
	for in, want := range n.Plurals {
		if got := Plural(in); got != want {
			t.Errorf("Plural(%q) = %q, want %q", in, got, want)
		}
	}
	for name, want := range n.Collections {
		if got := CollectionName(name); got != want {
			t.Errorf("CollectionName(%q) = %q, want %q", name, got, want)
		}
	}
}

// AssignID fills the ID by the convention for what the field holds, against the fake cluster.
func TestAssignIDFillsByConvention(t *testing.T) {
	_, _, addrs := fakeCluster(t, "A")
	c := dialTest(t, addrs)
	ctx := testCtx(t)

	o := &Order{}
	id, err := c.AssignID(ctx, o)
	if err != nil || id != "orders/1-A" || o.ID != id {
		t.Fatalf("AssignID(&Order{}) = %q, %v, field %q; want orders/1-A in both", id, err, o.ID)
	}
	pt := &PackageTracking{}
	if id, err := c.AssignID(ctx, pt); err != nil || id != "PackageTrackings/1-A" || pt.ID != id {
		t.Errorf("AssignID(&PackageTracking{}) = %q, %v, field %q", id, err, pt.ID)
	}
	inv := &Invoice{Id: "invoices|", Amount: 5}
	if id, err := c.AssignID(ctx, inv); err != nil || id != "invoices/1" || inv.Id != id || inv.Amount != 5 {
		t.Errorf("AssignID(invoices|) = %q, %v, entity %+v; want invoices/1", id, err, inv)
	}
	cat := &Category{ID: "categories/"}
	if id, err := c.AssignID(ctx, cat); err != nil || !regexp.MustCompile(`^categories/0{18}1-A$`).MatchString(id) || cat.ID != id {
		t.Errorf("AssignID(categories/) = %q, %v, field %q; want a server-side ID", id, err, cat.ID)
	}
	p := &Person{ID: "people/ayende"}
	if id, err := c.AssignID(ctx, p); err != nil || id != "people/ayende" || p.ID != id {
		t.Errorf("AssignID(semantic) = %q, %v, field %q; want it kept", id, err, p.ID)
	}
	b := &Both{}
	if id, err := c.AssignID(ctx, b); err != nil || b.ID != id || b.Id != "" || id != "boths/1-A" {
		t.Errorf("AssignID(Both) = %q, %v, %+v; want ID (not Id) filled from boths", id, err, b)
	}
	e := &Embeds{}
	if id, err := c.AssignID(ctx, e); err != nil || e.ID != id || id != "embeds/1-A" {
		t.Errorf("AssignID(Embeds) = %q, %v, %+v; want the promoted ID filled, collection embeds", id, err, e)
	}
	n := &NamedType{}
	if id, err := c.AssignID(ctx, n); err != nil || string(n.ID) != id {
		t.Errorf("AssignID(NamedType) = %q, %v, %+v; want a string-kinded field filled", id, err, n)
	}

	c2 := dialTest(t, addrs, WithCollectionName(func(t reflect.Type) string { return "x" + strings.ToLower(t.Name()) }))
	if id, err := c2.AssignID(ctx, &Order{}); err != nil || id != "xorder/1-A" {
		t.Errorf("AssignID with a custom collection name = %q, %v; want xorder/1-A", id, err)
	}
}

func TestAssignIDRefusesBadEntities(t *testing.T) {
	_, _, addrs := fakeCluster(t, "A")
	c := dialTest(t, addrs)
	ctx := testCtx(t)
	var nilOrder *Order
	cases := []struct {
		v    any
		want string
	}{
		{nil, "want a pointer to a struct"},
		{Order{}, "want a pointer to a struct"},
		{new(string), "want a pointer to a struct"},
		{nilOrder, "nil *client.Order"},
		{&NoID{}, "has no ID or Id field"},
		{&IntID{}, "is a int, want a string"},
		{&hidden{}, "has no ID or Id field"},
		{&Lower{}, "has no ID or Id field"},
		{&EmbedsPtr{}, "nil pointer to embedded struct"},
		{&struct{ ID string }{}, "no collection name"},
	}
	for _, c2 := range cases {
		id, err := c.AssignID(ctx, c2.v)
		if err == nil || !strings.Contains(err.Error(), c2.want) {
			t.Errorf("AssignID(%T) = %q, %v; want an error containing %q", c2.v, id, err, c2.want)
		}
	}
	for _, bad := range []string{`orders\1`, "bad\x01id", strings.Repeat("x", 2026)} {
		o := &Order{ID: bad}
		if _, err := c.AssignID(ctx, o); status.Code(err) != codes.InvalidArgument || o.ID != bad {
			t.Errorf("AssignID(%q) = %v, field %q; want INVALID_ARGUMENT and the field unchanged", bad, err, o.ID)
		}
	}
}
