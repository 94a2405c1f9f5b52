package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// Order is keyed by a string ID the hook sets: "orders/17-A" by default.
type Order struct {
	ent.Schema
}

// Fields of the Order.
func (Order) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty(),
		field.String("customer"),
	}
}
