package gw

/*
#include <gw.h>
*/
import "C"

import (
	"context"
	"runtime/cgo"
	"time"
)

// Observer is told of the start and the end of every attempt of every call of a Client
// (Options.Observer): a retry is a new attempt, a redirect is part of its attempt. Plug
// tracing or metrics in here (see the Observer example, which uses only log/slog and
// expvar). Both methods run on the call's goroutine while gw waits for them: keep them
// quick. The same *Attempt goes to AttemptStart and then AttemptEnd, so State can carry
// a span or a start time from one to the other. A panic in either is re-raised by the
// call once gw has returned.
type Observer interface {
	AttemptStart(ctx context.Context, a *Attempt)
	AttemptEnd(ctx context.Context, a *Attempt)
}

// Attempt describes one attempt of a call. Fields marked "end" are set for AttemptEnd.
type Attempt struct {
	Operation     string        // the call: "chat", "chat stream", "embeddings", "request", ...
	Method        string        // "GET" or "POST"
	Path          string        // the API path and query, never with the key
	Number        int           // 1-based: 2 is the first retry
	Status        int           // end: the HTTP status, or a negative Status* code when no answer came
	Duration      time.Duration // end: from the attempt's start to the answer's head (or the failure)
	RequestID     string        // end: the answer's request id, "" when none
	RequestBytes  int64         // the request body's size
	ResponseBytes int64         // end: the answer's Content-Length, -1 when it gave none (streams)
	State         any           // the Observer's own, from AttemptStart to AttemptEnd
}

// attempts is a call's side of the observer callback, reached through a cgo.Handle.
type attempts struct {
	obs      Observer
	ctx      context.Context
	op       string
	cur      *Attempt
	panicked any
}

// observe handles one gw_attempt; a panic must not unwind through gw: it is kept and
// re-raised when the call ends, and the observer is not called again for this call.
func (o *attempts) observe(a *C.gw_attempt) {
	if o.panicked != nil {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			o.panicked = p
		}
	}()
	if a.phase == C.GW_ATTEMPT_START {
		o.cur = &Attempt{
			Operation:     o.op,
			Method:        C.GoString(a.method),
			Path:          C.GoString(a.path),
			Number:        int(a.attempt),
			RequestBytes:  int64(a.request_bytes),
			ResponseBytes: -1,
		}
		o.obs.AttemptStart(o.ctx, o.cur)
		return
	}
	at := o.cur
	if at == nil { // gw always starts before it ends; be safe anyway
		at = &Attempt{Operation: o.op, Method: C.GoString(a.method), Path: C.GoString(a.path)}
	}
	o.cur = nil
	at.Number = int(a.attempt)
	at.Status = int(a.status)
	at.Duration = time.Duration(a.elapsed_us) * time.Microsecond
	if a.request_id != nil {
		at.RequestID = C.GoString(a.request_id)
	}
	at.ResponseBytes = int64(a.response_bytes)
	o.obs.AttemptEnd(o.ctx, at)
}

// observedHandle makes the cgo.Handle gw hands back to gwGoAttempt for one call.
func observedHandle(obs Observer, ctx context.Context, op string) (*attempts, cgo.Handle) {
	o := &attempts{obs: obs, ctx: ctx, op: op}
	return o, cgo.NewHandle(o)
}
