package gw

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// osThreads is the process's OS thread count (Linux /proc/self/status), or -1.
func osThreads() int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return -1
}

// The thread tests run in a fresh process (this test binary again): Go never gives
// threads back, so in this one every earlier test's threads would hide the figure, and
// debug.SetMaxThreads would bound the rest of the suite.
const helperEnv = "GW_GO_TEST_HELPER"

// runHelper runs mode in a child process against this suite's mock and returns its
// "key=value" output lines.
func runHelper(t *testing.T, mode string) map[string]string {
	t.Helper()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc/self/status (Linux)")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "GW_BASE_URL="+mockURL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper %s: %v\n%s", mode, err, out)
	}
	vals := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.ContainsAny(k, " \t") {
			vals[k] = v
		}
	}
	return vals
}

func atoi(t *testing.T, vals map[string]string, key string) int {
	t.Helper()
	n, err := strconv.Atoi(vals[key])
	if err != nil {
		t.Fatalf("helper printed no %s: %v", key, vals)
	}
	return n
}

// TestHelperProcess is the child side of runHelper; it does nothing in a normal run.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		return
	}
	var limit, calls int
	switch mode {
	case "limit16":
		limit, calls = 16, 300
	case "unlimited":
		limit, calls = -1, 300
	case "maxthreads100":
		debug.SetMaxThreads(100) // more in flight than this would be a fatal error
		limit, calls = 32, 1000
	default:
		t.Fatalf("unknown helper mode %q", mode)
	}
	start := osThreads()
	c := newClient(t, func(o *Options) { o.MaxInFlight = limit; o.MaxIdleConnections = 64 })
	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // samples the thread count while the calls run
		defer close(sampled)
		for {
			if n := int64(osThreads()); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	var wg sync.WaitGroup
	var failed atomic.Int64
	var firstErr atomic.Value
	for i := 0; i < calls; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Chat(bg(), chatReq("slow")); err != nil {
				failed.Add(1)
				firstErr.CompareAndSwap(nil, err.Error())
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-sampled
	fmt.Printf("\nstart_threads=%d\npeak_threads=%d\nfailed=%d\nfirst_error=%v\n", start, peak.Load(), failed.Load(), firstErr.Load())
}

// 300 concurrent slow calls with MaxInFlight 16 stay within 16 + a few dozen threads;
// through the built-in transport the same calls unbounded take a thread each (which shows
// the sampling sees them); through net/http neither takes more than a few.
func TestMaxInFlightBoundsThreads(t *testing.T) {
	resetMock(t)
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "delay", "ms": 100, "times": 300})
	bounded := runHelper(t, "limit16")
	resetMock(t)
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "delay", "ms": 300, "times": 300})
	unbounded := runHelper(t, "unlimited")
	t.Logf("OS threads: MaxInFlight 16: %s -> %s; no limit: %s -> %s",
		bounded["start_threads"], bounded["peak_threads"], unbounded["start_threads"], unbounded["peak_threads"])
	for _, v := range []map[string]string{bounded, unbounded} {
		if n := atoi(t, v, "failed"); n != 0 {
			t.Fatalf("%d calls failed: %s", n, v["first_error"])
		}
	}
	if !builtinByDefault {
		// net/http: a call waiting on the network is a parked goroutine; the threads are
		// Go's few, however many calls are in flight.
		for name, v := range map[string]map[string]string{"MaxInFlight 16": bounded, "no limit": unbounded} {
			if peak, start := atoi(t, v, "peak_threads"), atoi(t, v, "start_threads"); peak > start+24 {
				t.Errorf("%s over net/http: peak %d OS threads from %d, want at most 24 more", name, peak, start)
			}
		}
		return
	}
	if peak := atoi(t, bounded, "peak_threads"); peak > 16+40 {
		t.Errorf("MaxInFlight 16: peak %d OS threads, want at most 16 + 40", peak)
	}
	if peak := atoi(t, unbounded, "peak_threads"); peak < 150 {
		t.Errorf("no limit: peak %d OS threads for 300 blocked calls; the sampling misses them?", peak)
	}
}

// 1,000 concurrent calls with MaxInFlight 32 under debug.SetMaxThreads(100): no
// "thread exhaustion" crash (the child would die with exit status 2), every call served.
func TestMaxInFlightUnderSetMaxThreads(t *testing.T) {
	resetMock(t)
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "delay", "ms": 20, "times": 1000})
	v := runHelper(t, "maxthreads100")
	t.Logf("OS threads under SetMaxThreads(100), 1000 calls, MaxInFlight 32: peak %s", v["peak_threads"])
	if n := atoi(t, v, "failed"); n != 0 {
		t.Fatalf("%d calls failed: %s", n, v["first_error"])
	}
	if peak := atoi(t, v, "peak_threads"); peak > 100 {
		t.Fatalf("peak %d threads over the limit of 100", peak)
	}
}

// A call queued behind MaxInFlight returns context.Canceled as soon as its context is
// cancelled, without reaching the gateway; Close wakes queued calls with ErrClosed.
func TestMaxInFlightQueuedCallCancelled(t *testing.T) {
	resetMock(t)
	c := newClient(t, func(o *Options) { o.MaxInFlight = 1 })
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "delay", "ms": 1500})
	busy := make(chan error, 1)
	go func() {
		_, err := c.Chat(bg(), chatReq("holds the only slot"))
		busy <- err
	}()
	waitRequests(t, 1)

	ctx, cancel := context.WithCancel(bg())
	queued := make(chan error, 1)
	go func() {
		_, err := c.Chat(ctx, chatReq("queued"))
		queued <- err
	}()
	time.Sleep(100 * time.Millisecond)
	select {
	case err := <-queued:
		t.Fatalf("a call beyond MaxInFlight did not wait: %v", err)
	default:
	}
	cancelled := time.Now()
	cancel()
	err := <-queued
	if took := time.Since(cancelled); took > 200*time.Millisecond {
		t.Errorf("queued call took %v to return after cancel", took)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("queued call: %v, want context.Canceled", err)
	}
	if e := asError(t, err); e.Status != StatusCancelled {
		t.Errorf("status %d, want StatusCancelled", e.Status)
	}
	if err := <-busy; err != nil {
		t.Fatalf("the call in flight: %v", err)
	}
	if n := len(requests(t)); n != 1 {
		t.Errorf("the gateway got %d requests, want 1 (the cancelled one must not be sent)", n)
	}
	// The slot came back: a call goes through now.
	if _, err := c.Chat(bg(), chatReq("after")); err != nil {
		t.Fatal(err)
	}

	// Close while a call is queued: it fails with ErrClosed at once.
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "delay", "ms": 3000})
	go func() { _, err := c.Chat(bg(), chatReq("holds")); busy <- err }()
	waitRequests(t, 3)
	go func() { _, err := c.Chat(bg(), chatReq("queued")); queued <- err }()
	time.Sleep(50 * time.Millisecond)
	c.Close()
	for _, ch := range []chan error{queued, busy} {
		select {
		case err := <-ch:
			if !errors.Is(err, ErrClosed) {
				t.Errorf("after Close: %v, want ErrClosed", err)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("a call did not return after Close")
		}
	}
}

// An open stream holds its slot until it ends or is closed.
func TestMaxInFlightCountsOpenStreams(t *testing.T) {
	resetMock(t)
	c := newClient(t, func(o *Options) { o.MaxInFlight = 1 })
	s, err := c.ChatStream(bg(), chatReq("stream"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(bg(), 150*time.Millisecond)
	defer cancel()
	if _, err := c.Chat(ctx, chatReq("while the stream is open")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call while a stream holds the only slot: %v, want DeadlineExceeded", err)
	}
	s.Close()
	if _, err := c.Chat(bg(), chatReq("after Close")); err != nil {
		t.Fatalf("after the stream closed: %v", err)
	}
	// A stream read to its end gives its slot back too.
	s, err = c.ChatStream(bg(), chatReq("stream"))
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range s.Events() {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Chat(bg(), chatReq("after the end")); err != nil {
		t.Fatalf("after the stream ended: %v", err)
	}
}

// waitRequests waits until the mock has received n requests since the last reset.
func waitRequests(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for len(requests(t)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the mock did not receive %d requests", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
