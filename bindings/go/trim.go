package gw

// After a burst of calls, the C heap gw's calls used (their exchanges, parsers, buffers)
// is free but glibc keeps much of it resident: free() returns pages to the OS only from
// the top of an arena. Once a burst of at least trimBurst calls in flight has drained to
// an eighth of its peak, malloc_trim(0) hands the free pages back, at most once a
// second. Go's own heap is the runtime's business (its scavenger, debug.FreeOSMemory).

/*
#include <stddef.h>
// Weak: a C library without malloc_trim (musl) leaves it NULL, and nothing is done.
extern int malloc_trim(size_t pad) __attribute__((weak));
static void gw_go_trim(void) { if (malloc_trim) malloc_trim(0); }
*/
import "C"

import (
	"sync/atomic"
	"time"
)

const trimBurst = 256

var cHeap struct {
	inFlight, peak atomic.Int64
	pending        atomic.Bool
}

func callStarted() {
	n := cHeap.inFlight.Add(1)
	for p := cHeap.peak.Load(); n > p && !cHeap.peak.CompareAndSwap(p, n); p = cHeap.peak.Load() {
	}
}

func callEnded() {
	n := cHeap.inFlight.Add(-1)
	if p := cHeap.peak.Load(); p >= trimBurst && n <= p/8 && cHeap.pending.CompareAndSwap(false, true) {
		time.AfterFunc(time.Second, trimCHeap)
	}
}

func trimCHeap() {
	C.gw_go_trim()
	cHeap.peak.Store(cHeap.inFlight.Load())
	cHeap.pending.Store(false)
}
