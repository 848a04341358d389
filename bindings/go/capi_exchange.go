package gw

// The exchange's C ABI (gw_exchange_*), for the net/http driver (drive.go). Like capi.go,
// each C call goes through a static helper that returns everything by value, so no Go
// variable has its address passed to C. Every call here is short: none reads a socket,
// none sleeps. The hot path of a stream is one crossing per body read (feed and step
// together) and one per further event (step and event together).

/*
#include <stdlib.h>
#include <string.h>
#include <gw.h>

typedef struct { int status; gw_exchange *ex; char *err; } gw_go_ex_res;
typedef struct { int want; int64_t wait_ms; gw_event ev; } gw_go_step_res;
typedef struct { int status; size_t taken; gw_go_step_res step; } gw_go_feed_res;
typedef struct { int status; gw_request_view view; } gw_go_view_res;
typedef struct { int status; char *out; } gw_go_finish_res;

static gw_go_ex_res gw_go_exchange_upload(const gw_client *c, const char *req, const gw_file *image,
                                          const gw_file *mask) {
	gw_go_ex_res r = {0, NULL, NULL};
	r.status = gw_exchange_new_image_edit_upload(c, req, image, mask, &r.ex, &r.err);
	return r;
}

static gw_go_ex_res gw_go_exchange_video_wait(const gw_client *c, int family, const char *task_id,
                                              const char *options) {
	gw_go_ex_res r = {0, NULL, NULL};
	r.status = gw_exchange_new_video_wait(c, family, task_id, options, &r.ex, &r.err);
	return r;
}

// A step, with the event when it gives one.
static gw_go_step_res gw_go_step(gw_exchange *ex) {
	gw_go_step_res r;
	memset(&r, 0, sizeof r);
	r.want = gw_exchange_step(ex, &r.wait_ms);
	if (r.want == GW_WANT_EVENT && gw_exchange_event(ex, &r.ev) != GW_OK) r.want = GW_INTERNAL;
	return r;
}

// A call's start in one crossing: the exchange, its first step and, when that step is
// GW_WANT_SEND (it is unless the exchange ended at once), its first request.
typedef struct {
	int status;
	gw_exchange *ex;
	char *err;
	gw_go_step_res step;
	int view_status;
	gw_request_view view;
} gw_go_open_res;

static gw_go_open_res gw_go_exchange_open(const gw_client *c, const char *method, const char *path,
                                          const char *body, int flags) {
	gw_go_open_res r;
	memset(&r, 0, sizeof r);
	r.status = gw_exchange_new(c, method, path, body, flags, &r.ex, &r.err);
	if (r.status != GW_OK) return r;
	r.step = gw_go_step(r.ex);
	if (r.step.want == GW_WANT_SEND) r.view_status = gw_exchange_request(r.ex, &r.view);
	return r;
}

static gw_go_view_res gw_go_request_view(gw_exchange *ex) {
	gw_go_view_res r;
	memset(&r, 0, sizeof r);
	r.status = gw_exchange_request(ex, &r.view);
	return r;
}

// packed holds count headers as "name\0value\0" pairs.
static int gw_go_feed_head(gw_exchange *ex, int status, const char *packed, size_t count) {
	gw_header on_stack[32];
	gw_header *h = count <= 32 ? on_stack : malloc(count * sizeof(gw_header));
	if (!h) return GW_INTERNAL;
	for (size_t i = 0; i < count; i++) {
		h[i].name = packed;
		packed += strlen(packed) + 1;
		h[i].value = packed;
		packed += strlen(packed) + 1;
	}
	int rc = gw_exchange_feed_head(ex, status, h, count);
	if (h != on_stack) free(h);
	return rc;
}

// Feeds the head and steps: one crossing.
static gw_go_feed_res gw_go_feed_head_step(gw_exchange *ex, int status, const char *packed,
                                           size_t count) {
	gw_go_feed_res r;
	memset(&r, 0, sizeof r);
	r.status = gw_go_feed_head(ex, status, packed, count);
	if (r.status == GW_OK) r.step = gw_go_step(ex);
	return r;
}

// Feeds the body's end and steps: one crossing.
static gw_go_feed_res gw_go_feed_end_step(gw_exchange *ex) {
	gw_go_feed_res r;
	memset(&r, 0, sizeof r);
	r.status = gw_exchange_feed_end(ex);
	r.step = gw_go_step(ex);
	return r;
}

// Feeds body bytes and steps: one crossing per read.
static gw_go_feed_res gw_go_feed_body_step(gw_exchange *ex, const uint8_t *bytes, size_t len) {
	gw_go_feed_res r;
	memset(&r, 0, sizeof r);
	r.status = gw_exchange_feed_body(ex, bytes, len, &r.taken);
	r.step = gw_go_step(ex);
	return r;
}

// The outcome, then the exchange freed: a call's end in one crossing (the outcome is
// the caller's, freed with gw_free).
static gw_go_finish_res gw_go_exchange_finish_free(gw_exchange *ex) {
	gw_go_finish_res r = {0, NULL};
	r.status = gw_exchange_finish(ex, &r.out);
	gw_exchange_free(ex);
	return r;
}
*/
import "C"

import (
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"unsafe"
)

// What gw_exchange_step asks for (GW_WANT_*).
const (
	wantSend    = C.GW_WANT_SEND
	wantReceive = C.GW_WANT_RECEIVE
	wantWait    = C.GW_WANT_WAIT
	wantEvent   = C.GW_WANT_EVENT
	wantDone    = C.GW_WANT_DONE

	exchangeStream     = C.GW_EXCHANGE_STREAM
	exchangeEventsOnly = C.GW_EXCHANGE_EVENTS_ONLY
	statusWouldBlock   = C.GW_WOULD_BLOCK
)

// cExchange is one call's exchange (gw_exchange); used by one goroutine at a time.
type cExchange = C.gw_exchange

// stepped is what a step gave: the want, its wait in ms (-1: none) and, for wantEvent,
// the event (its pointers are gw's, valid until the next exchange call).
type stepped struct {
	want   int
	waitMS int64
	ev     C.gw_event
}

// opened is what exchangeOpen gives besides the exchange: its first step and, when that
// step is wantSend, its first request (viewStatus as exchangeRequest's status).
type opened struct {
	step       stepped
	view       requestView
	viewStatus int
}

// exchangeOpen makes the exchange and takes its first step (and request) in one crossing.
func exchangeOpen(h *C.gw_client, method, path, body []byte, flags int, cache *headerValues) (*cExchange, int, []byte, opened) {
	r := C.gw_go_exchange_open(h, cstr(method), cstr(path), cstr(body), C.int(flags))
	runtime.KeepAlive(method)
	runtime.KeepAlive(path)
	runtime.KeepAlive(body)
	if r.ex == nil {
		return nil, int(r.status), takeOut(r.err), opened{}
	}
	liveHandles.Add(1)
	o := opened{step: toStepped(&r.step)}
	if o.step.want == wantSend {
		o.viewStatus = int(r.view_status)
		if r.view_status == C.GW_OK {
			o.view = readView(&r.view, cache)
		}
	}
	return r.ex, int(r.status), nil, o
}

func exchangeUpload(h *C.gw_client, req []byte, image, mask *cFile) (*cExchange, int, []byte) {
	r := C.gw_go_exchange_upload(h, cstr(req), image, mask)
	runtime.KeepAlive(req)
	if r.ex != nil {
		liveHandles.Add(1)
	}
	return r.ex, int(r.status), takeOut(r.err)
}

// exchangeVideoWait makes a video task's wait as an exchange: each poll a request, each
// record an event (its name the task's status), the pauses waits.
func exchangeVideoWait(h *C.gw_client, family VideoFamily, id, options []byte) (*cExchange, int, []byte) {
	r := C.gw_go_exchange_video_wait(h, C.int(family), cstr(id), cstr(options))
	runtime.KeepAlive(id)
	runtime.KeepAlive(options)
	if r.ex != nil {
		liveHandles.Add(1)
	}
	return r.ex, int(r.status), takeOut(r.err)
}

func exchangeFree(ex *cExchange) {
	if ex != nil {
		C.gw_exchange_free(ex)
		liveHandles.Add(-1)
	}
}

func toStepped(r *C.gw_go_step_res) stepped {
	return stepped{want: int(r.want), waitMS: int64(r.wait_ms), ev: r.ev}
}

func exchangeStep(ex *cExchange) stepped {
	r := C.gw_go_step(ex)
	return toStepped(&r)
}

// requestView is the request gw_exchange_request gives, read into Go. The body stays in
// the exchange's memory (pieces point there), and so does url: a view, valid until the
// next exchange call, that requestURL copies when it keeps it.
type requestView struct {
	method string
	url    string
	header http.Header
	pieces []C.gw_bytes
	length int64
}

// cView is a C string seen as a Go string without a copy: valid while gw keeps it.
func cView(p *C.char) string {
	return unsafe.String((*byte)(unsafe.Pointer(p)), cStrlen(p))
}

// knownNames maps the header names gw writes to net/http's canonical form, so the
// common ones cost no allocation per request.
var knownNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{"accept", "authorization", "content-type", "idempotency-key", "user-agent"} {
		m[n] = http.CanonicalHeaderKey(n)
	}
	return m
}()

// methodName is the method as a Go string; the usual two without an allocation.
func methodName(p *C.char) string {
	switch m := cView(p); m {
	case "POST":
		return "POST"
	case "GET":
		return "GET"
	default:
		return strings.Clone(m)
	}
}

// exchangeRequest starts the attempt or hop; status is not StatusOK when the exchange
// ended instead (a deadline, a cancel): step then says wantDone.
func exchangeRequest(ex *cExchange, cache *headerValues) (requestView, int) {
	r := C.gw_go_request_view(ex)
	if r.status != C.GW_OK {
		return requestView{}, int(r.status)
	}
	return readView(&r.view, cache), StatusOK
}

// readView reads gw's request view into Go (the body pieces still point into gw's memory).
func readView(v *C.gw_request_view, cache *headerValues) requestView {
	n := int(v.header_count)
	out := requestView{
		method: methodName(v.method),
		url:    cView(v.url),
		header: make(http.Header, n+1),
		length: int64(v.body_len),
	}
	values := make([]string, n) // one array behind every header's []string
	var last []string
	if p := cache.last.Load(); p != nil {
		last = *p
	}
	for i, h := range unsafe.Slice(v.headers, n) {
		// Names as gw wrote them: net/http sends them canonicalised anyway.
		name, known := knownNames[cView(h.name)]
		if !known {
			name = http.CanonicalHeaderKey(C.GoString(h.name))
		}
		value := cView(h.value)
		if i < len(last) && last[i] == value {
			value = last[i]
		} else {
			value = strings.Clone(value)
		}
		values[i] = value
		if prev, repeated := out.header[name]; repeated {
			out.header[name] = append(prev, value)
		} else {
			out.header[name] = values[i : i+1 : i+1] // capped: an Add elsewhere copies
		}
	}
	cache.last.Store(&values)
	if v.body_count > 0 {
		out.pieces = append([]C.gw_bytes(nil), unsafe.Slice(v.body, int(v.body_count))...)
	}
	return out
}

// headerValues holds the last request's header values as Go strings: a value that comes
// again (the key, the user agent, the content type: all but the idempotency key) is
// that string again, not another copy.
type headerValues struct{ last atomic.Pointer[[]string] }

// exchangeFeedHead feeds the answer's status and headers (each value as its own header,
// a name may repeat). A value holding a NUL cannot be a C string and is left out.
func exchangeFeedHeadStep(ex *cExchange, status int, header http.Header) (int, stepped) {
	packed := make([]byte, 0, 512) // a gateway's usual head fits: one allocation
	count := 0
	for name, values := range header {
		if strings.IndexByte(name, 0) >= 0 {
			continue
		}
		for _, v := range values {
			if strings.IndexByte(v, 0) >= 0 {
				continue
			}
			packed = append(append(append(append(packed, name...), 0), v...), 0)
			count++
		}
	}
	r := C.gw_go_feed_head_step(ex, C.int(status), cstr(packed), C.size_t(count))
	runtime.KeepAlive(packed)
	return int(r.status), toStepped(&r.step)
}

// exchangeFeedBodyStep feeds b and steps; taken is how much of b gw took (all of it
// unless status is statusWouldBlock: step, take the events, feed the rest).
func exchangeFeedBodyStep(ex *cExchange, b []byte) (status, taken int, s stepped) {
	var p *C.uint8_t
	if len(b) > 0 {
		p = (*C.uint8_t)(unsafe.Pointer(&b[0]))
	}
	r := C.gw_go_feed_body_step(ex, p, C.size_t(len(b)))
	runtime.KeepAlive(b)
	return int(r.status), int(r.taken), toStepped(&r.step)
}

// exchangeFeedEndStep feeds the body's end and steps.
func exchangeFeedEndStep(ex *cExchange) stepped {
	r := C.gw_go_feed_end_step(ex)
	return toStepped(&r.step)
}

// exchangeFeedError feeds a transport failure (StatusNetwork, StatusTimeout or
// StatusCancelled); message must hold no key (callers pass net/http's error without its URL).
func exchangeFeedError(ex *cExchange, status int, requestSent bool, message string) int {
	sent := C.int(0)
	if requestSent {
		sent = 1
	}
	m := nulTerminated(message)
	rc := C.gw_exchange_feed_error(ex, C.int(status), sent, cstr(m))
	runtime.KeepAlive(m)
	return int(rc)
}

// exchangeFinishFree reads the outcome and frees the exchange.
func exchangeFinishFree(ex *cExchange) (int, []byte) {
	if ex == nil { // released already: as gw_exchange_finish(NULL) says
		return StatusInvalidArgument, nil
	}
	r := C.gw_go_exchange_finish_free(ex)
	liveHandles.Add(-1)
	return int(r.status), takeOut(r.out)
}

// pieceBytes views one body piece of a request view (C memory, valid until the next
// exchangeRequest or exchangeFree).
func pieceBytes(p C.gw_bytes) []byte {
	if p.len == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(p.data)), int(p.len))
}
