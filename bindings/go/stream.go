package gw

import (
	"context"
	"encoding/json"
	"iter"
	"runtime"
	"sync"
)

// Event is one streamed server-sent event, copied out of gw (it stays valid).
type Event struct {
	Name        string          // "message" for chat chunks; e.g. "response.output_text.delta"
	Data        json.RawMessage // the event's JSON
	TextDelta   string          // the text it adds ("" when none): print it as it comes
	Index       int             // 0-based position among the stream's events
	ChoiceIndex int             // chat: the choice TextDelta belongs to
}

// Stream is an open streamed answer, pulled one event at a time (no callback from gw into
// Go). T is the assembled result: *ChatCompletion, *Response or json.RawMessage.
//
//	s, err := c.ChatStream(ctx, req)
//	if err != nil { return err }
//	defer s.Close()
//	for ev, err := range s.Events() {
//		if err != nil { return err }
//		fmt.Print(ev.TextDelta)
//	}
//	final, err := s.Result()
//
// Leaving the loop early closes the stream. A Stream is for one goroutine at a time,
// except Close, which may come from anywhere.
type Stream[T any] struct {
	c      *Client // a stream keeps its client from being finalized
	k      *call
	decode func([]byte) (T, error)

	mu      sync.Mutex    // held across each gw call on s
	s       *cStream      // BuiltinTransport: the pull stream; nil once ended or closed
	d       *driver       // net/http: the exchange's driver; nil once ended or closed
	first   *Event        // net/http: an event read while opening, not yet yielded
	err     error         // how it failed
	final   []byte        // the assembled result once it ended well
	metaRaw []byte        // gw's metadata JSON, read as the stream ended or closed
	meta    *ResponseMeta // metaRaw parsed, once Meta asked for it
	early   bool          // closed before its end
	decoded *T
}

func openTyped[T any](ctx context.Context, c *Client, responses bool, req any, opts []CallOption) (*Stream[*T], error) {
	op := streamOp(responses)
	return open(ctx, c, responses, req, opts, func(raw []byte) (*T, error) { return decode[T](op, raw, nil) })
}

func openRaw(ctx context.Context, c *Client, responses bool, req any, opts []CallOption) (*Stream[json.RawMessage], error) {
	return open(ctx, c, responses, req, opts, func(raw []byte) (json.RawMessage, error) { return raw, nil })
}

func streamOp(responses bool) string {
	if responses {
		return "responses stream"
	}
	return "chat stream"
}

func open[T any](ctx context.Context, c *Client, responses bool, req any, opts []CallOption, dec func([]byte) (T, error)) (*Stream[T], error) {
	op := streamOp(responses)
	body, err := requestBody(op, req)
	if err != nil {
		return nil, err
	}
	k, err := c.begin(ctx, op, opts)
	if err != nil {
		return nil, err
	}
	if c.st.hc != nil {
		return openExchange(c, k, responses, body, dec)
	}
	cs, status, out := streamOpen(responses, k.h, body)
	runtime.KeepAlive(c)
	if cs == nil {
		if status == StatusOK {
			status = StatusInternal
		}
		_, err := k.finish(status, out)
		return nil, err
	}
	s := &Stream[T]{c: c, k: k, decode: dec, s: cs}
	runtime.SetFinalizer(s, (*Stream[T]).Close) // a safety net behind Close
	return s, nil
}

// openExchange opens a stream through gw's exchange over net/http: it returns once the
// answer's head came (retries before it included), as the built-in open does.
func openExchange[T any](c *Client, k *call, responses bool, body []byte, dec func([]byte) (T, error)) (*Stream[T], error) {
	path := nulTerminated(opChat.path)
	if responses {
		path = nulTerminated(opResponses.path)
	}
	ex, status, out, first := exchangeOpen(k.h, methodPost, path, body, exchangeStream, &k.st.headerValues)
	if ex == nil {
		_, err := k.finish(failedStatus(status), out)
		return nil, err
	}
	s := &Stream[T]{c: c, k: k, decode: dec, d: openedDriver(k, c.st.hc, ex, true, &first)}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch st := s.d.advance(true); st.want {
	case wantReceive:
	case wantEvent:
		ev := copyEvent(&st.ev)
		s.first = &ev
	default: // over before its events: the failure is the open's
		s.settle()
		if s.err != nil {
			return nil, s.err
		}
		return s, nil
	}
	runtime.KeepAlive(c)
	runtime.SetFinalizer(s, (*Stream[T]).Close) // a safety net behind Close
	return s, nil
}

// Events yields each event, then stops at the stream's end; a failure is yielded once as
// (Event{}, err), with err a *Error (cancelled by ctx: errors.Is(err, context.Canceled)).
// Breaking out of the loop closes the stream.
func (s *Stream[T]) Events() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for {
			ev, more, err := s.next()
			if err != nil {
				yield(Event{}, err)
				return
			}
			if !more {
				return
			}
			if !yield(ev, nil) {
				s.Close()
				return
			}
		}
	}
}

// Text yields only the text deltas, ready to print.
func (s *Stream[T]) Text() iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for ev, err := range s.Events() {
			if err != nil {
				yield("", err)
				return
			}
			if ev.TextDelta != "" && !yield(ev.TextDelta, nil) {
				return
			}
		}
	}
}

// Next is the pull form of Events: the next event, or more=false at the end (err is the
// failure, if it failed).
func (s *Stream[T]) Next() (ev Event, more bool, err error) { return s.next() }

func (s *Stream[T]) next() (Event, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.d != nil {
		if ev := s.first; ev != nil {
			s.first = nil
			return *ev, true, nil
		}
		st := s.d.advance(false)
		runtime.KeepAlive(s)
		if st.want == wantEvent {
			return copyEvent(&st.ev), true, nil
		}
		s.settle()
		return Event{}, false, s.err
	}
	if s.s == nil {
		return Event{}, false, s.err
	}
	ev, status := streamNext(s.s)
	runtime.KeepAlive(s)
	if status == StatusOK {
		return ev, true, nil
	}
	s.settle()
	return Event{}, false, s.err
}

// settle reads the assembled result (or the failure's error JSON) and frees the stream
// and its handle, so a stream read to its end holds nothing. Called with mu held.
func (s *Stream[T]) settle() {
	var status int
	var out []byte
	if s.d != nil {
		s.first = nil
		st := s.d.advance(false)
		for st.want == wantEvent { // Result before the end: the rest is read, not yielded
			st = s.d.advance(false)
		}
		status = StatusInternal
		if st.want == wantDone {
			status, out = s.d.finish()
		}
	} else {
		status, out = streamFinish(s.s)
	}
	if status == StatusOK {
		s.final = out
	} else {
		s.err = s.k.fail(status, out)
	}
	s.release()
}

// release frees the C stream and the call's handle. Called with mu held.
func (s *Stream[T]) release() {
	s.metaRaw = lastResponse(s.k.h) // parsed only if Meta asks: most callers never do
	if s.d != nil {
		s.d.release()
		s.d = nil
	}
	streamFree(s.s)
	s.s = nil
	s.k.end()
	runtime.SetFinalizer(s, nil)
}

// Result is the assembled answer (a chat.completion, or the Responses `response`). Called
// before the end it reads the remaining events first (they are not yielded).
func (s *Stream[T]) Result() (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var zero T
	if s.live() {
		s.settle()
	}
	if s.err != nil {
		return zero, s.err
	}
	if s.early {
		return zero, &Error{Op: s.k.op, Status: StatusCancelled, Message: "Result after Close", cause: ErrStreamClosed}
	}
	if s.decoded != nil {
		return *s.decoded, nil
	}
	v, err := s.decode(s.final)
	if err != nil {
		return zero, err
	}
	s.decoded = &v
	return v, nil
}

// Close ends the stream, mid-way if need be (the connection is dropped), and frees it.
// Idempotent; safe from another goroutine while one is reading.
func (s *Stream[T]) Close() error {
	s.k.cancel(ErrStreamClosed) // wakes a reader blocked in gw; no-op once freed
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live() {
		s.early = true
		s.release()
	}
	return nil
}

// live reports whether the stream still holds gw's stream or exchange. Called with mu held.
func (s *Stream[T]) live() bool { return s.s != nil || s.d != nil }

// Meta is the HTTP metadata of the stream's answer (headers, request id, attempts).
func (s *Stream[T]) Meta() *ResponseMeta {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live() {
		return parseMeta(lastResponse(s.k.h))
	}
	if s.meta == nil {
		s.meta = parseMeta(s.metaRaw)
	}
	return s.meta
}
