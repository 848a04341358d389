package gw

// The Go functions gw calls back: video-wait progress (once per poll, seconds apart),
// log lines, and attempt starts and ends when an Observer is set. Streams never call
// back: they are pulled.

/*
#include <string.h>
#include <gw.h>
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

//export gwGoProgress
func gwGoProgress(status *C.char, task *C.char, user unsafe.Pointer) C.int {
	w := cgo.Handle(uintptr(user)).Value().(*waiter)
	record := C.GoBytes(unsafe.Pointer(task), C.int(C.strlen(task)))
	if w.progress(C.GoString(status), record) {
		return 0
	}
	return 1
}

//export gwGoLog
func gwGoLog(level C.int, message *C.char, _ unsafe.Pointer) {
	logLine(int(level), C.GoString(message))
}

//export gwGoAttempt
func gwGoAttempt(a *C.gw_attempt, user unsafe.Pointer) {
	cgo.Handle(uintptr(user)).Value().(*attempts).observe(a)
}
