package main

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Linux's process accounting (acct(2)) appends a record to a file as each process on the
// machine ends: its command name and the user and system time it and all its threads used.
// So it sees what the test binaries' own CPU times do not: the Go toolchain's compiles and
// links, Docker's containers and daemons' helpers, a server a test left to run on its own.
// These are its version 3 records (linux/acct.h, struct acct_v3).

// acctRecordSize is the size of one struct acct_v3.
const acctRecordSize = 64

// acctTicks is the unit of a record's times, the kernel's AHZ: 100 a second on Linux.
const acctTicks = 100

// acctBigEndian is the flag in ac_version (ACCT_BYTEORDER) of a machine that wrote its
// records big-endian.
const acctBigEndian = 0x80

var (
	errAcctVersion   = errors.New("not a version 3 process accounting record")
	errAcctTruncated = errors.New("the file ends within a record")
)

// acctRecord is what the report needs of a record.
type acctRecord struct {
	Command string        // ac_comm: the program's name, at most 15 bytes
	CPU     time.Duration // ac_utime + ac_stime
}

// readAccounting reads every record of r.
func readAccounting(r io.Reader) ([]acctRecord, error) {
	var (
		out []acctRecord
		buf [acctRecordSize]byte
	)
	for i := 0; ; i++ {
		_, err := io.ReadFull(r, buf[:])
		switch {
		case err == io.EOF:
			return out, nil
		case err == io.ErrUnexpectedEOF:
			return out, fmt.Errorf("record %d: %w", i, errAcctTruncated)
		case err != nil:
			return out, err
		}
		rec, err := parseAcctRecord(buf[:])
		if err != nil {
			return out, fmt.Errorf("record %d: %w", i, err)
		}
		out = append(out, rec)
	}
}

// parseAcctRecord reads one struct acct_v3: ac_version at byte 1, ac_utime and ac_stime at
// 32 and 34, ac_comm from 48.
func parseAcctRecord(b []byte) (acctRecord, error) {
	if b[1]&^acctBigEndian != 3 {
		return acctRecord{}, fmt.Errorf("%w (version byte %#x)", errAcctVersion, b[1])
	}
	var order binary.ByteOrder = binary.LittleEndian
	if b[1]&acctBigEndian != 0 {
		order = binary.BigEndian
	}
	ticks := compTicks(order.Uint16(b[32:])) + compTicks(order.Uint16(b[34:]))
	name, _, _ := bytes.Cut(b[48:64], []byte{0})
	return acctRecord{
		Command: strings.ToValidUTF8(string(name), "?"),
		CPU:     time.Duration(ticks) * (time.Second / acctTicks),
	}, nil
}

// compTicks decodes a comp_t: a 13-bit mantissa and a 3-bit exponent of base 8. The largest,
// 8191 << 21 ticks, is some 200 days: no overflow of a Duration.
func compTicks(c uint16) int64 {
	return int64(c&0x1fff) << (3 * (c >> 13))
}

// programUse is one program's processes and their CPU time.
type programUse struct {
	Command   string
	Processes int
	CPU       time.Duration
}

// byProgram sums records by command name, the most CPU first (then by name).
func byProgram(records []acctRecord) []programUse {
	index := map[string]int{}
	var uses []programUse
	for _, r := range records {
		i, ok := index[r.Command]
		if !ok {
			i = len(uses)
			index[r.Command] = i
			uses = append(uses, programUse{Command: r.Command})
		}
		uses[i].Processes++
		uses[i].CPU += r.CPU
	}
	slices.SortFunc(uses, func(a, b programUse) int {
		return cmp.Or(cmp.Compare(b.CPU, a.CPU), cmp.Compare(a.Command, b.Command))
	})
	return uses
}
