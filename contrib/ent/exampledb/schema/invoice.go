package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// Invoice is keyed by an int64 ID the hook sets: an identity, a HiLo number or a numeric ID,
// as the hook's strategy says.
type Invoice struct {
	ent.Schema
}

// Fields of the Invoice.
func (Invoice) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("id").Immutable(),
		field.String("customer"),
	}
}
