package strategies

import (
	"fmt"
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// The series schedule's journal check must be able to fail: a number taken twice, a number
// missing, a skip in a gapless series and a void of a number never issued are each found.
func TestSeriesJournalCheck(t *testing.T) {
	issued, voided := idnodev1.SeriesEntryKind_SERIES_ENTRY_KIND_ISSUED, idnodev1.SeriesEntryKind_SERIES_ENTRY_KIND_VOIDED
	journal := func(series string, kinds []idnodev1.SeriesEntryKind, numbers ...int64) []*idnodev1.SeriesEntry {
		var out []*idnodev1.SeriesEntry
		prev := ""
		for i, n := range numbers {
			e := &idnodev1.SeriesEntry{Series: series, Seq: uint64(i + 1), Kind: kinds[i], Number: n, PrevHash: prev, Hash: fmt.Sprint("h", i)}
			prev = e.Hash
			out = append(out, e)
		}
		return out
	}
	gapless, journaled := chaostest.ChaosSeries[1], chaostest.ChaosSeries[2]
	for _, tc := range []struct {
		name             string
		def              *idnodev1.CreateSeriesRequest
		kinds            []idnodev1.SeriesEntryKind
		numbers          []int64
		duplicates, gaps int
	}{
		{"clean", gapless, []idnodev1.SeriesEntryKind{issued, issued, voided, issued}, []int64{1, 2, 1, 3}, 0, 0},
		{"skip allowed", journaled, []idnodev1.SeriesEntryKind{issued, voided, issued}, []int64{1, 2, 3}, 0, 0},
		{"issued twice", gapless, []idnodev1.SeriesEntryKind{issued, issued, issued}, []int64{1, 2, 2}, 1, 0},
		{"missing", gapless, []idnodev1.SeriesEntryKind{issued, issued}, []int64{1, 3}, 0, 1},
		{"skip in a gapless series", gapless, []idnodev1.SeriesEntryKind{issued, voided}, []int64{1, 2}, 0, 1},
		{"void of a number not issued", journaled, []idnodev1.SeriesEntryKind{issued, voided}, []int64{1, 5}, 0, 1},
		{"voided twice", gapless, []idnodev1.SeriesEntryKind{issued, voided, voided}, []int64{1, 1, 1}, 1, 0},
	} {
		var c chaostest.SeriesCheck
		problems := chaostest.CheckJournal(tc.def, journal(tc.def.GetName(), tc.kinds, tc.numbers...), &c)
		if c.Duplicates != tc.duplicates || c.Gaps != tc.gaps || (len(problems) == 0) != (tc.duplicates+tc.gaps == 0) {
			t.Errorf("%s: duplicates %d, gaps %d, problems %q; want %d and %d", tc.name, c.Duplicates, c.Gaps, problems, tc.duplicates, tc.gaps)
		}
	}
}
