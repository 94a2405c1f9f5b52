package idnodegorm

import (
	"fmt"
	"reflect"
	"strings"

	"gorm.io/gorm/schema"

	"github.com/idnode/idnode/client/rowkeys"
)

// TagName is the struct tag that chooses a key's strategy and collection:
//
//	ID string `idnode:"identity"`                    // "invoices/42"
//	ID int64  `idnode:"numeric"`                     // a 64-bit numeric ID
//	ID int64  `idnode:"hilo,collection=counters"`    // HiLo numbers of the tag "counters"
//	ID int64  `gorm:"primaryKey" idnode:"-"`         // left to the database
//
// The strategies are hilo (the default), identity, server (strings only) and numeric.
const TagName = "idnode"

// model is what the plugin fills in a schema: its primary key field, whether it is a string,
// and where its keys come from.
type model struct {
	field      *schema.Field
	str        bool
	strategy   rowkeys.Strategy
	collection string
}

// readModel reads a schema's primary key. It returns nil (nothing to fill) for a schema
// without a single primary key, for a key tagged idnode:"-", and for an integer key the model
// gave to the database (gorm:"autoIncrement" written out, or a default); an error for a key
// type the plugin cannot fill or a tag it cannot read.
func readModel(s *schema.Schema, collectionName func(reflect.Type) string) (*model, error) {
	f := s.PrioritizedPrimaryField
	if f == nil || len(s.PrimaryFields) != 1 {
		return nil, nil
	}
	tag, tagged := f.Tag.Lookup(TagName)
	if tag == "-" {
		return nil, nil
	}
	m := &model{field: f, collection: collectionName(s.ModelType)}
	switch kind := f.FieldType.Kind(); kind {
	case reflect.String:
		m.str = true
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64:
		if !tagged && (explicitAutoIncrement(f) || f.DefaultValue != "") {
			return nil, nil
		}
	default:
		return nil, fmt.Errorf("idnodegorm: %s.%s is a %v; the plugin fills string and 64-bit integer keys (tag it idnode:\"-\" to leave it alone)", s.Name, f.Name, f.FieldType)
	}
	name, opts, _ := strings.Cut(tag, ",")
	var err error
	if m.strategy, err = rowkeys.ParseStrategy(strings.TrimSpace(name)); err != nil {
		return nil, fmt.Errorf("idnodegorm: %s.%s: %w", s.Name, f.Name, err)
	}
	if m.strategy == rowkeys.ServerSide && !m.str {
		return nil, fmt.Errorf("idnodegorm: %s.%s: %w", s.Name, f.Name, rowkeys.ErrNoIntegerServerSide)
	}
	for opt := range strings.SplitSeq(opts, ",") {
		if opt = strings.TrimSpace(opt); opt == "" {
			continue
		}
		k, v, _ := strings.Cut(opt, "=")
		if k != "collection" || v == "" {
			return nil, fmt.Errorf("idnodegorm: %s.%s: tag option %q: want collection=NAME", s.Name, f.Name, opt)
		}
		m.collection = v
	}
	if m.collection == "" {
		return nil, fmt.Errorf("idnodegorm: %s has no collection name; tag its key idnode:\",collection=NAME\"", s.Name)
	}
	return m, nil
}

// explicitAutoIncrement reports whether the model itself asked for autoIncrement (GORM also
// sets AutoIncrement on an integer key called ID by default, which is not a choice).
func explicitAutoIncrement(f *schema.Field) bool {
	v, ok := f.TagSettings["AUTOINCREMENT"]
	return ok && !strings.EqualFold(v, "false")
}
