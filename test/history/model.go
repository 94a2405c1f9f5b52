package history

import (
	"fmt"
	"slices"

	"github.com/anishathalye/porcupine"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/identity"
)

// The porcupine model of one identity counter and the claims of its prefix: what the FSM does
// with increments (fsm.freeValues), seeds and claims (fsm.applyClaim), step by step.

type opInput struct {
	seed   bool
	claim  bool
	count  int64   // increment
	value  int64   // seed
	force  bool    // seed
	values []int64 // claim: ascending, distinct
	known  bool    // the answer was received
}

type opOutput struct {
	first, last int64   // increment
	skipped     []int64 // increment
	value       int64   // seed
	won         bool    // claim
}

// counterState is the counter's value (the last value handed out, or the seed) and the
// prefix's claimed values, ascending. A state's slice is never modified: a step that claims
// makes a new one. Claimed values the counter has passed matter only if a forced seed lowers
// the counter below them again, so without forced seeds they are dropped: states that differ
// only in whether a claim of unknown outcome took effect become equal once the counter passes it.
type counterState struct {
	value   int64
	claimed []int64
}

func (s counterState) isClaimed(v int64) bool {
	_, ok := slices.BinarySearch(s.claimed, v)
	return ok
}

// next is what an increment of count hands out from s: the first count values above the
// counter that are not claimed, first … last, with skipped the claimed ones in between.
func (s counterState) next(count int64) (first, last int64, skipped []int64) {
	i, _ := slices.BinarySearch(s.claimed, s.value+1)
	v := s.value
	for got := int64(0); got < count; {
		v++
		if i < len(s.claimed) && s.claimed[i] == v {
			i++
			if first != 0 { // claimed values before the first are passed over, not skipped
				skipped = append(skipped, v)
			}
			continue
		}
		if first == 0 {
			first = v
		}
		got++
	}
	return first, v, skipped
}

// at is s with the counter at value, forgetting the claimed values it passed when forget.
func (s counterState) at(value int64, forget bool) counterState {
	out := counterState{value: value, claimed: s.claimed}
	if forget {
		i, _ := slices.BinarySearch(s.claimed, value+1)
		out.claimed = s.claimed[i:]
	}
	return out
}

// refuses reports whether a claim of values is refused in s: one is claimed already, or the
// counter has passed it (handed out as an identity).
func (s counterState) refuses(values []int64) bool {
	return slices.ContainsFunc(values, func(v int64) bool { return v <= s.value || s.isClaimed(v) })
}

// claim is s with values claimed too.
func (s counterState) claim(values []int64) counterState {
	claimed := slices.Concat(s.claimed, values)
	slices.Sort(claimed)
	return counterState{value: s.value, claimed: claimed}
}

// counterModel is the model of a prefix's history; forget is whether it has no forced seed,
// which could lower the counter (see counterState).
func counterModel(forget bool) porcupine.NondeterministicModel {
	return porcupine.NondeterministicModel{
		Init: func() []any { return []any{counterState{}} },
		Step: func(state, input, output any) []any {
			s, in := state.(counterState), input.(opInput)
			switch {
			case in.seed:
				after := max(s.value, in.value)
				if in.force {
					after = in.value
				}
				if !in.known {
					return []any{s, s.at(after, forget)}
				}
				if output.(opOutput).value != after {
					return nil
				}
				return []any{s.at(after, forget)}
			case in.claim:
				refused := s.refuses(in.values)
				switch {
				case !in.known && refused:
					return []any{s}
				case !in.known:
					return []any{s, s.claim(in.values)} // not applied, or applied and never answered
				case output.(opOutput).won && !refused:
					return []any{s.claim(in.values)}
				case !output.(opOutput).won && refused:
					return []any{s}
				}
				return nil // won with a value taken, or refused with none taken
			}
			first, last, skipped := s.next(in.count)
			if !in.known {
				return []any{s, s.at(last, forget)} // not applied, or applied and never answered
			}
			// The answer is the block cut as the leader cuts it (identity.MaxSkipped); the
			// counter moved past the whole block.
			answer := docid.IdentityBlock{First: first, Last: last, Skipped: skipped}.Within(identity.MaxSkipped)
			out := output.(opOutput)
			if out.first != answer.First || out.last != answer.Last || !slices.Equal(out.skipped, answer.Skipped) {
				return nil
			}
			return []any{s.at(last, forget)}
		},
		Equal: func(a, b any) bool {
			x, y := a.(counterState), b.(counterState)
			return x.value == y.value && slices.Equal(x.claimed, y.claimed)
		},
		Hash: func(s any) uint64 {
			st := s.(counterState)
			x := uint64(st.value) + uint64(len(st.claimed))<<48 + 0x9e3779b97f4a7c15 // splitmix64
			x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
			x = (x ^ (x >> 27)) * 0x94d049bb133111eb
			return x ^ (x >> 31)
		},
		DescribeOperation: func(input, output any) string {
			in := input.(opInput)
			out := output.(opOutput)
			switch {
			case in.seed && !in.known:
				return fmt.Sprintf("seed(%d, force=%v) -> ?", in.value, in.force)
			case in.seed:
				return fmt.Sprintf("seed(%d, force=%v) -> %d", in.value, in.force, out.value)
			case in.claim && !in.known:
				return fmt.Sprintf("claim%v -> ?", in.values)
			case in.claim:
				return fmt.Sprintf("claim%v -> won=%v", in.values, out.won)
			case !in.known:
				return fmt.Sprintf("next(%d) -> ?", in.count)
			case len(out.skipped) > 0:
				return fmt.Sprintf("next(%d) -> [%d, %d] skipping %v", in.count, out.first, out.last, out.skipped)
			}
			return fmt.Sprintf("next(%d) -> [%d, %d]", in.count, out.first, out.last)
		},
		DescribeState: func(s any) string {
			st := s.(counterState)
			if i, _ := slices.BinarySearch(st.claimed, st.value+1); i < len(st.claimed) {
				return fmt.Sprintf("%d, claimed above it %v", st.value, st.claimed[i:])
			}
			return fmt.Sprint(st.value)
		},
	}
}
