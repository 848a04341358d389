package gw

import (
	"context"
	"encoding/json"
	"runtime"
	"runtime/cgo"
	"strconv"
	"time"
)

// WaitOptions tune VideoWait.
type WaitOptions struct {
	Interval time.Duration // between polls; 0 -> 2s
	Timeout  time.Duration // the whole wait; 0 -> 10 min; the context's deadline wins when earlier

	// OnProgress is called after every poll with the record (on the waiting goroutine).
	OnProgress func(*VideoTask)
	// Progress receives every record too. Each send blocks until received or ctx ends:
	// give it a buffer or a reader. VideoWait does not close it.
	Progress chan<- *VideoTask
}

// VideoWait polls a task until it finishes and returns its final record. A failed task
// is a *Error with StatusVendor (errors.Is(err, gw.ErrVendor)) whose Body is the record;
// cancelling ctx stops the wait within ~50 ms, even in the middle of a poll or a sleep.
//
// The terminal-status rules of every family (succeeded, succeed, completed, SUCCEEDED,
// failed, FAILED, ...) are gw's, the same in every binding. With Options.HTTPClient every
// poll goes through that client: the wait is gw's exchange (gw_exchange_new_video_wait)
// driven on the calling goroutine, its pauses Go timers, each record an event (no cgo
// callback, no OS thread held). Otherwise it runs gw_video_wait on gw's own transport and
// progress reaches Go through one cgo callback per poll, seconds apart.
func (c *Client) VideoWait(ctx context.Context, family VideoFamily, taskID string, w WaitOptions, opts ...CallOption) (*VideoTask, error) {
	raw, err := c.VideoWaitRaw(ctx, family, taskID, w, opts...)
	return decode[VideoTask]("video wait", raw, err)
}

// VideoWaitRaw is VideoWait returning the final record as JSON.
func (c *Client) VideoWaitRaw(ctx context.Context, family VideoFamily, taskID string, w WaitOptions, opts ...CallOption) (json.RawMessage, error) {
	const op = "video wait"
	id, err := idArg(op, "taskID", taskID)
	if err != nil {
		return nil, err
	}
	if w.Interval < 0 || w.Timeout < 0 {
		return nil, argError(op, "WaitOptions: Interval and Timeout must not be negative")
	}
	if ctx == nil {
		return nil, argError(op, "ctx is nil (use context.Background())")
	}
	timeout, byDeadline := w.Timeout, false
	if dl, ok := ctx.Deadline(); ok && (timeout == 0 || time.Until(dl) < timeout) {
		timeout, byDeadline = max(time.Until(dl), time.Millisecond), true
	}
	options := waitOptionsJSON(w.Interval, timeout)

	k, err := c.begin(ctx, op, opts)
	if err != nil {
		return nil, err
	}
	k.byDeadline = byDeadline
	if c.st.hc != nil {
		return c.driveWait(k, family, id, options, w)
	}
	var handle uintptr
	var wt *waiter
	if w.OnProgress != nil || w.Progress != nil {
		wt = &waiter{ctx: ctx, onProgress: w.OnProgress, ch: w.Progress}
		h := cgo.NewHandle(wt)
		defer h.Delete()
		handle = uintptr(h)
	}
	status, out := callVideoWait(k.h, family, id, options, handle)
	runtime.KeepAlive(c)
	raw, err := k.finish(status, out)
	if wt != nil && wt.panicked != nil {
		panic(wt.panicked) // the callback's panic, re-raised on its own goroutine
	}
	return raw, err
}

// driveWait runs the wait as gw's exchange over the client's *http.Client, on the calling
// goroutine: every poll goes through its transport, each record comes back as an event
// (OnProgress and Progress are fed from it, no cgo callback), and the pauses are timers
// that ctx cancels. The polls, pauses, deadline and terminal statuses are gw's, the same
// state machine gw_video_wait runs.
func (c *Client) driveWait(k *call, family VideoFamily, id, options []byte, w WaitOptions) (json.RawMessage, error) {
	ex, status, out := exchangeVideoWait(k.h, family, id, options)
	if ex == nil {
		return k.finish(failedStatus(status), out)
	}
	var wt *waiter
	if w.OnProgress != nil || w.Progress != nil {
		wt = &waiter{ctx: k.ctx, onProgress: w.OnProgress, ch: w.Progress}
	}
	d := newDriver(k, c.st.hc, ex, false)
	for {
		s := d.advance(false)
		if s.want == wantDone {
			break
		}
		if s.want != wantEvent {
			d.release() // a misuse status: a bug in gw or here
			return k.finish(StatusInternal, nil)
		}
		if wt == nil {
			continue
		}
		ev := copyEvent(&s.ev)
		if !wt.progress(ev.Name, ev.Data) {
			// As the callback's non-zero return: the wait ends with GW_CANCELLED.
			exchangeFeedError(d.ex, StatusCancelled, false, "the wait's progress stopped it")
		}
	}
	status, out = d.finish()
	runtime.KeepAlive(c) // the finalizer must not Close the client under a running call
	raw, err := k.finish(status, out)
	if wt != nil && wt.panicked != nil {
		panic(wt.panicked) // OnProgress's panic, re-raised once the wait is over
	}
	return raw, err
}

func waitOptionsJSON(interval, timeout time.Duration) []byte {
	if interval == 0 && timeout == 0 {
		return nil
	}
	b := []byte{'{'}
	if interval > 0 {
		b = append(b, `"interval_ms":`...)
		b = strconv.AppendInt(b, *timeoutMS(interval), 10)
	}
	if timeout > 0 {
		if interval > 0 {
			b = append(b, ',')
		}
		b = append(b, `"timeout_ms":`...)
		b = strconv.AppendInt(b, *timeoutMS(timeout), 10)
	}
	return append(b, '}', 0)
}

// waiter is what a progress callback reaches through its cgo.Handle.
type waiter struct {
	ctx        context.Context
	onProgress func(*VideoTask)
	ch         chan<- *VideoTask
	panicked   any
}

// progress handles one poll's record; false stops the wait. A panic must not unwind
// through gw's frames: it is kept and re-raised once gw_video_wait has returned.
func (w *waiter) progress(status string, record []byte) (goOn bool) {
	defer func() {
		if p := recover(); p != nil {
			w.panicked = p
			goOn = false
		}
	}()
	var t VideoTask
	if json.Unmarshal(record, &t) != nil {
		t = VideoTask{Raw: record}
	}
	if t.Status == "" {
		t.Status = status
	}
	if w.onProgress != nil {
		w.onProgress(&t)
	}
	if w.ch != nil {
		select {
		case w.ch <- &t:
		case <-w.ctx.Done():
			return false
		}
	}
	return true
}
