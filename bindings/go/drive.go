package gw

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// driver runs one call's exchange (gw's sans-IO state machine) over net/http, on the
// calling goroutine: it sends what the exchange asks, feeds back the head and body bytes,
// waits its backoffs, and hands out its events. The socket waits in Go's netpoller; every
// cgo call is short. gw decides retries, redirects, deadlines, caps; the driver only
// does I/O, and turns the exchange's timers into a time.Timer that cancels the attempt's
// request (Go's response bodies take no read deadline).
type driver struct {
	k  *call
	hc *http.Client
	ex *cExchange

	// The attempt in flight.
	body       *viewBody      // its request body, read from the exchange's memory
	req        *http.Request  // made at wantSend, sent at the next wantReceive
	resp       *http.Response // its answer, whose body is being read
	streamOpen bool           // the head fed was a 2xx event stream
	bodyEnded  bool           // the body was read to its end
	bodyErr    error          // met by a read that also gave bytes: handled next
	pending    []byte         // bytes read and not yet taken by gw (back-pressure)

	buf    *[]byte // read buffer for the call
	stream bool    // the buffer is the stream's own, not answerBufs'

	next    stepped // a step already made (by a feed), used before stepping again
	hasNext bool
	first   *opened // the first step's request, made with the exchange (exchangeOpen)

	timer    *time.Timer
	tmu      sync.Mutex
	gen      uint64    // arming count
	armed    uint64    // the armed I/O's generation; 0: none
	due      time.Time // when the armed I/O is cut
	fired    uint64    // the generation whose timer went off
	timerDue time.Time // when the pending timer goes off; zero: not pending
	stopped  bool      // the driver is done: the timer sets itself no more
}

// Read buffers. A plain answer comes at once: its 16 KiB buffer is pooled, and the pool
// holds about as many as calls run at once. A stream's bytes come an event at a time (a
// chat chunk is a few hundred bytes): each stream has its own 1 KiB, freed with it, as a
// pool would keep a burst's thousands alive through the next two collections.
var answerBufs = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}

const streamBufSize = 1 << 10

// copiedBodyMax: request bodies up to this size are copied into Go memory to be sent
// (chat and embeddings requests); larger ones (uploads) are read from the exchange's.
const copiedBodyMax = 64 << 10

// drainWait and drainLimit bound the read of what follows an answer gw is done with (a
// chunked body's end, a short error body), so its connection goes back to the pool.
const (
	drainWait  = 10 * time.Millisecond
	drainLimit = 64 << 10
)

func newDriver(k *call, hc *http.Client, ex *cExchange, stream bool) *driver {
	return &driver{k: k, hc: hc, ex: ex, stream: stream}
}

// openedDriver drives an exchange from exchangeOpen: its first step is already made.
func openedDriver(k *call, hc *http.Client, ex *cExchange, stream bool, o *opened) *driver {
	d := newDriver(k, hc, ex, stream)
	d.next, d.hasNext = o.step, true
	if o.step.want == wantSend {
		d.first = o
	}
	return d
}

// advance drives the exchange until it gives an event or ends; with open, also until a
// stream's events are being read (its head came). It returns the step that stopped it.
func (d *driver) advance(open bool) stepped {
	for {
		s := d.next
		if d.hasNext {
			d.hasNext = false
		} else {
			s = exchangeStep(d.ex)
		}
		switch s.want {
		case wantSend:
			d.dropAnswer()
			d.prepare()
		case wantReceive:
			if open && d.streamOpen {
				d.next, d.hasNext = s, true
				return s
			}
			d.receive(s.waitMS)
		case wantWait:
			d.dropAnswer()
			d.wait(s.waitMS)
		case wantDone:
			d.dropAnswer()
			return s
		default: // wantEvent, or a misuse status (a bug): the caller ends the call
			return s
		}
	}
}

// finish reads the outcome and frees the exchange and what the driver held.
func (d *driver) finish() (int, []byte) {
	d.dropAnswer()
	d.stopTimer()
	status, out := exchangeFinishFree(d.ex)
	d.ex = nil
	d.release()
	return status, out
}

// release frees the exchange (abandoning it when not over) and the driver's buffers.
func (d *driver) release() {
	d.dropAnswer()
	d.stopTimer()
	exchangeFree(d.ex)
	d.ex = nil
	if d.buf != nil && !d.stream {
		answerBufs.Put(d.buf)
	}
	d.buf = nil
}

// prepare takes the request the exchange has ready and makes its *http.Request.
func (d *driver) prepare() {
	var v requestView
	var status int
	if d.first != nil {
		v, status = d.first.view, d.first.viewStatus
		d.first = nil
	} else {
		v, status = exchangeRequest(d.ex, &d.k.st.headerValues)
	}
	if status != StatusOK {
		return // the exchange ended (a deadline, a cancel): the next step says so
	}
	u, host, err := d.k.st.requestURL(v.url)
	if err != nil {
		// Not err's text: it quotes the URL, which may hold the key (?key=).
		exchangeFeedError(d.ex, StatusNetwork, false, "the request URL cannot be sent by net/http")
		return
	}
	// The URL is parsed (or copied) above: "" costs net/http no second parse.
	req, err := http.NewRequestWithContext(d.k.attemptContext(), v.method, "", nil)
	if err != nil {
		exchangeFeedError(d.ex, StatusNetwork, false, "the request method cannot be sent by net/http")
		return
	}
	req.URL, req.Host = u, host
	req.Header = v.header
	switch {
	case v.length > 0 && v.length <= copiedBodyMax:
		// Copied: net/http writes an in-memory body with the head, one write (a body it
		// cannot see into makes it flush the head first: a second write and packet).
		b := v.bodyBytes()
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		req.ContentLength = v.length
	case v.length > 0:
		b := newViewBody(&v)
		d.body = b
		req.Body = b.reader()
		req.GetBody = func() (io.ReadCloser, error) { return b.reader(), nil }
		req.ContentLength = v.length
	}
	d.req = req
}

// receive feeds what the transport gives next: the answer's head (the round trip) or
// some body bytes, the end or a failure.
func (d *driver) receive(waitMS int64) {
	switch {
	case d.req != nil:
		d.roundTrip(waitMS)
	case d.resp != nil:
		d.read(waitMS)
	default:
		// The attempt was cut by the exchange's own timer while it still waits for input:
		// only where the timer and its due time straddle a millisecond.
		exchangeFeedError(d.ex, StatusTimeout, true, "no answer within the exchange's deadline")
	}
}

func (d *driver) roundTrip(waitMS int64) {
	req := d.req
	d.req = nil
	d.arm(waitMS)
	var resp *http.Response
	var err error
	if d.k.st.ownsTransport {
		// gw's own transport under a Client with no jar, no timeout and redirects left
		// to gw: Client.Do would add only its copy of the headers (for redirects it
		// does not follow), 5% of a plain call's instructions.
		resp, err = d.hc.Transport.RoundTrip(req)
	} else {
		resp, err = d.hc.Do(req) // the user's Client: its jar, timeout and wrappers hold
	}
	fired := d.disarm()
	if err != nil {
		d.failed(err, fired, true)
		return
	}
	if resp.Body == nil { // a RoundTripper outside net/http's contract
		resp.Body = http.NoBody
	}
	if fired {
		// Its context is cancelled: the exchange, stepped, reports its own timeout.
		resp.Body.Close()
		return
	}
	d.resp = resp
	rc, s := exchangeFeedHeadStep(d.ex, resp.StatusCode, resp.Header)
	if rc != StatusOK {
		d.dropAnswer()
		exchangeFeedError(d.ex, StatusNetwork, false, "the answer's head is not valid HTTP for gw")
		return
	}
	d.next, d.hasNext = s, true
	d.streamOpen = resp.StatusCode >= 200 && resp.StatusCode < 300 &&
		strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream")
}

func (d *driver) read(waitMS int64) {
	if len(d.pending) > 0 {
		d.feed(d.pending)
		return
	}
	if err := d.bodyErr; err != nil {
		d.bodyErr = nil
		d.bodyFailed(err, false)
		return
	}
	if d.buf == nil {
		if d.stream {
			b := make([]byte, streamBufSize)
			d.buf = &b
		} else {
			d.buf = answerBufs.Get().(*[]byte)
		}
	}
	d.arm(waitMS)
	n, err := d.resp.Body.Read(*d.buf)
	fired := d.disarm()
	if fired && err == nil {
		err = context.Canceled // the next read fails anyway: the attempt is cancelled
	}
	if n > 0 {
		d.bodyErr = err
		if fired && err != nil {
			// The bytes came as the timer went off; the exchange, fed them, may not be due.
			d.bodyErr = errTimerCut
		}
		d.feed((*d.buf)[:n])
		return
	}
	if err != nil {
		d.bodyFailed(err, fired)
	}
}

// errTimerCut: the exchange's read timer cut a body read that had just given bytes.
var errTimerCut = errors.New("no more data within the read timeout")

func (d *driver) bodyFailed(err error, fired bool) {
	switch {
	case err == io.EOF:
		d.bodyEnded = true
		d.next, d.hasNext = exchangeFeedEndStep(d.ex), true
	case err == errTimerCut:
		exchangeFeedError(d.ex, StatusTimeout, true, err.Error())
	default:
		d.failed(err, fired, false)
	}
}

// feed gives b to the exchange; what it does not take (back-pressure) waits in pending.
func (d *driver) feed(b []byte) {
	status, taken, s := exchangeFeedBodyStep(d.ex, b)
	if status == statusWouldBlock {
		d.pending = b[taken:]
	} else {
		d.pending = nil
	}
	d.next, d.hasNext = s, true
}

// failed feeds a failure of the round trip or of a body read.
func (d *driver) failed(err error, fired, beforeHead bool) {
	switch {
	case fired:
		// The exchange's timer cancelled it: stepping, the exchange reports its timeout.
	case d.k.cancelled():
		exchangeFeedError(d.ex, StatusCancelled, false, "cancelled")
	default:
		status, sent, message := transportFailure(err, beforeHead)
		exchangeFeedError(d.ex, status, sent, message)
	}
}

// wait sleeps a backoff, or less when the call is cancelled.
func (d *driver) wait(waitMS int64) {
	t := time.NewTimer(time.Duration(waitMS) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-d.k.wake():
	case <-d.k.ctx.Done():
		d.k.cancelled()
	}
}

// dropAnswer ends the attempt: its request body is detached from the exchange's memory
// and its answer closed. A body gw is done with is read a little further first (a
// chunked stream's end, a short error body) so the connection can be pooled.
func (d *driver) dropAnswer() {
	if d.body != nil {
		d.body.detach()
		d.body = nil
	}
	d.req = nil
	if d.resp != nil {
		if !d.bodyEnded && d.k.cancelReason() == nil && d.k.ctx.Err() == nil {
			d.drain()
		}
		d.resp.Body.Close()
		d.resp = nil
	}
	d.k.endAttempt()
	d.streamOpen, d.bodyEnded, d.bodyErr, d.pending = false, false, nil, nil
}

// drain reads what follows an answer gw is done with, for at most drainWait. That bound
// is a timer of its own, made per drain, not the lazy timer moved earlier: a timer moved
// earlier makes Go's runtime walk every timer of its P once it is due (timers.adjust),
// and with thousands of streams in flight, one walk per stream's end cost more than the
// stream's own work.
func (d *driver) drain() {
	d.tmu.Lock()
	gen := d.markArmed(time.Now().Add(drainWait))
	d.tmu.Unlock()
	bound := time.AfterFunc(drainWait, func() { d.drainTimedOut(gen) })
	defer func() {
		bound.Stop()
		d.disarm()
	}()
	var scratch [512]byte
	for left := drainLimit; left > 0; {
		n, err := d.resp.Body.Read(scratch[:])
		left -= n
		if err != nil {
			return
		}
	}
}

// arm starts the timer for an exchange's wait (-1: none). It fires a millisecond after
// the wait, which gw gives rounded down, so the exchange is due when stepped then.
func (d *driver) arm(waitMS int64) {
	if waitMS >= 0 {
		d.armFor(time.Duration(waitMS+1) * time.Millisecond)
	}
}

// armFor arms the timer for I/O about to start. The timer is lazy: a stream's reads each
// re-arm it (a read timeout of seconds around reads an event apart), so rather than
// being reset and stopped at every read it stays pending, and when it goes off before
// the armed I/O is due it sets itself again for the rest.
func (d *driver) armFor(wait time.Duration) {
	due := time.Now().Add(wait)
	d.tmu.Lock()
	defer d.tmu.Unlock()
	d.markArmed(due)
	if d.timer == nil {
		d.timer = time.AfterFunc(wait, d.timerFired)
		d.timerDue = due
	} else if d.timerDue.IsZero() || due.Before(d.timerDue) {
		d.timer.Reset(wait)
		d.timerDue = due
	}
}

// markArmed records I/O about to start, due at due (d.tmu held); its generation.
func (d *driver) markArmed(due time.Time) uint64 {
	d.gen++
	d.armed, d.due = d.gen, due
	return d.gen
}

// timerFired runs on the timer's goroutine: it cancels the attempt's I/O if that is due,
// and sets the timer for the rest if not.
func (d *driver) timerFired() {
	d.tmu.Lock()
	d.timerDue = time.Time{}
	armed := d.armed
	if armed != 0 && !d.stopped {
		if left := time.Until(d.due); left > 0 {
			d.timer.Reset(left)
			d.timerDue = d.due
			d.tmu.Unlock()
			return
		}
		d.fired = armed
	}
	d.tmu.Unlock()
	if armed != 0 {
		d.k.cancelIO()
	}
}

// disarm reports whether the timer went off for the I/O armed last; the timer itself is
// left pending (see armFor).
func (d *driver) disarm() bool {
	d.tmu.Lock()
	fired := d.armed != 0 && d.fired == d.armed
	d.armed = 0
	d.tmu.Unlock()
	return fired
}

// drainTimedOut cuts the drain armed as gen, if it still runs.
func (d *driver) drainTimedOut(gen uint64) {
	d.tmu.Lock()
	due := d.armed == gen && !d.stopped
	if due {
		d.fired = gen
	}
	d.tmu.Unlock()
	if due {
		d.k.cancelIO()
	}
}

// stopTimer stops the timer for good (the driver is done).
func (d *driver) stopTimer() {
	d.tmu.Lock()
	d.stopped = true
	if d.timer != nil {
		d.timer.Stop()
	}
	d.tmu.Unlock()
}

// transportFailure maps a net/http error to the status the exchange takes, whether the
// request may have reached the gateway, and a message without the URL (which may hold
// the key).
func transportFailure(err error, beforeHead bool) (status int, sent bool, message string) {
	inner := err
	var ue *url.Error
	if errors.As(err, &ue) {
		inner = ue.Err
	}
	message = inner.Error()
	var unknownCA x509.UnknownAuthorityError
	var opErr *net.OpError
	dial := errors.As(err, &opErr) && (opErr.Op == "dial" || opErr.Op == "proxyconnect")
	var ne net.Error
	switch {
	case errors.As(err, &unknownCA):
		return StatusNetwork, false, "TLS: the gateway's certificate is not signed by a trusted CA (" + message + ")"
	case errors.As(err, &ne) && ne.Timeout():
		return StatusTimeout, !beforeHead || !dial, message
	case errors.Is(err, io.ErrUnexpectedEOF):
		if beforeHead {
			return StatusNetwork, !dial, "connection closed before the answer's head (" + message + ")"
		}
		return StatusNetwork, true, "connection closed inside the answer's body (" + message + ")"
	}
	return StatusNetwork, !beforeHead || !dial, message
}
