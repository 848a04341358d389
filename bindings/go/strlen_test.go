package gw

import (
	"syscall"
	"testing"
	"unsafe"
)

// strlenAt reads a 4 KiB window at a time and never a page past the terminator's: a
// string whose NUL is the last byte before an unreadable page must be measured (an
// over-read would fault), at every start offset, and every length must be strlen's.
func TestStrlenStopsAtItsPage(t *testing.T) {
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 3*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[2*page:], syscall.PROT_NONE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	readable := mem[:2*page]
	for i := range readable {
		readable[i] = 'x'
	}
	last := len(readable) - 1
	readable[last] = 0
	for _, start := range []int{0, 1, 15, page - 1, page, page + 1, last - 64, last - 1, last} {
		if got, want := strlenAt(unsafe.Pointer(&readable[start])), last-start; got != want {
			t.Fatalf("start %d: strlen %d, want %d", start, got, want)
		}
	}
	// A NUL early in the first page: found there, the window cut short.
	readable[100] = 0
	if got := strlenAt(unsafe.Pointer(&readable[3])); got != 97 {
		t.Fatalf("strlen %d, want 97", got)
	}
}
