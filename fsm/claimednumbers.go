package fsm

import (
	"iter"
	"slices"
	"sort"
)

// claimedChunk bounds one chunk of claimedNumbers: an insert or a delete moves at most this
// many numbers, and the list of chunks is this many times shorter than the set.
const claimedChunk = 512

// claimedNumbers is the set of numbers N claimed as "prefix<sep>N" under one identity prefix,
// in ascending order, so an increment skips the claims in its span by walking them instead of
// testing every value of the span (freeValues). It is a list of sorted chunks, each holding 1
// to claimedChunk numbers, every number of a chunk below every number of the next: adding or
// removing costs a binary search and a copy of at most one chunk, whatever order claims come
// in, and a walk from n costs a binary search and then one step a claim.
type claimedNumbers struct {
	chunks [][]int64
}

// chunkFor returns the index of the chunk that n belongs in: the first one whose largest
// number is at least n, or len(chunks) when n is above them all.
func (c *claimedNumbers) chunkFor(n int64) int {
	return sort.Search(len(c.chunks), func(i int) bool {
		chunk := c.chunks[i]
		return chunk[len(chunk)-1] >= n
	})
}

// add puts n in the set; a number already there is kept once.
func (c *claimedNumbers) add(n int64) {
	i := c.chunkFor(n)
	if i == len(c.chunks) {
		if i == 0 || len(c.chunks[i-1]) >= claimedChunk {
			c.chunks = append(c.chunks, []int64{n})
			return
		}
		i-- // above every number: the last chunk takes it while it has room
	}
	chunk := c.chunks[i]
	j, found := slices.BinarySearch(chunk, n)
	if found {
		return
	}
	chunk = slices.Insert(chunk, j, n)
	if len(chunk) <= claimedChunk {
		c.chunks[i] = chunk
		return
	}
	// Both halves keep room to grow to a full chunk, so inserts between splits do not
	// reallocate; the lower half reuses the full chunk's array, the upper gets its own.
	half := len(chunk) / 2
	upper := make([]int64, len(chunk)-half, claimedChunk+1)
	copy(upper, chunk[half:])
	c.chunks[i] = chunk[:half]
	c.chunks = slices.Insert(c.chunks, i+1, upper)
}

// remove takes n out of the set, reporting whether it was there.
func (c *claimedNumbers) remove(n int64) bool {
	i := c.chunkFor(n)
	if i == len(c.chunks) {
		return false
	}
	j, found := slices.BinarySearch(c.chunks[i], n)
	if !found {
		return false
	}
	c.chunks[i] = slices.Delete(c.chunks[i], j, j+1)
	if len(c.chunks[i]) == 0 {
		c.chunks = slices.Delete(c.chunks, i, i+1)
	}
	return true
}

// empty reports whether the set holds no number.
func (c *claimedNumbers) empty() bool {
	return len(c.chunks) == 0
}

// from yields the numbers of the set that are at least n, ascending.
func (c *claimedNumbers) from(n int64) iter.Seq[int64] {
	return func(yield func(int64) bool) {
		i := c.chunkFor(n)
		if i == len(c.chunks) {
			return
		}
		j, _ := slices.BinarySearch(c.chunks[i], n)
		for ; i < len(c.chunks); i, j = i+1, 0 {
			for _, v := range c.chunks[i][j:] {
				if !yield(v) {
					return
				}
			}
		}
	}
}
