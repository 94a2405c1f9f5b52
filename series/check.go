package series

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/idnode/idnode/docid"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Bounds of a command's fields. Each entry is stored for ever, so each is small.
const (
	maxNameLength       = 64
	maxSeriesPerDB      = 1000
	maxFields           = 16
	maxFieldKeyLength   = 32
	maxFieldValueLength = 256
	maxDocumentHash     = 64
	maxRequestIDLength  = 128
	maxReasonLength     = 512
	maxCorrectingLength = 128
	maxActorLength      = 256
	// maxTimeMs is 9999-12-31T23:59:59.999Z: {year} prints four digits.
	maxTimeMs = 253402300799999
)

// CheckCreate validates a CreateSeries before it is proposed; the store checks it again when
// it applies it.
func CheckCreate(c *raftv1.CreateSeries) error {
	if err := CheckRef(c.GetDatabase(), c.GetName()); err != nil {
		return err
	}
	if _, ok := raftv1.SeriesPeriod_name[int32(c.GetPeriod())]; !ok {
		return fmt.Errorf("%w: unknown period %d", ErrBadInput, c.GetPeriod())
	}
	if _, ok := raftv1.SeriesPolicy_name[int32(c.GetPolicy())]; !ok {
		return fmt.Errorf("%w: unknown policy %d", ErrBadInput, c.GetPolicy())
	}
	if _, err := parseFormat(c.GetFormat(), c.GetPeriod()); err != nil {
		return err
	}
	return firstError(
		checkTime(c.GetProposedAtMs()),
		checkText("created_by", c.GetCreatedBy(), maxActorLength),
		checkText("request_id", c.GetRequestId(), maxRequestIDLength),
	)
}

// CheckIssue validates one issue of a batch before it is proposed; the store checks it again
// when it applies it.
func CheckIssue(i *raftv1.SeriesIssue) error {
	if err := CheckRef(i.GetDatabase(), i.GetSeries()); err != nil {
		return err
	}
	if i.GetRequestId() == "" {
		return fmt.Errorf("%w: request_id is required: a retry with it answers the same number", ErrBadInput)
	}
	if len(i.GetDocumentHash()) > maxDocumentHash {
		return fmt.Errorf("%w: document_hash is %d bytes, at most %d", ErrBadInput, len(i.GetDocumentHash()), maxDocumentHash)
	}
	return firstError(
		checkText("request_id", i.GetRequestId(), maxRequestIDLength),
		checkText("issued_by", i.GetIssuedBy(), maxActorLength),
		checkFields(i.GetFields()),
	)
}

// CheckIssueTime validates a batch's clock; each issue of the batch is checked by CheckIssue.
func CheckIssueTime(b *raftv1.SeriesIssueBatch) error { return checkTime(b.GetProposedAtMs()) }

// CheckVoid validates a SeriesVoid before it is proposed; the store checks it again when it
// applies it.
func CheckVoid(v *raftv1.SeriesVoid) error {
	if err := CheckRef(v.GetDatabase(), v.GetSeries()); err != nil {
		return err
	}
	switch {
	case v.GetReason() == "":
		return fmt.Errorf("%w: reason is required: a void is journaled with why", ErrBadInput)
	case v.GetNumber() < 1:
		return fmt.Errorf("%w: number %d: numbers start at 1", ErrBadInput, v.GetNumber())
	case v.GetRequestId() == "":
		return fmt.Errorf("%w: request_id is required: a retry with it answers the same entry", ErrBadInput)
	}
	return firstError(
		checkTime(v.GetProposedAtMs()),
		checkText("period", v.GetPeriod(), len("2026-03")),
		checkText("reason", v.GetReason(), maxReasonLength),
		checkText("correcting", v.GetCorrecting(), maxCorrectingLength),
		checkText("request_id", v.GetRequestId(), maxRequestIDLength),
		checkText("voided_by", v.GetVoidedBy(), maxActorLength),
	)
}

// CheckRef checks the database and the series' name a command names.
func CheckRef(database, name string) error {
	if err := docid.ValidateDatabaseRef(database); err != nil {
		return fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	return checkName(name)
}

// checkName checks a series' name: 1–64 of [A-Za-z0-9._-].
func checkName(name string) error {
	if name == "" || len(name) > maxNameLength {
		return fmt.Errorf("%w: series name must be 1 to %d bytes, got %d", ErrBadInput, maxNameLength, len(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("%w: series name %q: use ASCII letters, digits, '.', '_' and '-'", ErrBadInput, name)
		}
	}
	return nil
}

// checkFields checks an issue's fields: at most 16, keys of [a-z0-9_.-]{1,32} sorted and
// unique (so two replicas and an auditor see one order), values of text.
func checkFields(fields []*raftv1.SeriesField) error {
	if len(fields) > maxFields {
		return fmt.Errorf("%w: %d fields, at most %d", ErrBadInput, len(fields), maxFields)
	}
	for i, f := range fields {
		k := f.GetKey()
		if k == "" || len(k) > maxFieldKeyLength || strings.TrimLeft(k, "abcdefghijklmnopqrstuvwxyz0123456789_.-") != "" {
			return fmt.Errorf("%w: field key %q: use 1 to %d of a-z, 0-9, '_', '.' and '-'", ErrBadInput, k, maxFieldKeyLength)
		}
		if i > 0 && fields[i-1].GetKey() >= k {
			return fmt.Errorf("%w: field keys must be sorted and unique: %q after %q", ErrBadInput, k, fields[i-1].GetKey())
		}
		if err := checkText("value of field "+k, f.GetValue(), maxFieldValueLength); err != nil {
			return err
		}
	}
	return nil
}

// checkText checks a stored string: its length first (a huge input is not scanned), then valid
// UTF-8 without control or invisible format characters, which would make two records that
// print the same differ.
func checkText(what, s string, maxLen int) error {
	if len(s) > maxLen {
		return fmt.Errorf("%w: %s is %d bytes, at most %d", ErrBadInput, what, len(s), maxLen)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrBadInput, what)
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return fmt.Errorf("%w: %s contains the control or format character %U", ErrBadInput, what, r)
		}
	}
	return nil
}

// checkTime checks a proposer's clock: 1970 to 9999, the years {year} prints in four digits.
func checkTime(ms int64) error {
	if ms < 0 || ms > maxTimeMs {
		return fmt.Errorf("%w: proposed_at_ms %d is outside 1970 to 9999", ErrBadInput, ms)
	}
	return nil
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
