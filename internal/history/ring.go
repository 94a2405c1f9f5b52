package history

// ring holds the newest values pushed to it, at most its capacity: pushing to a full ring
// overwrites the oldest value, so what a series holds never grows with the time it runs.
type ring[T any] struct {
	values []T // allocated once, at the full capacity
	next   int // where the next push goes
	full   bool
}

func newRing[T any](capacity int) *ring[T] {
	return &ring[T]{values: make([]T, capacity)}
}

// push adds v as the newest value, dropping the oldest when the ring is full.
func (r *ring[T]) push(v T) {
	r.values[r.next] = v
	r.next++
	if r.next == len(r.values) {
		r.next, r.full = 0, true
	}
}

// len is how many values the ring holds.
func (r *ring[T]) len() int {
	if r.full {
		return len(r.values)
	}
	return r.next
}

// appendTo appends the values to dst, oldest first.
func (r *ring[T]) appendTo(dst []T) []T {
	if r.full {
		dst = append(dst, r.values[r.next:]...)
	}
	return append(dst, r.values[:r.next]...)
}
