package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// programs runs a command with the machine's process accounting on and prints the programs
// that used the most CPU meanwhile, anywhere on the machine, and how busy its cores were; it
// returns the command's exit status. The accounting file is a temporary one unless -o names
// where to keep it.
func programs(args []string) int {
	fs := flag.NewFlagSet("testreport programs", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	n := fs.Int("n", 20, "how many programs to show")
	keep := fs.String("o", "", "keep the accounting records in this file")
	if err := fs.Parse(args); err != nil || fs.NArg() < 1 || *n < 1 {
		fail(usage)
	}
	file, err := accountingFile(*keep)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testreport programs: %v\n", err)
		return 1
	}
	if *keep == "" {
		defer os.Remove(file)
	}
	before, err := readMachineCPU(procStat)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testreport programs: %v\n", err)
		return 1
	}
	if err := accountTo(file); err != nil {
		fmt.Fprintf(os.Stderr, "testreport programs: turning process accounting on: %v (it needs Linux and root, or CAP_SYS_PACCT)\n", err)
		return 1
	}
	// The machine has one accounting file: it is turned off whatever happens here but a
	// SIGKILL, after which `testreport programs -- true` turns it off again.
	stop := sync.OnceValue(stopAccounting)
	defer stop()
	started := time.Now()
	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.Env = append(os.Environ(), accountingEnv+"=1")
	runErr := runPassingSignals(cmd)
	if cmd.ProcessState == nil {
		fmt.Fprintf(os.Stderr, "testreport programs: %v\n", runErr)
		return 1
	}
	status := exitStatus(runErr)
	if err := stop(); err != nil {
		fmt.Fprintf(os.Stderr, "testreport programs: turning process accounting off: %v\n", err)
	}
	after, err := readMachineCPU(procStat)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testreport programs: %v\n", err)
		return status
	}
	f, err := os.Open(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testreport programs: %v\n", err)
		return status
	}
	records, err := readAccounting(bufio.NewReader(f))
	f.Close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "testreport programs: %s: %v (the report counts the records before it)\n", file, err)
	}
	if err := writePrograms(os.Stdout, byProgram(records), *n, after.since(before), time.Since(started)); err != nil {
		fmt.Fprintf(os.Stderr, "testreport programs: %v\n", err)
	}
	return status
}

// accountingEnv is set in the command's environment, so that a test that would turn the
// machine's accounting on and off (this package's own) knows not to.
const accountingEnv = "TESTREPORT_ACCOUNTING"

// accountingFile creates the file the kernel appends records to: keep, emptied, or a new
// temporary file.
func accountingFile(keep string) (string, error) {
	var (
		f   *os.File
		err error
	)
	if keep != "" {
		f, err = os.OpenFile(keep, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	} else {
		f, err = os.CreateTemp("", "testreport-acct-*")
	}
	if err != nil {
		return "", err
	}
	return f.Name(), f.Close()
}

// writePrograms prints the n programs of uses that used the most CPU, the total, and what
// the machine's cores did meanwhile.
func writePrograms(w io.Writer, uses []programUse, n int, machine machineCPU, elapsed time.Duration) error {
	var (
		b         strings.Builder
		total     time.Duration
		processes int
	)
	for _, u := range uses {
		total += u.CPU
		processes += u.Processes
	}
	fmt.Fprintf(&b, "the %d programs that used the most CPU while the command ran, anywhere on the machine (process accounting: the processes that ended meanwhile):\n", min(n, len(uses)))
	fmt.Fprintf(&b, "  %9s  %9s  %s\n", "CPU", "processes", "program")
	for _, u := range uses[:min(n, len(uses))] {
		fmt.Fprintf(&b, "  %8.1fs  %9d  %s\n", u.CPU.Seconds(), u.Processes, u.Command)
	}
	fmt.Fprintf(&b, "in all %.0f s of CPU in %d processes of %d programs, in %s\n", total.Seconds(), processes, len(uses), elapsed.Round(time.Second))
	if machine.total > 0 {
		fmt.Fprintf(&b, "the cores were %.0f %% busy (/proc/stat): %.0f s of CPU, %.0f s of it not in the records (processes still running at the end, such as dockerd, and the kernel's own threads)\n",
			100*float64(machine.busy)/float64(machine.total), machine.busy.Seconds(), max(0, (machine.busy-total).Seconds()))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// procStat is where Linux keeps the time every core spent in each state.
const procStat = "/proc/stat"

// machineCPU is the time all cores spent busy, and in all, since the machine started.
type machineCPU struct{ busy, total time.Duration }

func (m machineCPU) since(before machineCPU) machineCPU {
	return machineCPU{busy: m.busy - before.busy, total: m.total - before.total}
}

// readMachineCPU reads the first line of /proc/stat: "cpu", then user, nice, system, idle,
// iowait, irq, softirq, steal (and guest time, already within user's) in USER_HZ ticks.
// Busy is all but idle and iowait.
func readMachineCPU(path string) (machineCPU, error) {
	f, err := os.Open(path)
	if err != nil {
		return machineCPU{}, err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return machineCPU{}, fmt.Errorf("%s: %w", path, err)
	}
	fields := strings.Fields(line)
	if len(fields) < 9 || fields[0] != "cpu" {
		return machineCPU{}, fmt.Errorf("%s: %w", path, errStatLine)
	}
	var ticks [8]int64
	for i := range ticks {
		if ticks[i], err = strconv.ParseInt(fields[1+i], 10, 64); err != nil || ticks[i] < 0 {
			return machineCPU{}, fmt.Errorf("%s: %w", path, errStatLine)
		}
	}
	var total int64
	for _, t := range ticks {
		total += t
	}
	tick := time.Second / acctTicks // USER_HZ, 100 on Linux as AHZ is
	return machineCPU{busy: time.Duration(total-ticks[3]-ticks[4]) * tick, total: time.Duration(total) * tick}, nil
}

var errStatLine = errors.New(`its first line is not "cpu" and eight counts`)
