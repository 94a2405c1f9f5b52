package fsm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/idnode/idnode/docid"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// DefaultMaxClaims bounds a database's claims when its creation set no limit. Measured with
// IDs of 12–14 bytes and no owner (bench/claims.sh, docs/BENCHMARKS-STATE.md#claims), a claim costs
// every replica 106–142 bytes of live heap (the claims map's fill level varies between its
// growth steps) and a snapshot 16–17 bytes (the ID plus 4 bytes of framing); a longer ID or an
// owner adds its bytes to both. At the default, 10⁶ claims are ~145 MB of live heap, a node's
// resident set ~300 MB at GOGC=400 (~500 MB while it writes a snapshot; the node now lowers
// GOGC towards 100 for a heap that large, cmd/idnode/gcpercent.go), a 17 MB snapshot and a
// restart of 4–8.5 s on a busy 2-core machine.
const DefaultMaxClaims = 1_000_000

// claim is a claimed semantic ID.
type claim struct {
	id    string // as the claim spelled it
	owner string
}

// ClaimConflict is the answer to a Claim whose ID someone else holds: claimed by owner, or
// handed out as an identity already. It wraps ErrAlreadyClaimed.
type ClaimConflict struct {
	ID       string
	Owner    string // "" when the claim named none
	Identity bool   // the ID is an identity the counter has passed
}

func (c *ClaimConflict) Error() string {
	switch {
	case c.Identity:
		return fmt.Sprintf("%s: it was handed out as an identity", c.ID)
	case c.Owner != "":
		return fmt.Sprintf("%s is claimed by %q", c.ID, c.Owner)
	}
	return fmt.Sprintf("%s is claimed", c.ID)
}

func (c *ClaimConflict) Unwrap() error { return ErrAlreadyClaimed }

// separatorOf is the cluster's identity parts separator: the one the first node registered,
// or the default before any did.
func (st *state) separatorOf() string {
	if st.separator == "" {
		return string(docid.DefaultSeparator)
	}
	return st.separator
}

// identityNumber reads a claim's key as an identity of the format "prefix<sep>N": the prefix,
// the counter key it counts against, and N. sep is the separator's key (separatorKey). Only
// the canonical decimal an identity is printed as counts ("05" is not identity 5).
func identityNumber(key, sep string) (prefix string, n int64, ok bool) {
	id := key
	i := strings.LastIndex(id, sep)
	if i <= 0 {
		return "", 0, false
	}
	digits := id[i+len(sep):]
	if digits == "" || digits[0] == '0' || strings.Trim(digits, "0123456789") != "" {
		return "", 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return "", 0, false
	}
	return id[:i], n, true
}

// claimDigest names a claim's or a release's content (its owner and IDs) in the request table,
// so a request_id reused for other IDs or another owner is refused.
func (st claimBook) claimDigest(owner string, ids []string) string {
	h := sha256.New()
	h.Write([]byte(owner))
	for _, id := range ids {
		h.Write([]byte{0})
		h.Write([]byte(st.key(id)))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// applyClaim claims every ID of the command or none: one held by someone else, or an identity
// already handed out, refuses it all (ClaimConflict), as does the database's claim limit.
func (st claimBook) applyClaim(c *raftv1.Claim) any {
	st.requests.advanceClock(c.GetProposedAtMs())
	d, err := st.db(c.GetDatabase())
	if err != nil {
		return err
	}
	digest := st.claimDigest(c.GetOwner(), c.GetIds())
	if rec, err := st.requests.answered(c.GetDatabase(), c.GetRequestId(), requestKindClaim, digest); err != nil {
		return err
	} else if rec != nil {
		return nil // a retry: the claim stands
	}
	if len(c.GetIds()) == 0 {
		return fmt.Errorf("%w: a claim names at least one ID", ErrInvalidCount)
	}
	sep := st.separatorKey()
	fresh := make(map[string]bool, len(c.GetIds()))
	for _, id := range c.GetIds() {
		key := st.key(id)
		if held, ok := d.claims[key]; ok {
			return &ClaimConflict{ID: held.id, Owner: held.owner}
		}
		if prefix, n, ok := identityNumber(key, sep); ok {
			if value, exists := d.identities[prefix]; exists && n <= value {
				return &ClaimConflict{ID: id, Identity: true}
			}
		}
		if d.formIssued(key, sep) {
			return &ClaimConflict{ID: id, Identity: true}
		}
		fresh[key] = true
	}
	if limit := d.claimLimit(); int64(len(d.claims)+len(fresh)) > limit {
		return fmt.Errorf("%w: the database holds %d of its %d claims; %d more do not fit (release some, or create a database with a higher --max-claims)",
			ErrLimitReached, len(d.claims), limit, len(fresh))
	}
	for _, id := range c.GetIds() {
		if key := st.key(id); fresh[key] {
			d.addClaim(key, claim{id: id, owner: c.GetOwner()}, sep)
			delete(fresh, key) // the same ID twice in one claim is claimed once
		}
	}
	if id := c.GetRequestId(); id != "" {
		st.requests.record(&raftv1.RequestRecord{
			RequestId: id, Database: recordName(DatabaseName(c.GetDatabase())), Kind: requestKindClaim, Key: digest, Count: int64(len(c.GetIds())),
		})
	}
	return nil
}

// ReleaseResult answers a Release: how many of its IDs were claimed and are released now.
type ReleaseResult struct {
	Released int64
}

// ReleaseRequestVersion is the cluster version from which the leader puts a Release's
// request_id and its own clock in the command, and the request table remembers the answer: a
// retry whose first attempt's answer was lost then hears how many IDs that attempt released,
// not 0. A build before it ignores both fields and remembers nothing, so replicas on two
// builds would hold different tables: a Release that carries them counts as this version used.
const ReleaseRequestVersion uint32 = 8

// applyRelease releases the command's claimed IDs, or none when one of them is another
// owner's (the command named an owner). A request_id answers a retry as the first attempt.
func (st claimBook) applyRelease(r *raftv1.Release) any {
	if r.GetRequestId() != "" || r.GetProposedAtMs() != 0 {
		st.versionUsed = max(st.versionUsed, ReleaseRequestVersion)
	}
	st.requests.advanceClock(r.GetProposedAtMs())
	d, err := st.db(r.GetDatabase())
	if err != nil {
		return err
	}
	digest := st.claimDigest(r.GetOwner(), r.GetIds())
	if rec, err := st.requests.answered(r.GetDatabase(), r.GetRequestId(), requestKindRelease, digest); err != nil {
		return err
	} else if rec != nil {
		return ReleaseResult{Released: rec.GetCount()}
	}
	if owner := r.GetOwner(); owner != "" {
		for _, id := range r.GetIds() {
			if held, ok := d.claims[st.key(id)]; ok && held.owner != owner {
				return fmt.Errorf("%w: %s is claimed by %q, not %q", ErrNotOwner, held.id, held.owner, owner)
			}
		}
	}
	var res ReleaseResult
	sep := st.separatorKey()
	for _, id := range r.GetIds() {
		if d.removeClaim(st.key(id), sep) {
			res.Released++
		}
	}
	if id := r.GetRequestId(); id != "" {
		st.requests.record(&raftv1.RequestRecord{
			RequestId: id, Database: recordName(DatabaseName(r.GetDatabase())), Kind: requestKindRelease, Key: digest, Count: res.Released,
		})
	}
	return res
}

// applyReleaseOwner releases every claim owner holds in the database (cluster version 2). The
// claims are visited sorted, once each: at most the database's claim limit.
func (st claimBook) applyReleaseOwner(r *raftv1.ReleaseOwner) any {
	d, err := st.db(r.GetDatabase())
	if err != nil {
		return err
	}
	var res ReleaseResult
	sep := st.separatorKey()
	for _, key := range sortedKeys(d.claims) {
		if d.claims[key].owner == r.GetOwner() && d.removeClaim(key, sep) {
			res.Released++
		}
	}
	return res
}

// claimLimit is the most claims the database may hold.
func (d *database) claimLimit() int64 {
	if d.maxClaims > 0 {
		return d.maxClaims
	}
	return DefaultMaxClaims
}

// addClaim records a claim under its folded key, adding its number to its identity prefix's
// claimed numbers when it has the identity format, so identities of prefixes nobody claimed in
// take no lookups.
func (d *database) addClaim(key string, c claim, sep string) {
	d.putClaim(key, c)
	d.indexClaim(key, sep)
}

// putClaim stores a claim under its folded key, without indexing its number (a snapshot's
// claims are indexed once the separator is known: indexClaims).
func (d *database) putClaim(key string, c claim) {
	if c.id == key {
		c.id = key // one copy of the bytes when the spelling is the folded one
	}
	d.claims[key] = c
}

// indexClaim adds the number of the claim under key to its identity prefix's claimed numbers,
// when it has the format, and counts it when it has the shape of an opaque form.
func (d *database) indexClaim(key, sep string) {
	d.indexFormClaim(key, sep)
	prefix, n, ok := identityNumber(key, sep)
	if !ok {
		return
	}
	nums := d.claimedNumbers[prefix]
	if nums == nil {
		nums = &claimedNumbers{}
		d.claimedNumbers[prefix] = nums
	}
	nums.add(n)
}

// removeClaim drops the claim under key, reporting whether there was one.
func (d *database) removeClaim(key, sep string) bool {
	if _, ok := d.claims[key]; !ok {
		return false
	}
	delete(d.claims, key)
	d.unindexFormClaim(key, sep)
	if prefix, n, ok := identityNumber(key, sep); ok {
		if nums := d.claimedNumbers[prefix]; nums != nil && nums.remove(n) && nums.empty() {
			delete(d.claimedNumbers, prefix)
		}
	}
	return true
}

// indexClaims indexes every database's claims in the identity format by prefix, after a
// snapshot restored them (the separator comes later in a snapshot than the claims).
func (st claimBook) indexClaims() {
	sep := st.separatorKey()
	for _, d := range st.databases {
		clear(d.claimedNumbers)
		d.formClaims, d.formNumbers = nil, nil
		for key := range d.claims {
			d.indexClaim(key, sep)
		}
	}
}
