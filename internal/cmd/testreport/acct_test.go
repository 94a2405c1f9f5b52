package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// acctBytes is one struct acct_v3 as the kernel writes it: times as comp_t.
func acctBytes(order binary.ByteOrder, command string, utime, stime uint16) []byte {
	b := make([]byte, acctRecordSize)
	b[1] = 3
	if order == binary.ByteOrder(binary.BigEndian) {
		b[1] |= acctBigEndian
	}
	order.PutUint32(b[16:], 4242) // ac_pid, which the report does not read
	order.PutUint16(b[32:], utime)
	order.PutUint16(b[34:], stime)
	copy(b[48:64], command)
	return b
}

// TestAccountingRecordsAddUpByProgram checks that records are read in either byte order,
// their comp_t times decoded (mantissa and exponent), and summed by program, most first.
func TestAccountingRecordsAddUpByProgram(t *testing.T) {
	var file []byte
	for _, r := range [][]byte{
		acctBytes(binary.LittleEndian, "compile", 150, 50),       // 2 s
		acctBytes(binary.LittleEndian, "idnode", 0x2000|25, 0),   // 25 << 3 ticks: 2 s
		acctBytes(binary.BigEndian, "compile", 0, 0x4000|3),      // 3 << 6 ticks: 1.92 s
		acctBytes(binary.LittleEndian, "a-name-of-15-ch", 10, 0), // the longest ac_comm holds
	} {
		file = append(file, r...)
	}
	records, err := readAccounting(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	got := byProgram(records)
	want := []programUse{
		{Command: "compile", Processes: 2, CPU: 3920 * time.Millisecond},
		{Command: "idnode", Processes: 1, CPU: 2 * time.Second},
		{Command: "a-name-of-15-ch", Processes: 1, CPU: 100 * time.Millisecond},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("program %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestAccountingFileRefusals checks that a file cut within a record, or a record of another
// version, is an error, and that the records before it are kept.
func TestAccountingFileRefusals(t *testing.T) {
	whole := acctBytes(binary.LittleEndian, "sh", 1, 1)
	v2 := acctBytes(binary.LittleEndian, "sh", 1, 1)
	v2[1] = 2
	for _, c := range []struct {
		name string
		file []byte
		want error
	}{
		{"cut", append(append([]byte{}, whole...), whole[:20]...), errAcctTruncated},
		{"version 2", append(append([]byte{}, whole...), v2...), errAcctVersion},
	} {
		records, err := readAccounting(bytes.NewReader(c.file))
		if !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
		if len(records) != 1 {
			t.Errorf("%s: %d records kept, want the 1 before the bad one", c.name, len(records))
		}
	}
}

// FuzzReadAccounting checks that no file makes the reader panic, and that what it accepts
// is whole records with times no comp_t can exceed.
func FuzzReadAccounting(f *testing.F) {
	f.Add(acctBytes(binary.LittleEndian, "go", 0xffff, 0xffff))
	f.Add(acctBytes(binary.BigEndian, "", 0, 0)[:63])
	f.Fuzz(func(t *testing.T, file []byte) {
		records, err := readAccounting(bytes.NewReader(file))
		if err == nil && len(records)*acctRecordSize != len(file) {
			t.Fatalf("%d bytes read as %d records without an error", len(file), len(records))
		}
		for _, r := range records {
			if r.CPU < 0 || r.CPU > 2*time.Duration(0x1fff<<21)*(time.Second/acctTicks) {
				t.Fatalf("CPU %v out of a comp_t's range", r.CPU)
			}
		}
	})
}

// TestMachineCPUFromProcStat checks the busy and total time read from /proc/stat's first
// line, and that a line of another shape is refused.
func TestMachineCPUFromProcStat(t *testing.T) {
	dir := t.TempDir()
	write := func(content string) string {
		path := filepath.Join(dir, "stat")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	got, err := readMachineCPU(write("cpu  100 5 20 300 10 1 2 3 7 0\ncpu0 1 2 3 4 5 6 7 8 9 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	// busy: user, nice, system, irq, softirq, steal; idle and iowait are not.
	if want := (machineCPU{busy: 1310 * time.Millisecond, total: 4410 * time.Millisecond}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for _, bad := range []string{"", "intr 1 2 3 4 5 6 7 8\n", "cpu 1 2 3\n", "cpu 1 2 3 4 5 6 7 x\n", "cpu 1 2 3 4 5 6 7 -8\n"} {
		if _, err := readMachineCPU(write(bad)); err == nil {
			t.Errorf("%q read without an error", bad)
		}
	}
}

// TestProgramsReport checks the printed report: the programs in order, the total and the
// share of the machine's busy time the records do not explain.
func TestProgramsReport(t *testing.T) {
	uses := []programUse{
		{Command: "compile", Processes: 30, CPU: 90 * time.Second},
		{Command: "idnode", Processes: 4, CPU: 10 * time.Second},
	}
	var b strings.Builder
	if err := writePrograms(&b, uses, 1, machineCPU{busy: 150 * time.Second, total: 200 * time.Second}, time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"the 1 programs that used the most CPU",
		"      90.0s         30  compile",
		"in all 100 s of CPU in 34 processes of 2 programs, in 1m0s",
		"the cores were 75 % busy (/proc/stat): 150 s of CPU, 50 s of it not in the records",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "idnode") {
		t.Errorf("the report shows more than the 1 program asked:\n%s", b.String())
	}
}

// TestProgramsSeesAProcessTheCommandStarted runs programs on a shell under a name of its own
// that spins for a while: its record shows with its CPU time, and programs returns its exit
// status. The machine has one accounting file, so this needs root (CI runs as root; elsewhere
// the test skips without it), and skips within a run that programs itself measures.
func TestProgramsSeesAProcessTheCommandStarted(t *testing.T) {
	if os.Getenv(accountingEnv) != "" {
		t.Skip("the machine's process accounting is measuring this run (testreport programs)")
	}
	if os.Geteuid() != 0 && os.Getenv("CI") != "true" {
		t.Skip("process accounting needs root")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(sh)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	spinner := filepath.Join(dir, "acct-spinner")
	if err := os.WriteFile(spinner, data, 0o755); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(dir, "acct")
	status := programs([]string{"-o", keep, "--", spinner, "-c", `i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; exit 3`})
	if status != 3 {
		t.Errorf("status %d, want the command's 3", status)
	}
	f, err := os.Open(keep)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := readAccounting(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range byProgram(records) {
		if u.Command == "acct-spinner" {
			if u.Processes != 1 || u.CPU < 20*time.Millisecond {
				t.Errorf("the spinner's record: %+v, want 1 process that used 20 ms or more", u)
			}
			return
		}
	}
	t.Errorf("no record of acct-spinner among %d", len(records))
}
