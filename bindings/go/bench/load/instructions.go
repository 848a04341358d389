package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Instructions per plain call, counted by callgrind: a figure the machine's load does not
// move (CPU time on a shared 2-core machine moves 10-20% from run to run), so a change of
// a few percent shows. The whole process is counted (Go runtime, net/http, JSON, cgo and
// gw's C side), one goroutine on one P (no idle P spinning for work while the call waits
// on the network, which counts instructions by the microsecond), at two numbers of calls:
// the difference divided by the difference in calls cancels start-up (TLS roots, the
// first connection). Go's async preemption is off: callgrind does not survive its signals.
const (
	instrShort = 200
	instrLong  = 1200
)

// instructionRows prints the table, or says why it is left out.
func instructionRows(names []string, mockURL string) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		fmt.Println("\ninstructions per call: left out (valgrind is not installed)")
		return
	}
	fmt.Printf("\n%-11s %16s %14s %18s   (1 goroutine, whole process, callgrind)\n",
		"client", "per plain call", "go allocs", "per 19-event stream")
	for _, name := range names {
		call, allocs, err := marginalInstructions(name, mockURL, "plain")
		var stream int64
		if err == nil {
			stream, _, err = marginalInstructions(name, mockURL, "serial")
		}
		if err != nil {
			fmt.Printf("%-11s left out: %v\n", name, err)
			continue
		}
		fmt.Printf("%-11s %16d %14s %18d\n", name, call, allocs, stream)
	}
}

// marginalInstructions is the instructions one more call (mode plain) or stream (mode
// serial) costs, and the Go allocations per call the longer run printed.
func marginalInstructions(name, mockURL, mode string) (int64, string, error) {
	short, _, err := countInstructions(name, mockURL, mode, instrShort)
	if err != nil {
		return 0, "", err
	}
	long, allocs, err := countInstructions(name, mockURL, mode, instrLong)
	return (long - short) / (instrLong - instrShort), allocs, err
}

// countInstructions runs n calls or streams of name under callgrind: the instructions
// of the whole run, and the Go allocations per call the child printed.
func countInstructions(name, mockURL, mode string, n int) (int64, string, error) {
	dir, err := os.MkdirTemp("", "bench-go-instr")
	if err != nil {
		return 0, "", err
	}
	defer os.RemoveAll(dir)
	outFile := filepath.Join(dir, "callgrind.out")
	if err := control(mockURL, "/__mock/reset", map[string]any{}); err != nil {
		return 0, "", err
	}
	cmd := exec.Command("valgrind", "--tool=callgrind", "--callgrind-out-file="+outFile,
		os.Args[0], "-child", mode, "-client", name, "-mock", mockURL,
		"-n", strconv.Itoa(n), "-goroutines", "1")
	cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1", "GOMAXPROCS=1")
	out, err := cmd.Output()
	if err != nil {
		return 0, "", fmt.Errorf("callgrind: %v", err)
	}
	allocs := "?"
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "go_allocs_per_call="); ok {
			allocs = v
		}
	}
	total, err := callgrindTotal(outFile)
	return total, allocs, err
}

// callgrindTotal reads the "totals:" (or "summary:") line of a callgrind output file.
func callgrindTotal(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		for _, prefix := range []string{"totals:", "summary:"} {
			if v, ok := strings.CutPrefix(sc.Text(), prefix); ok {
				return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("%s: no totals line", path)
}
