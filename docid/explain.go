package docid

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Shape is what the text of a concrete ID says about how idnode minted it (Explain). The text
// alone cannot tell everything: a semantic ID may look like any other, and nothing in an ID
// names its database.
type Shape struct {
	Kind Kind
	// Prefix is everything before the number, with its trailing separator ("orders/").
	Prefix string
	// Number is the digits: a server-side ID's etag (zero-padded), a HiLo or identity value.
	Number string
	// NodeTag is the tag after "-": the node that minted a server-side ID or granted a range.
	NodeTag string
	// GUIDVersion is a GUID's UUID version, and GUIDTime is the time a v7 GUID carries.
	GUIDVersion int
	GUIDTime    time.Time
	// Note says what else the ID could be, when its shape is shared.
	Note string
}

// ExplainID tells which strategy minted id by its shape, with the separator sep:
// "users/0000000000000000001-A" server-side, "orders/12-A" HiLo, "users/1" identity (or a HiLo
// ID printed without its node tag), a UUID GUID, anything else semantic. An empty id, or one no
// ID can be (not UTF-8, too long, a backslash, a control or invisible character), is invalid.
func ExplainID(id string, sep rune) (Shape, error) {
	if id == "" {
		return Shape{}, invalid("an empty ID has no shape", id)
	}
	if err := checkText("id", id, MaxLength); err != nil {
		return Shape{}, err
	}
	if len(id) == 36 {
		if u, err := uuid.Parse(id); err == nil {
			sh := Shape{Kind: GUID, GUIDVersion: int(u.Version())}
			if u.Version() == 7 {
				sec, nsec := u.Time().UnixTime()
				sh.GUIDTime = time.Unix(sec, nsec).UTC()
			}
			return sh, nil
		}
	}
	cut := strings.LastIndex(id, string(sep))
	if sep < 0 || !utf8.ValidRune(sep) || cut < 0 {
		return Shape{Kind: Semantic}, nil
	}
	prefix, tail := id[:cut+utf8.RuneLen(sep)], id[cut+utf8.RuneLen(sep):]
	number, tag, tagged := strings.Cut(tail, "-")
	if !allDigits(number) || tagged && ValidateNodeTag(tag) != nil {
		return Shape{Kind: Semantic}, nil
	}
	sh := Shape{Prefix: prefix, Number: number, NodeTag: tag}
	switch {
	case !tagged && number[0] != '0' && len(number) <= 19 && (len(number) < 19 || number <= "9223372036854775807"):
		sh.Kind, sh.Note = Identity, "or a HiLo ID printed without its node tag (RavenDB 3.x format)"
	case !tagged:
		return Shape{Kind: Semantic}, nil
	case len(number) == etagDigits && number[0] == '0' && number != strings.Repeat("0", etagDigits):
		sh.Kind = ServerSide
	case len(number) >= etagDigits && number[0] != '0' && len(number) <= 20 && (len(number) < 20 || number <= "18446744073709551615"):
		sh.Kind, sh.Note = ServerSide, "or a HiLo ID above 10^18"
	case number[0] != '0' && len(number) < etagDigits:
		sh.Kind, sh.Note = HiLo, "a server prefix (RavenDB 3.x) would be the prefix's last part"
	default:
		return Shape{Kind: Semantic}, nil
	}
	return sh, nil
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
