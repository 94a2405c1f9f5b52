package series

import "errors"

// Errors of the series store. Each is deterministic: every replica applying the same log
// answers the same error for the same command. They are wrapped with the details.
var (
	// ErrNoSeries means the database has no series of that name; create it first
	// (CreateSeries) or check its spelling with the list of series.
	ErrNoSeries = errors.New("no such series")

	// ErrSeriesExists means the name is taken in the database (names compare in lower case);
	// pick another name, or use the existing series.
	ErrSeriesExists = errors.New("series already exists")

	// ErrTooManySeries means the database holds the most series it may; reuse one.
	ErrTooManySeries = errors.New("the database has the most series it may hold")

	// ErrBadFormat means a series' format breaks one of its rules (named in the message).
	ErrBadFormat = errors.New("bad series format")

	// ErrBadInput means a field of a command is missing, too long or malformed (named in the
	// message); fix the request.
	ErrBadInput = errors.New("bad series request")

	// ErrRequestIDReused means the request_id already answered a different request in the
	// series; use a fresh request_id for each new request, the same one only for its retries.
	ErrRequestIDReused = errors.New("request_id was already used for a different request")

	// ErrNotIssued means the number to void was never issued (and is not the next number,
	// which only a gaps-allowed series may void); check the period and the number.
	ErrNotIssued = errors.New("the number was not issued")

	// ErrAlreadyVoided means the number was voided before; there is nothing left to void.
	ErrAlreadyVoided = errors.New("the number is already voided")

	// ErrGapless means a void would skip the next number of a gapless series.
	ErrGapless = errors.New("a gapless series cannot skip a number: issue it and void it, or correct it with a credit note")

	// ErrNumberOverflow means the period's numbering reached the largest int64; the series
	// can issue again in its next period (or, without periods, never: create a new series).
	ErrNumberOverflow = errors.New("the series' number would overflow int64")

	// ErrSeriesDiverged means a backup's series is not the one this cluster holds under its
	// name: it was created otherwise, or an entry differs from the one at its seq, or does not
	// follow the journal (a gap, a broken chain, a number out of turn). Nothing of the command
	// changed; restore into a cluster without the series, or rename one of them.
	ErrSeriesDiverged = errors.New("the backup's series differs from the one this cluster holds")

	// ErrSeriesRestoring means a backup's restore put back only part of the series (it was cut
	// short between its chunks), so the series issues and voids nothing: its next number may be
	// one the backup gave to another document. Run the restore again; the series opens once it
	// holds the backup's last entry.
	ErrSeriesRestoring = errors.New("the series is being restored from a backup")

	// ErrReplayed means a command at or below the journal's applied raft index had no
	// journaled answer to give (it changed nothing then either).
	ErrReplayed = errors.New("series command replayed from the raft log; it changed nothing")

	// ErrCorrupt means series.db, or a snapshot streamed into it, does not hold what the
	// store wrote: a record does not decode or a chain does not link. Restore the data dir
	// from a copy, or rejoin the node as a new member.
	ErrCorrupt = errors.New("series journal is corrupt")

	// ErrClosed means the store was closed: the node is stopping.
	ErrClosed = errors.New("series store is closed")
)

// refusals are the errors that answer a command: the same on every replica that applies it.
var refusals = []error{ErrNoSeries, ErrSeriesExists, ErrTooManySeries, ErrBadFormat, ErrBadInput, ErrRequestIDReused,
	ErrNotIssued, ErrAlreadyVoided, ErrGapless, ErrNumberOverflow, ErrSeriesDiverged,
	ErrSeriesRestoring, ErrReplayed}

// Refusal reports whether err is the store's answer to a command (bad input, a rule of the
// series) rather than a failure to read or write series.db, which is this node's alone: the
// FSM answers a refusal and halts on a failure.
func Refusal(err error) bool {
	for _, r := range refusals {
		if errors.Is(err, r) {
			return true
		}
	}
	return false
}
