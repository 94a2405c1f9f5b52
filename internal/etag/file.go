package etag

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/idnode/idnode/internal/durablefile"
)

const (
	magic   = "idnode-etag"
	version = "v1"
	// maxFileSize bounds what readWatermark reads: a v1 line is at most
	// len("idnode-etag v1 ") + 19 digits + 1 + 8 + 1 = 44 bytes.
	maxFileSize = 128
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// formatWatermark renders the v1 line for w.
func formatWatermark(w uint64) []byte {
	body := magic + " " + version + " " + strconv.FormatUint(w, 10)
	return fmt.Appendf(nil, "%s %08x\n", body, crc32.Checksum([]byte(body), castagnoli))
}

// parseWatermark parses a v1 line exactly; any deviation is an error naming
// what is wrong.
func parseWatermark(data []byte) (uint64, error) {
	s := string(data)
	if len(s) == 0 {
		return 0, fmt.Errorf("%w: file is empty", ErrCorrupt)
	}
	if !strings.HasPrefix(s, magic+" ") {
		return 0, fmt.Errorf("%w: does not start with %q", ErrCorrupt, magic+" ")
	}
	if !strings.HasSuffix(s, "\n") || strings.Count(s, "\n") != 1 {
		return 0, fmt.Errorf("%w: not exactly one newline-terminated line (truncated?)", ErrCorrupt)
	}
	fields := strings.Split(strings.TrimSuffix(s, "\n"), " ")
	if len(fields) >= 2 && fields[1] != version {
		return 0, fmt.Errorf("%w %q (this build reads %q)", ErrVersion, fields[1], version)
	}
	if len(fields) != 4 {
		return 0, fmt.Errorf("%w: want 4 space-separated fields, got %d", ErrCorrupt, len(fields))
	}
	body := strings.Join(fields[:3], " ")
	sum, err := strconv.ParseUint(fields[3], 16, 32)
	if err != nil || len(fields[3]) != 8 {
		return 0, fmt.Errorf("%w: checksum %q is not 8 hex digits", ErrCorrupt, fields[3])
	}
	if got := crc32.Checksum([]byte(body), castagnoli); uint32(sum) != got {
		return 0, fmt.Errorf("%w: checksum mismatch (file says %08x, content gives %08x)", ErrCorrupt, sum, got)
	}
	w, err := strconv.ParseUint(fields[2], 10, 64)
	if err != nil || strconv.FormatUint(w, 10) != fields[2] {
		return 0, fmt.Errorf("%w: watermark %q is not a canonical decimal number", ErrCorrupt, fields[2])
	}
	if w > Max {
		return 0, fmt.Errorf("%w: watermark %d is above the maximum etag %d", ErrCorrupt, w, Max)
	}
	return w, nil
}

// readWatermark returns the watermark stored at path, or fresh=true if the
// file does not exist.
func readWatermark(path string) (w uint64, fresh bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, true, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("etag: cannot read watermark file %s: %w; fix the file's "+
			"permissions or storage and restart (do not delete it: that would restart "+
			"server-side IDs at 1 and repeat them)", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return 0, false, fmt.Errorf("etag: cannot read watermark file %s: %w; fix the storage "+
			"and restart (do not delete the file: that would repeat server-side IDs)", path, err)
	}
	if len(data) > maxFileSize {
		err = fmt.Errorf("%w: longer than %d bytes", ErrCorrupt, maxFileSize)
	} else {
		w, err = parseWatermark(data)
	}
	if err != nil {
		return 0, false, fmt.Errorf("%w (file %s). Refusing to start: guessing a watermark could "+
			"repeat server-side IDs. Restore the file from a backup, or remove this node from "+
			"the cluster and join it again as a new node with an empty data directory "+
			"(a new tag makes restarting at 1 safe). Do not just delete the file", err, path)
	}
	return w, false, nil
}

// writeWatermark makes w the durable content of path. Only when it returns nil may etags up
// to w be handed out.
func writeWatermark(path string, w uint64) error {
	return durablefile.WriteFile(path, formatWatermark(w), 0o644)
}
