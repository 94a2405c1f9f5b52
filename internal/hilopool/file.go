package hilopool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"

	"github.com/idnode/idnode/internal/hilogrant"
)

// fileVersion is the format this build writes (see the package doc). It also reads version 1,
// whose last_grant has no id: that grant cannot be returned any more, a gap at most.
const fileVersion = 2

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type fileDoc struct {
	Version int        `json:"version"`
	Pools   []filePool `json:"pools"`
	CRC32C  string     `json:"crc32c"`
}

type filePool struct {
	Database   string     `json:"database"`
	Tag        string     `json:"tag"`
	Segments   []segment  `json:"segments"`
	LastGrant  *fileGrant `json:"last_grant,omitempty"`
	BelowGrant *fileGrant `json:"below_grant,omitempty"`
}

// fileGrant is a returnable grant (hilogrant.Grant); version 1 files have no id.
type fileGrant struct {
	Low  int64  `json:"low"`
	High int64  `json:"high"`
	ID   string `json:"id,omitempty"`
}

func fileGrantOf(g hilogrant.Grant) *fileGrant {
	if g.ID == "" {
		return nil
	}
	return &fileGrant{Low: g.Low, High: g.High, ID: g.ID}
}

func (g *fileGrant) grant() hilogrant.Grant {
	if g == nil || g.ID == "" {
		return hilogrant.Grant{}
	}
	return hilogrant.Grant{ID: g.ID, Low: g.Low, High: g.High}
}

// encode renders pools as the file's content.
func encode(pools map[Key]pool) ([]byte, error) {
	doc := fileDoc{Version: fileVersion, Pools: make([]filePool, 0, len(pools))}
	for _, k := range sortedKeys(pools) {
		p := pools[k]
		fp := filePool{Database: k.Database, Tag: k.Tag, Segments: p.segments}
		if fp.Segments == nil {
			fp.Segments = []segment{} // "[]", as decode reads it back, so the checksum matches
		}
		fp.LastGrant, fp.BelowGrant = fileGrantOf(p.grants.Newest), fileGrantOf(p.grants.Below)
		doc.Pools = append(doc.Pools, fp)
	}
	sum, err := checksum(doc.Pools)
	if err != nil {
		return nil, err
	}
	doc.CRC32C = sum
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// checksum is the CRC-32C of the compact JSON encoding of pools, as 8 hex digits.
func checksum(pools []filePool) (string, error) {
	data, err := json.Marshal(pools)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%08x", crc32.Checksum(data, castagnoli)), nil
}

// decode parses the file's content exactly; any deviation is an error saying what is wrong.
func decode(data []byte) (map[Key]pool, error) {
	// Unmarshal also refuses anything after the document (a file written twice, say).
	var probe struct{ Version *int }
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("cannot parse: %w", err)
	}
	if probe.Version == nil {
		return nil, errors.New("no version field")
	}
	if *probe.Version != 1 && *probe.Version != fileVersion {
		return nil, fmt.Errorf("format version %d, this build reads versions 1 and %d (written by a newer idnode?)", *probe.Version, fileVersion)
	}
	var doc fileDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a version %d document: %w", *probe.Version, err)
	}
	sum, err := checksum(doc.Pools)
	if err != nil {
		return nil, err
	}
	if doc.CRC32C != sum {
		return nil, fmt.Errorf("checksum mismatch: the file says %q, its pools give %q (edited or damaged)", doc.CRC32C, sum)
	}
	pools := make(map[Key]pool, len(doc.Pools))
	var prev Key
	for i, fp := range doc.Pools {
		k := Key{Database: fp.Database, Tag: fp.Tag}
		if err := checkPool(k, fp); err != nil {
			return nil, fmt.Errorf("pool %q/%q: %w", k.Database, k.Tag, err)
		}
		if i > 0 && compareKeys(prev, k) >= 0 {
			return nil, fmt.Errorf("pool %q/%q is out of order or repeated", k.Database, k.Tag)
		}
		prev = k
		pools[k] = pool{segments: fp.Segments, grants: hilogrant.Stack{Newest: fp.LastGrant.grant(), Below: fp.BelowGrant.grant()}}
	}
	return pools, nil
}

// checkPool reports why a pool read from the file is not one the store could have written.
func checkPool(k Key, fp filePool) error {
	if k.Database == "" || k.Tag == "" {
		return errors.New("empty database or tag")
	}
	if k.Tag != strings.ToLower(k.Tag) {
		return errors.New("tag is not in lower case")
	}
	if err := checkSegments(fp.Segments); err != nil {
		return err
	}
	for _, g := range []*fileGrant{fp.LastGrant, fp.BelowGrant} {
		if g == nil {
			continue
		}
		if g.Low < 1 || g.High < g.Low {
			return fmt.Errorf("grant %d..%d: want 1 <= low <= high", g.Low, g.High)
		}
		for _, s := range fp.Segments {
			if s.overlaps(segment{Low: g.Low, High: g.High}) {
				return fmt.Errorf("grant %d..%d overlaps segment %v", g.Low, g.High, s)
			}
		}
	}
	if b := fp.BelowGrant; b != nil && (fp.LastGrant == nil || fp.LastGrant.ID == "" || b.ID == "" || b.High+1 != fp.LastGrant.Low) {
		return errors.New("below_grant is not right under a last_grant with an id")
	}
	return nil
}
