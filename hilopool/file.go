package hilopool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
)

// fileVersion is the format this build writes and reads (see the package doc).
const fileVersion = 1

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type fileDoc struct {
	Version int        `json:"version"`
	Pools   []filePool `json:"pools"`
	CRC32C  string     `json:"crc32c"`
}

type filePool struct {
	Database  string    `json:"database"`
	Tag       string    `json:"tag"`
	Segments  []segment `json:"segments"`
	LastGrant *segment  `json:"last_grant,omitempty"`
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
		if p.lastGrant != (segment{}) {
			fp.LastGrant = &p.lastGrant
		}
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
	if *probe.Version != fileVersion {
		return nil, fmt.Errorf("format version %d, this build reads version %d (written by a newer idnode?)", *probe.Version, fileVersion)
	}
	var doc fileDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a version %d document: %w", fileVersion, err)
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
		p := pool{segments: fp.Segments}
		if fp.LastGrant != nil {
			p.lastGrant = *fp.LastGrant
		}
		pools[k] = p
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
	if g := fp.LastGrant; g != nil {
		if g.Low < 1 || g.High < g.Low {
			return fmt.Errorf("last grant %v: want 1 <= low <= high", g)
		}
		for _, s := range fp.Segments {
			if s.overlaps(*g) {
				return fmt.Errorf("last grant %v overlaps segment %v", g, s)
			}
		}
	}
	return nil
}
