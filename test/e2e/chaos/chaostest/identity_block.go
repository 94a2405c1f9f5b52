package chaostest

import (
	"github.com/idnode/idnode/docid"
)

// validBlock reports whether b holds count values from 1 up, its holes ascending and strictly
// inside First … Last (a claimed value before First is passed over, not a hole).
func validBlock(b docid.IdentityBlock, count int64) bool {
	low := b.First
	for _, v := range b.Skipped {
		if v <= low || v >= b.Last {
			return false
		}
		low = v
	}
	return b.First >= 1 && b.Len() == count
}
