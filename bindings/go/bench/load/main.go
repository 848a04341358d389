// Command load measures gw's Go binding under concurrency from outside, as a service sees
// it: one process, many streams in flight at once against gw-mock (each ~19 events
// dripped over ~2 s), and plain calls from 8 goroutines. Each library and load runs in a
// fresh child process; the figures are medians over -rounds runs: peak RSS (VmHWM) and
// RSS per stream in flight, peak OS threads, CPU time per stream, RSS and threads 2 s
// after the burst (debug.FreeOSMemory first) against before it; CPU time and context
// switches per plain call; instructions and Go allocations per plain call (callgrind, see
// instructions.go). `make bench-go` runs it (scripts/bench-go.sh); built with
// -tags openai it puts go-openai beside gw's two transports.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"
)

const (
	key      = "sk-test"
	model    = "bench-model"
	question = "What is the capital of France?"
	// streamPrompt makes the mock stream 19 events (its echo, a word an event).
	streamPrompt = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
	dripMS       = 105
)

func main() {
	child := flag.String("child", "", "internal: run one load (burst or plain) in this process")
	client := flag.String("client", "", "internal: the library of a child")
	mock := flag.String("mock", "", "internal: gw-mock's URL for a child")
	n := flag.Int("n", 0, "internal: streams (burst) or calls (plain) of a child")
	streams := flag.String("streams", "100,1000,2000", "streams in flight, comma-separated")
	rounds := flag.Int("rounds", 3, "runs of each load; the figures are medians")
	goroutines := flag.Int("goroutines", 8, "goroutines of plain calls")
	calls := flag.Int("calls", 20000, "plain calls per run (a run of a few seconds: shorter ones are noisy)")
	only := flag.String("clients", "", "libraries to run, comma-separated (default: every one built in)")
	instructions := flag.Bool("instructions", true, "count instructions per plain call under callgrind (when valgrind is installed)")
	profile := flag.String("cpuprofile", "", "with -child: write a CPU profile of the load there")
	flag.Parse()
	var err error
	if *profile != "" {
		f, perr := os.Create(*profile)
		if perr == nil {
			perr = pprof.StartCPUProfile(f)
		}
		if perr != nil {
			fmt.Fprintln(os.Stderr, "load:", perr)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if *child != "" {
		err = runChild(*child, *client, *mock, *n, *goroutines)
	} else {
		err = runParent(*streams, *only, *rounds, *goroutines, *calls, *instructions)
	}
	if err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func runChild(mode, name, mockURL string, n, goroutines int) error {
	mk, ok := clients[name]
	if !ok {
		return fmt.Errorf("no client %q in this build", name)
	}
	c, err := mk(mockURL)
	if err != nil {
		return err
	}
	defer c.close()
	switch mode {
	case "burst":
		return burst(c, n)
	case "serial":
		return serialStreams(c, n)
	}
	return plain(c, goroutines, n)
}

func runParent(streamList, only string, rounds, goroutines, calls int, instructions bool) error {
	names := strings.Split(only, ",")
	if only == "" {
		names = names[:0]
		for name := range clients {
			names = append(names, name)
		}
		sort.Strings(names)
	}
	bin := os.Getenv("GW_MOCK_BIN")
	if bin == "" {
		return fmt.Errorf("GW_MOCK_BIN must name the gw-mock binary")
	}
	mock := exec.Command(bin, "--port", "0", "--exit-on-stdin-eof")
	stdin, _ := mock.StdinPipe()
	stdout, _ := mock.StdoutPipe()
	if err := mock.Start(); err != nil {
		return err
	}
	defer func() { stdin.Close(); mock.Process.Kill(); mock.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return fmt.Errorf("gw-mock printed no address: %w", err)
	}
	mockURL := strings.TrimSpace(line)

	fmt.Printf("load: streams of ~19 events over ~2 s, all in flight at once; plain calls from %d goroutines; medians of %d rounds\n\n",
		goroutines, rounds)
	fmt.Printf("%-7s %-11s %9s %11s %8s %11s %19s %8s %7s\n", "streams", "client", "peak RSS", "RSS/stream",
		"threads", "CPU/stream", "RSS before -> +2s", "thr +2s", "wall")
	for _, s := range strings.Split(streamList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("-streams: %w", err)
		}
		for _, name := range names {
			runs, err := repeat(rounds, func() (map[string]string, error) {
				if err := control(mockURL, "/__mock/reset", map[string]any{}); err != nil {
					return nil, err
				}
				fault := map[string]any{"match": "/v1/chat/completions", "action": "drip", "interval_ms": dripMS, "times": n + 1}
				if err := control(mockURL, "/__mock/faults", fault); err != nil {
					return nil, err
				}
				return runSelf("burst", name, mockURL, n, goroutines)
			})
			if err != nil {
				return fmt.Errorf("%s, %d streams: %w", name, n, err)
			}
			before, peak, after := median(runs, "rss_before_kib"), median(runs, "peak_rss_kib"), median(runs, "rss_after_kib")
			fmt.Printf("%-7d %-11s %6.0f MiB %7.0f KiB %8.0f %8.2f ms %7.0f -> %4.0f MiB %8.0f %5.1f s\n", n, name,
				peak/1024, (peak-before)/float64(n), median(runs, "peak_threads"), median(runs, "cpu_us_per_stream")/1000,
				before/1024, after/1024, median(runs, "threads_after"), median(runs, "wall_ms")/1000)
		}
	}
	fmt.Printf("\n%-11s %12s %12s %8s   (plain chat calls, %d goroutines)\n", "client", "CPU/call", "ctxsw/call", "threads", goroutines)
	for _, name := range names {
		runs, err := repeat(rounds, func() (map[string]string, error) {
			if err := control(mockURL, "/__mock/reset", map[string]any{}); err != nil {
				return nil, err
			}
			return runSelf("plain", name, mockURL, calls, goroutines)
		})
		if err != nil {
			return fmt.Errorf("%s, plain calls: %w", name, err)
		}
		fmt.Printf("%-11s %9.1f µs %12.2f %8.0f\n", name, median(runs, "cpu_us_per_call"), median(runs, "ctxsw_per_call"), median(runs, "threads"))
	}
	if instructions {
		instructionRows(names, mockURL)
	}
	return nil
}

func repeat(rounds int, run func() (map[string]string, error)) ([]map[string]string, error) {
	var out []map[string]string
	for i := 0; i < rounds; i++ {
		v, err := run()
		if err != nil {
			return nil, err
		}
		if v["failed"] != "0" {
			return nil, fmt.Errorf("%s calls failed: %s", v["failed"], v["first_error"])
		}
		out = append(out, v)
	}
	return out, nil
}

// runSelf runs a child of this binary and reads its key=value lines.
func runSelf(mode, name, mockURL string, n, goroutines int) (map[string]string, error) {
	cmd := exec.Command(os.Args[0], "-child", mode, "-client", name, "-mock", mockURL, "-n", strconv.Itoa(n),
		"-goroutines", strconv.Itoa(goroutines))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, out)
	}
	vals := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			vals[k] = v
		}
	}
	return vals, nil
}

func median(runs []map[string]string, key string) float64 {
	var xs []float64
	for _, r := range runs {
		if x, err := strconv.ParseFloat(r[key], 64); err == nil {
			xs = append(xs, x)
		}
	}
	if len(xs) == 0 {
		return -1
	}
	sort.Float64s(xs)
	return xs[len(xs)/2]
}

// control talks to gw-mock's /__mock endpoints.
func control(mockURL, path string, body any) error {
	b, _ := json.Marshal(body)
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Post(mockURL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("mock %s: %d", path, resp.StatusCode)
	}
	return nil
}
