// Package idnodeent is an ent hook that sets the ID of every entity ent creates from an idnode
// cluster when the code creating it left the ID unset: a HiLo ID ("orders/17-A") for a string
// ID, a HiLo number for an int64 one, or the strategy the hook is given. The schema declares
// the ID field itself (field.String("id") or field.Int64("id")), so that ent's generated
// mutations have SetID.
//
// Why keys come from where they do: docs/decisions/0036-row-keys-by-field-type.md.
package idnodeent

import (
	"context"
	"fmt"

	"entgo.io/ent"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/client/rowkeys"
)

type config struct {
	strategy   rowkeys.Strategy
	collection string
	claimOwner *string
}

// Option configures a Hook.
type Option func(*config)

// WithStrategy chooses where the keys come from (default rowkeys.HiLo). ServerSide suits
// string IDs only.
func WithStrategy(s rowkeys.Strategy) Option { return func(c *config) { c.strategy = s } }

// WithCollection names the collection (the HiLo tag, the identity) instead of the entity
// type's name pluralised by the client's convention (client.CollectionName: Order → orders).
func WithCollection(name string) Option { return func(c *config) { c.collection = name } }

// WithClaims makes the hook claim, cluster-wide for owner, an ID the creating code set itself:
// a string ID as it is, an int64 as "collection/N" (which the collection's identity then
// skips). An ID someone else holds fails the create with reason CLAIMED.
func WithClaims(owner string) Option { return func(c *config) { c.claimOwner = &owner } }

// stringID and intID are the generated create mutations of entities whose schema declares
// their ID field (ent generates SetID for those only).
type stringID interface {
	ID() (string, bool)
	SetID(string)
}

type intID interface {
	ID() (int64, bool)
	SetID(int64)
}

// Hook returns the hook: register it for every entity (client.Use) or one
// (client.Invoice.Use). It acts on creates only. keys is the process's one rowkeys.Source.
//
// ent runs hooks once per entity, also for CreateBulk, so each entity takes its own key: free
// for HiLo and numeric IDs, and for identities the client folds concurrent single requests
// into one call to the cluster.
func Hook(keys *rowkeys.Source, opts ...Option) ent.Hook {
	cfg := config{strategy: rowkeys.HiLo}
	for _, o := range opts {
		o(&cfg)
	}
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			if m.Op().Is(ent.OpCreate) {
				if err := cfg.setID(ctx, keys, m); err != nil {
					return nil, err
				}
			}
			return next.Mutate(ctx, m)
		})
	}
}

// setID sets m's ID when it is unset, and checks (and claims) it when it is set.
func (cfg *config) setID(ctx context.Context, keys *rowkeys.Source, m ent.Mutation) error {
	collection := cfg.collection
	if collection == "" {
		collection = client.CollectionName(m.Type())
	}
	switch mm := m.(type) {
	case stringID:
		if id, ok := mm.ID(); ok {
			return keys.Keep(ctx, collection, cfg.claimOwner, []string{id}, nil)
		}
		ids, err := keys.Strings(ctx, collection, cfg.strategy, 1)
		if err != nil {
			return err
		}
		mm.SetID(ids[0])
	case intID:
		if id, ok := mm.ID(); ok {
			return keys.Keep(ctx, collection, cfg.claimOwner, nil, []int64{id})
		}
		nums, err := keys.Ints(ctx, collection, cfg.strategy, 1)
		if err != nil {
			return err
		}
		mm.SetID(nums[0])
	default:
		return fmt.Errorf("idnodeent: %s's mutation has no SetID of a string or int64: declare the ID field in its schema (field.String(\"id\") or field.Int64(\"id\"))", m.Type())
	}
	return nil
}
