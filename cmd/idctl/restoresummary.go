package main

import (
	"fmt"
	"io"
	"time"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// restoreRisks says, after a restore's counts, what the restore skipped and what it could not
// protect: the IDs the backup's cluster issued after the backup was taken
// (docs/backups.md, "A margin for what the backup missed").
func restoreRisks(w io.Writer, resp *idnodev1.RestoreResponse) error {
	if err := ratesWarning(w, resp.GetRates()); err != nil {
		return err
	}
	for _, k := range []struct {
		counters     string
		n            int64
		margin       *idnodev1.CounterMargin
		fewest, most int64
		ids          string
		perSecond    float64
		floor        string
	}{
		{"identity counters", resp.GetIdentities(), resp.GetAhead().GetIdentities(), resp.GetIdentitiesSkippedMin(), resp.GetIdentitiesSkippedMax(), "identities",
			resp.GetRates().GetIdentitiesPerSecond(), ""},
		{"HiLo maxima", resp.GetHiloTags(), resp.GetAhead().GetHilo(), resp.GetHiloSkippedMin(), resp.GetHiloSkippedMax(), "HiLo numbers",
			resp.GetRates().GetHiloPerSecond(), ", at least a tag's last range"},
	} {
		if k.n == 0 {
			continue
		}
		var err error
		byRates := k.margin == nil && resp.GetAhead().GetByRates()
		switch {
		case byRates && !resp.GetRates().GetRecorded():
			_, err = fmt.Fprintf(w, "no margin for %d %s: the backup records no issue rates (an older build took it); %s the backup's cluster issued after the backup was taken may be issued again here (restore again with --ahead to skip them)\n",
				k.n, k.counters, k.ids)
		case byRates:
			r := resp.GetRates()
			_, err = fmt.Fprintf(w, "margin by rates for %d %s: each set %s above the backup's (peak %.3g a second in the hour before the backup x age %s x %d%s); %s the backup's cluster issued beyond that after the backup may be issued again here\n",
				k.n, k.counters, spreadOf(k.fewest, k.most), k.perSecond, time.Duration(r.GetAgeMs())*time.Millisecond, r.GetFactor(), k.floor, k.ids)
		case k.margin.GetAdd() == 0 && k.margin.GetPercent() == 0:
			_, err = fmt.Fprintf(w, "no margin for %d %s: %s the backup's cluster issued after the backup was taken may be issued again here (restore again with --ahead to skip them)\n",
				k.n, k.counters, k.ids)
		default:
			_, err = fmt.Fprintf(w, "margin %s for %d %s: each set %s above the backup's; %s the backup's cluster issued beyond that after the backup may be issued again here\n",
				formatMargin(k.margin), k.n, k.counters, spreadOf(k.fewest, k.most), k.ids)
		}
		if err != nil {
			return err
		}
	}
	if resp.GetSeries() > 0 {
		_, err := fmt.Fprintf(w, "no margin for %d fiscal series (they are gapless): numbers issued after the backup are not in it and will be issued again here; issue them again first, in order, for the same documents\n",
			resp.GetSeries())
		return err
	}
	return nil
}

// ratesWarning warns of a backup whose time is after the leader's now (clock skew): its margin
// by rates took its age as 0, so skipped nothing for the time since it was taken.
func ratesWarning(w io.Writer, r *idnodev1.RatesMargin) error {
	if !r.GetTakenInFuture() {
		return nil
	}
	_, err := fmt.Fprintf(w, "warning: the backup was taken at %s, after the leader's clock now (clock skew): its margin by rates took its age as 0\n",
		time.UnixMilli(r.GetTakenAtMs()).UTC().Format(time.RFC3339))
	return err
}

// spreadOf is "N" or "N to M".
func spreadOf(fewest, most int64) string {
	if fewest == most {
		return fmt.Sprint(most)
	}
	return fmt.Sprintf("%d to %d", fewest, most)
}

// restoreKeys says, after a restore's counts, how many databases' opaque settings and keys the
// restore put back: their opaque forms now read back here as in the backup's cluster.
func restoreKeys(w io.Writer, resp *idnodev1.RestoreResponse) error {
	if resp.GetOpaqueDatabases() == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "opaque settings and keys of %d databases (%d new here): their opaque IDs give and read back the same values as in the backup's cluster\n",
		resp.GetOpaqueDatabases(), resp.GetOpaqueRestored())
	return err
}
