package gw

import "context"

// inFlight bounds the calls of one Client inside gw at once. A call blocked in gw holds
// an OS thread (cgo), so without a bound a burst of slow calls is a burst of threads
// (and Go's thread limit is fatal). Waiting happens here, in Go, on a channel: a queued
// goroutine holds no thread and leaves as soon as its context ends or the Client closes.
type inFlight struct {
	slots  chan struct{} // nil: no limit
	closed chan struct{} // closed by Client.Close, wakes every queued call
}

func newInFlight(limit int) *inFlight {
	l := &inFlight{closed: make(chan struct{})}
	if limit > 0 {
		l.slots = make(chan struct{}, limit)
	}
	return l
}

// acquire takes a slot, waiting for one if need be; the error is ctx.Err() or ErrClosed.
func (l *inFlight) acquire(ctx context.Context) error {
	if l.slots == nil {
		return nil
	}
	select {
	case l.slots <- struct{}{}: // the common case: a free slot, no wait
		return nil
	default:
	}
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-l.closed:
		return ErrClosed
	}
}

// release gives back a slot taken by acquire.
func (l *inFlight) release() {
	if l.slots != nil {
		<-l.slots
	}
}

// close wakes the queued calls (they fail with ErrClosed); called once, by Client.Close.
func (l *inFlight) close() { close(l.closed) }
