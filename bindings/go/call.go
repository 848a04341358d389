package gw

/*
#include <gw.h>
*/
import "C"

import (
	"context"
	"runtime/cgo"
	"sync"
	"time"
)

// call is one operation in flight: its own derived handle, cancelled by the context or
// by Client.Close, and freed when the operation (or its stream) ends.
type call struct {
	st   *clientState
	op   string
	h    *C.gw_client
	ctx  context.Context
	meta *ResponseMeta // where WithResponseMeta wants the metadata
	// byDeadline: the context's deadline set this call's time budget, so a gw timeout
	// (which may come early, when gw sees the next retry or poll would pass it) is the
	// context's deadline being exceeded.
	byDeadline bool

	observed *attempts  // Options.Observer's state for this call, or nil
	obsH     cgo.Handle // what gw hands back to gwGoAttempt; deleted by end

	mu     sync.Mutex // orders cancel against free: never cancel a freed handle
	freed  bool
	reason error // ctx.Err() or ErrClosed once cancelled
	stop   func() bool

	// The net/http driver's I/O, under mu: the current attempt's cancel (a cancel or a
	// timer ends the round trip or body read in flight), and a channel closed by cancel
	// that a backoff wait selects on (made on demand).
	ioCancel context.CancelFunc
	woken    chan struct{}
}

// begin derives the call's handle and wires ctx to it. The returned error is a *Error.
func (c *Client) begin(ctx context.Context, op string, opts []CallOption) (*call, error) {
	if ctx == nil {
		return nil, argError(op, "ctx is nil (use context.Background())")
	}
	if err := ctx.Err(); err != nil {
		return nil, (&Error{Op: op, Message: "not sent"}).withCause(err)
	}
	var cfg callConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	st := c.st
	if err := st.limit.acquire(ctx); err != nil {
		return nil, (&Error{Op: op, Message: "not sent (queued behind MaxInFlight calls)"}).withCause(err)
	}
	deadline, hasDeadline := ctx.Deadline()
	overrides := cfg.deriveOptions(deadline, hasDeadline)

	k := &call{st: st, op: op, ctx: ctx, meta: cfg.meta,
		byDeadline: hasDeadline && (cfg.timeout <= 0 || time.Until(deadline) < cfg.timeout)}
	st.mu.RLock()
	if st.closed {
		st.mu.RUnlock()
		st.limit.release()
		return nil, (&Error{Op: op, Message: "not sent"}).withCause(ErrClosed)
	}
	var h *C.gw_client
	var status int
	var errJSON []byte
	if st.observer == nil {
		h, status, errJSON = deriveClient(st.base, overrides)
	} else {
		k.observed, k.obsH = observedHandle(st.observer, ctx, op)
		h, status, errJSON = deriveObserved(st.base, overrides, uintptr(k.obsH))
	}
	if h != nil {
		k.h = h
		st.callsMu.Lock()
		st.calls[k] = struct{}{}
		st.callsMu.Unlock()
	}
	st.mu.RUnlock()
	if h == nil {
		if k.observed != nil {
			k.obsH.Delete()
		}
		st.limit.release()
		if status == StatusOK {
			status = StatusInternal
		}
		return nil, newError(op, status, errJSON)
	}
	if ctx.Done() != nil {
		k.stop = context.AfterFunc(ctx, func() { k.cancel(ctx.Err()) })
	}
	callStarted()
	return k, nil
}

// cancel makes every gw call on the handle return GW_CANCELLED; safe from any goroutine.
func (k *call) cancel(reason error) {
	k.mu.Lock()
	if !k.freed {
		first := k.reason == nil
		if first {
			k.reason = reason
		}
		cancelClient(k.h)
		if k.ioCancel != nil {
			k.ioCancel()
		}
		if first && k.woken != nil {
			close(k.woken)
		}
	}
	k.mu.Unlock()
}

// attemptContext is the context of one attempt's net/http I/O: the call's, cancelled
// too by cancel and by endAttempt.
func (k *call) attemptContext() context.Context {
	ctx, cancel := context.WithCancel(k.ctx)
	k.mu.Lock()
	if k.ioCancel != nil {
		k.ioCancel()
	}
	k.ioCancel = cancel
	if k.reason != nil {
		cancel()
	}
	k.mu.Unlock()
	return ctx
}

// cancelIO ends the current attempt's I/O (a timer of the exchange fell due).
func (k *call) cancelIO() {
	k.mu.Lock()
	if k.ioCancel != nil {
		k.ioCancel()
	}
	k.mu.Unlock()
}

// endAttempt releases the current attempt's context.
func (k *call) endAttempt() {
	k.mu.Lock()
	if k.ioCancel != nil {
		k.ioCancel()
		k.ioCancel = nil
	}
	k.mu.Unlock()
}

// wake is closed once the call is cancelled.
func (k *call) wake() <-chan struct{} {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.woken == nil {
		k.woken = make(chan struct{})
		if k.reason != nil {
			close(k.woken)
		}
	}
	return k.woken
}

// cancelled reports whether the call was cancelled (its context, Close, Stream.Close);
// a context that ended is made the call's cancel here, so gw sees it at its next step
// even before the context's AfterFunc has run.
func (k *call) cancelled() bool {
	if err := k.ctx.Err(); err != nil {
		k.cancel(err)
		return true
	}
	return k.cancelReason() != nil
}

// cancelReason is why the call was cancelled, or nil.
func (k *call) cancelReason() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.reason
}

// fail turns a failed status into the call's *Error, with metadata and the cause.
func (k *call) fail(status int, body []byte) error {
	e := newError(k.op, status, body)
	e.Meta = parseMeta(lastResponse(k.h))
	if reason := k.cancelReason(); reason != nil {
		e.withCause(reason)
	} else if err := k.ctx.Err(); err != nil && (status == StatusCancelled || status == StatusTimeout) {
		e.withCause(err)
	} else if status == StatusTimeout && k.byDeadline {
		e.withCause(context.DeadlineExceeded)
	}
	return e
}

// end records metadata for WithResponseMeta and frees the handle. Idempotent.
func (k *call) end() {
	if k.stop != nil {
		k.stop()
	}
	k.mu.Lock()
	if k.freed {
		k.mu.Unlock()
		return
	}
	if k.meta != nil {
		if m := parseMeta(lastResponse(k.h)); m != nil {
			*k.meta = *m
		}
	}
	k.freed = true
	h := k.h
	k.mu.Unlock()

	k.st.callsMu.Lock()
	delete(k.st.calls, k)
	k.st.callsMu.Unlock()
	freeClient(h)
	callEnded()
	k.st.limit.release()
	if k.observed != nil {
		k.obsH.Delete() // the handle is freed: gw calls back no more
		if p := k.observed.panicked; p != nil {
			panic(p) // the Observer's panic, re-raised on the call's goroutine
		}
	}
}

// finish ends the call and turns status and *out into the answer or the error.
func (k *call) finish(status int, out []byte) ([]byte, error) {
	var err error
	if status != StatusOK {
		err = k.fail(status, out)
	}
	k.end()
	if err != nil {
		return nil, err
	}
	return out, nil
}
