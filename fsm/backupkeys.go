package fsm

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// BackupKeyDatabases names the databases whose opaque keys the backup (or snapshot) read from
// r holds, each once, in the backup's order. It reads the records' framing and decodes only
// the opaque settings, so idctl runs it on a backup as the backup streams to its file.
func BackupKeyDatabases(r io.Reader) ([]string, error) {
	var names []string
	err := scanBackupKeys(r, func(database string) bool {
		if !slices.Contains(names, database) {
			names = append(names, database)
		}
		return true
	})
	return names, err
}

// scanBackupKeys reads the backup from r record by record and calls found with the database
// of each opaque setting, until found returns false or the backup ends. Other records are
// skipped, not decoded.
func scanBackupKeys(r io.Reader, found func(database string) bool) error {
	br := bufio.NewReader(r)
	magic := make([]byte, len(snapshotMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != snapshotMagic {
		return errors.New("not an idnode backup (bad header)")
	}
	for {
		typ, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read backup: %w", err)
		}
		size, err := binary.ReadUvarint(br)
		if err != nil || size > maxRecordSize {
			return fmt.Errorf("backup record %d: bad length", typ)
		}
		if recordType(typ) != opaqueSettingRecord {
			if _, err := br.Discard(int(size)); err != nil {
				return fmt.Errorf("backup record %d truncated: %w", typ, err)
			}
			continue
		}
		body := make([]byte, size)
		if _, err := io.ReadFull(br, body); err != nil {
			return fmt.Errorf("backup record %d truncated: %w", typ, err)
		}
		var m raftv1.MakeOpaque
		if err := proto.Unmarshal(body, &m); err != nil {
			return fmt.Errorf("backup record %d: %w", typ, err)
		}
		if !found(DatabaseName(m.GetDatabase())) {
			return nil
		}
	}
}
