package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// A child process runs one library through one load and prints key=value lines: a fresh
// process each time, so one run's threads and heap never show in another's figures.

// burst runs n streams at once (each ~19 events dripped over ~2 s by the mock) and
// measures peak RSS and threads, CPU per stream, and what the process holds 2 s after
// (debug.FreeOSMemory first), against what it held before.
func burst(c loadClient, n int) error {
	ctx := context.Background()
	if _, err := c.stream(ctx, streamPrompt); err != nil { // warm: the client's first call
		return fmt.Errorf("warm-up stream: %w", err)
	}
	debug.FreeOSMemory()
	rssBefore, _, threadsBefore := procStatus()
	var peakThreads atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	var mid runtime.MemStats
	var midRSS int64
	go func() { // VmHWM gives the peak RSS; the peak thread count needs sampling
		defer close(sampled)
		// Once, mid-burst: how much of the RSS is Go's (heap, goroutine stacks); the rest
		// is C's (gw's Rust heap) and the runtime's own.
		midway := time.After(time.Second)
		for {
			select {
			case <-midway:
				runtime.ReadMemStats(&mid)
				midRSS, _, _ = procStatus()
			default:
			}
			if _, _, t := procStatus(); t > peakThreads.Load() {
				peakThreads.Store(t)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	cpu0, _ := cpuUsed()
	start := time.Now()
	var wg sync.WaitGroup
	var failed, events atomic.Int64
	var firstErr atomic.Value
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := c.stream(ctx, streamPrompt)
			events.Add(int64(got))
			if err != nil {
				failed.Add(1)
				firstErr.CompareAndSwap(nil, err.Error())
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	cpu1, _ := cpuUsed()
	close(stop)
	<-sampled
	_, peak, _ := procStatus()
	debug.FreeOSMemory()
	time.Sleep(2 * time.Second)
	rssAfter, _, threadsAfter := procStatus()
	fmt.Printf("streams=%d\nfailed=%d\nfirst_error=%v\nevents_per_stream=%.1f\nwall_ms=%d\n", n, failed.Load(), firstErr.Load(),
		float64(events.Load())/float64(n), wall.Milliseconds())
	fmt.Printf("rss_before_kib=%d\npeak_rss_kib=%d\nrss_after_kib=%d\n", rssBefore, peak, rssAfter)
	fmt.Printf("threads_before=%d\npeak_threads=%d\nthreads_after=%d\n", threadsBefore, peakThreads.Load(), threadsAfter)
	fmt.Printf("cpu_us_per_stream=%.0f\n", float64((cpu1-cpu0).Microseconds())/float64(n))
	fmt.Printf("mid_rss_kib=%d\nmid_go_heap_kib=%d\nmid_go_stacks_kib=%d\n", midRSS, mid.HeapInuse>>10, mid.StackInuse>>10)
	return nil
}

// plain runs calls plain chats from goroutines goroutines at once: CPU time and context
// switches per call.
func plain(c loadClient, goroutines, calls int) error {
	ctx := context.Background()
	if err := c.chat(ctx); err != nil {
		return fmt.Errorf("warm-up chat: %w", err)
	}
	var mem0, mem1 runtime.MemStats
	runtime.ReadMemStats(&mem0)
	cpu0, sw0 := cpuUsed()
	start := time.Now()
	var next, failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(calls) {
				if err := c.chat(ctx); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	cpu1, sw1 := cpuUsed()
	runtime.ReadMemStats(&mem1)
	_, _, threads := procStatus()
	fmt.Printf("calls=%d\ngoroutines=%d\nfailed=%d\nfirst_error=%v\nwall_ms=%d\nthreads=%d\n", calls, goroutines, failed.Load(),
		firstErr.Load(), wall.Milliseconds(), threads)
	fmt.Printf("cpu_us_per_call=%.1f\nctxsw_per_call=%.2f\n", float64((cpu1-cpu0).Nanoseconds())/1e3/float64(calls),
		float64(sw1-sw0)/float64(calls))
	// Go allocations per call: a cost CPU time on a shared machine blurs, and the GC's work.
	fmt.Printf("go_allocs_per_call=%.1f\ngo_bytes_per_call=%.0f\n", float64(mem1.Mallocs-mem0.Mallocs)/float64(calls),
		float64(mem1.TotalAlloc-mem0.TotalAlloc)/float64(calls))
	return nil
}

// serialStreams reads n streamed chats one after another from one goroutine, undripped:
// what instructions.go counts per stream.
func serialStreams(c loadClient, n int) error {
	ctx := context.Background()
	for i := 0; i < n; i++ {
		events, err := c.stream(ctx, streamPrompt)
		if err != nil {
			return fmt.Errorf("stream %d: %w", i, err)
		}
		if events < 19 {
			return fmt.Errorf("stream %d: %d events", i, events)
		}
	}
	fmt.Printf("streams=%d\n", n)
	return nil
}
