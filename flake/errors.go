package flake

import "errors"

var (
	// ErrBadLayout is returned when a Layout breaks a rule of Validate; the
	// wrapped message names the rule.
	ErrBadLayout = errors.New("flake: bad layout")
	// ErrBadLease is returned by New and SetLease for a lease nothing can be
	// minted under (worker outside the layout, empty tick range, no expiry).
	ErrBadLease = errors.New("flake: bad lease")
	// ErrStaleLease is returned by SetLease for a lease older than the one
	// held (a lower MaxTick or ValidUntil for the same worker and epoch, or a
	// lower epoch for the same worker): a late answer to an earlier request.
	// The generator keeps its lease; drop the stale one.
	ErrStaleLease = errors.New("flake: lease is older than the one held; ignore it")
	// ErrBadOptions is returned by New for options out of range.
	ErrBadOptions = errors.New("flake: bad options")
	// ErrClockBehind is returned by Next when minting would put the ID's
	// tick further ahead of the wall clock than Options.MaxBorrow: the clock
	// stepped back, the lease's MinTick is ahead of this clock, or IDs are
	// asked for faster than the layout holds. Nothing was minted; wait for
	// the clock to catch up, or take a fresh lease.
	ErrClockBehind = errors.New("flake: clock is behind the last ID minted (clock stepped back, or rate above the layout's capacity); wait or take a fresh lease")
	// ErrLeaseExpired is returned by Next once the clock reaches the lease's
	// ValidUntil: the worker ID may soon be given to someone else. Renew the
	// lease or take a new one.
	ErrLeaseExpired = errors.New("flake: worker lease expired; renew it or take a new one")
	// ErrLeaseExhausted is returned by Next when the next ID would be above
	// the lease's MaxTick. Renew the lease to raise it.
	ErrLeaseExhausted = errors.New("flake: worker lease used up to its MaxTick; renew it")
	// ErrLayoutExhausted is returned by Next when the next ID would need a
	// tick past the layout's time bits (epoch + 2^TimeBits units). No lease
	// helps; IDs need a layout with a later epoch or more time bits.
	ErrLayoutExhausted = errors.New("flake: the layout's time bits are used up; a layout with a later epoch is needed")
	// ErrOutOfRange is returned by Compose and TickOf for a part that does
	// not fit its field, or a time before the epoch or past the time bits.
	ErrOutOfRange = errors.New("flake: value does not fit the layout")
	// ErrBadID is returned by Decompose for a negative ID or one with bits
	// above those of the layout: it was not minted with this layout.
	ErrBadID = errors.New("flake: not an ID of this layout")
	// ErrBadEncoding is returned by the decoders for text that is not a
	// fixed-width encoding of an ID from 0 to 2^63−1; the wrapped message
	// says what is wrong with it.
	ErrBadEncoding = errors.New("flake: bad ID encoding")
)
