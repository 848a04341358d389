package gw

// The only place that talks to gw.h. Each C call goes through a small static helper that
// returns status and out-pointers in one struct by value, so no Go variable has its address
// passed to C (that would move it to the heap on every call) and nothing is left in the
// thread-local gw_last_error(), which a goroutine could not read reliably anyway.

/*
#include <stdlib.h>
#include <string.h>
#include <gw.h>

typedef int (*gw_go_json_fn)(const gw_client *, const char *, char **);
typedef int (*gw_go_id_fn)(const gw_client *, const char *, const char *, char **);

typedef struct { int status; char *out; } gw_go_res;
typedef struct { int status; gw_client *client; char *err; } gw_go_client_res;
typedef struct { int status; gw_stream *stream; char *out; } gw_go_stream_res;
typedef struct { int status; const gw_event *event; } gw_go_next_res;

static gw_go_res gw_go_json(gw_go_json_fn fn, const gw_client *c, const char *req) {
	gw_go_res r = {0, NULL};
	r.status = fn(c, req, &r.out);
	return r;
}

static gw_go_res gw_go_id(gw_go_id_fn fn, const gw_client *c, const char *id, const char *req) {
	gw_go_res r = {0, NULL};
	r.status = fn(c, id, req, &r.out);
	return r;
}

static gw_go_res gw_go_video_status(const gw_client *c, int family, const char *id) {
	gw_go_res r = {0, NULL};
	r.status = gw_video_status(c, family, id, &r.out);
	return r;
}

static gw_go_res gw_go_request(const gw_client *c, const char *method, const char *path,
                               const char *body) {
	gw_go_res r = {0, NULL};
	r.status = gw_request(c, method, path, body, &r.out);
	return r;
}

static gw_go_res gw_go_upload(const gw_client *c, const char *req, const gw_file *image,
                              const gw_file *mask) {
	gw_go_res r = {0, NULL};
	r.status = gw_image_edit_upload(c, req, image, mask, &r.out);
	return r;
}

static gw_go_res gw_go_last_response(const gw_client *c) {
	gw_go_res r = {0, NULL};
	r.status = gw_client_last_response(c, &r.out);
	return r;
}

static gw_go_client_res gw_go_create(const char *options) {
	gw_go_client_res r = {0, NULL, NULL};
	r.status = gw_client_create(options, &r.client, &r.err);
	return r;
}

static gw_go_client_res gw_go_derive(const gw_client *base, const char *options) {
	gw_go_client_res r = {0, NULL, NULL};
	r.status = gw_client_create_derived(base, options, &r.client, &r.err);
	return r;
}

static gw_go_stream_res gw_go_stream_open(int responses, const gw_client *c, const char *req) {
	gw_go_stream_res r = {0, NULL, NULL};
	r.status = responses ? gw_responses_stream_open(c, req, &r.stream, &r.out)
	                     : gw_chat_stream_open(c, req, &r.stream, &r.out);
	return r;
}

static gw_go_next_res gw_go_stream_next(gw_stream *s) {
	gw_go_next_res r = {0, NULL};
	r.status = gw_stream_next(s, &r.event);
	return r;
}

static gw_go_res gw_go_stream_finish(gw_stream *s) {
	gw_go_res r = {0, NULL};
	r.status = gw_stream_finish(s, &r.out);
	return r;
}


// Go callbacks (export.go); their prototypes as cgo writes them, without const.
extern int gwGoProgress(char *status, char *task_json, void *user_data);
extern void gwGoLog(int level, char *message, void *user_data);
extern void gwGoAttempt(gw_attempt *attempt, void *user_data);

// A derived handle that reports its attempts to gwGoAttempt (handle: a cgo.Handle).
static gw_go_client_res gw_go_derive_observed(const gw_client *base, const char *options,
                                              uintptr_t handle) {
	gw_go_client_res r = {0, NULL, NULL};
	r.status = gw_client_create_observed(base, options, (gw_attempt_cb)gwGoAttempt,
	                                     (void *)handle, &r.client, &r.err);
	return r;
}

// handle is a runtime/cgo.Handle, made a pointer here so Go never converts an integer
// into an unsafe.Pointer; 0 means no progress callback.
static gw_go_res gw_go_video_wait(const gw_client *c, int family, const char *id,
                                  const char *options, uintptr_t handle) {
	gw_go_res r = {0, NULL};
	r.status = gw_video_wait(c, family, id, options,
	                         handle ? (gw_progress_cb)gwGoProgress : NULL,
	                         (void *)handle, &r.out);
	return r;
}

// A gw_file in C memory; struct_size tells gw which version of the struct this is.
static gw_file *gw_go_file_new(const uint8_t *data, size_t len, const char *name,
                               const char *content_type) {
	gw_file *f = calloc(1, sizeof(gw_file));
	if (!f) return NULL;
	f->struct_size = sizeof(gw_file);
	f->data = data;
	f->len = len;
	f->filename = name;
	f->content_type = content_type;
	return f;
}

static void gw_go_set_logger(int max_level) {
	if (max_level > 0) gw_set_logger((gw_log_cb)gwGoLog, NULL, max_level);
	else gw_set_logger(NULL, NULL, 0);
}
*/
import "C"

import (
	"bytes"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// Status codes of gw.h, for Error.Status (HTTP statuses are their own numbers).
const (
	StatusOK              = C.GW_OK
	StatusInvalidArgument = C.GW_INVALID_ARGUMENT // bad input or a documented limit broken; nothing was sent
	StatusNetwork         = C.GW_NETWORK          // DNS, connect, reset, TLS, refused redirect
	StatusTimeout         = C.GW_TIMEOUT          // a connect, read-idle or total deadline passed
	StatusDecode          = C.GW_DECODE           // the answer is not what the API promises
	StatusCancelled       = C.GW_CANCELLED        // the call was cancelled (context, Close)
	StatusVendor          = C.GW_VENDOR           // a vendor body reports failure, or a polled task failed
	StatusStream          = C.GW_STREAM           // an error event in a stream, or a stream cut short
	StatusTooLarge        = C.GW_TOO_LARGE        // an answer or stream line over the configured cap
	StatusInternal        = C.GW_INTERNAL         // a bug in gw
	statusDone            = C.GW_DONE             // a pull stream ended after its terminal event
)

// liveHandles counts C objects this package holds (clients, derived handles, streams), so
// tests can prove that every path frees what it made.
var liveHandles atomic.Int64

// jsonOp is one of gw.h's `int gw_xxx(client, request_json, &out)` functions.
type jsonOp struct {
	name string // for error messages: "chat", "embeddings", ...
	fn   C.gw_go_json_fn
	path string // its POST path, for the exchange
}

// idOp is one of the functions that take a path id before the body (remix, vendor F,
// generateContent).
type idOp struct {
	name string
	fn   C.gw_go_id_fn
	path pathParam // its POST path, for the exchange
}

var (
	opChat               = jsonOp{"chat", C.gw_go_json_fn(C.gw_chat), "/v1/chat/completions"}
	opResponses          = jsonOp{"responses", C.gw_go_json_fn(C.gw_responses), "/v1/responses"}
	opEmbeddings         = jsonOp{"embeddings", C.gw_go_json_fn(C.gw_embeddings), "/v1/embeddings"}
	opImageGenerate      = jsonOp{"image generate", C.gw_go_json_fn(C.gw_image_generate), "/v1/images/generations"}
	opImageEdit          = jsonOp{"image edit", C.gw_go_json_fn(C.gw_image_edit), "/v1/images/edits"}
	opVideoCreate        = jsonOp{"video create", C.gw_go_json_fn(C.gw_video_create), "/v1/video/create"}
	opVideoGenerate      = jsonOp{"video generate", C.gw_go_json_fn(C.gw_video_generate), "/v1/video/generations"}
	opVideoCharacter     = jsonOp{"video character", C.gw_go_json_fn(C.gw_video_character), "/v1/videos"}
	opVendorKText2Video  = jsonOp{"vendor K text2video", C.gw_go_json_fn(C.gw_vendor_k_text2video), "/vendorK/v1/videos/text2video"}
	opVendorKImage2Video = jsonOp{"vendor K image2video", C.gw_go_json_fn(C.gw_vendor_k_image2video), "/vendorK/v1/videos/image2video"}
	opVendorKMulti       = jsonOp{"vendor K multi-image2video", C.gw_go_json_fn(C.gw_vendor_k_multi_image2video), "/vendorK/v1/videos/multi-image2video"}
	opVendorKEffects     = jsonOp{"vendor K effects", C.gw_go_json_fn(C.gw_vendor_k_effects), "/vendorK/video/effects"}
	opVendorKExtend      = jsonOp{"vendor K extend", C.gw_go_json_fn(C.gw_vendor_k_extend), "/vendorK/video/extend"}
	opVendorHImage2Video = jsonOp{"vendor H image-to-video", C.gw_go_json_fn(C.gw_vendor_h_image_to_video), "/vendorH/image-to-video"}
	opVendorMImagine     = jsonOp{"vendor M imagine", C.gw_go_json_fn(C.gw_vendor_m_imagine), "/vendorM/submit/imagine"}
	opVendorIDescribe    = jsonOp{"vendor I describe", C.gw_go_json_fn(C.gw_vendor_i_describe), "/vendorI/describe"}
	opVendorIGenerate    = jsonOp{"vendor I generate", C.gw_go_json_fn(C.gw_vendor_i_generate), "/vendorI/generate"}
	opVendorITextToImage = jsonOp{"vendor I text-to-image", C.gw_go_json_fn(C.gw_vendor_i_text_to_image), "/vendorI/text-to-image"}

	opVideoRemix      = idOp{"video remix", C.gw_go_id_fn(C.gw_video_remix), pathRemix}
	opVendorFEdit     = idOp{"vendor F edit", C.gw_go_id_fn(C.gw_vendor_f_edit), pathVendorFEdit}
	opGenerateContent = idOp{"generateContent", C.gw_go_id_fn(C.gw_generate_content), pathGenerateContent}
)

// cstr views b, which must end in a NUL byte, as a C string. gw only reads its inputs
// during the call, so Go memory is fine (it holds no Go pointers).
func cstr(b []byte) *C.char {
	if len(b) == 0 {
		return nil
	}
	return (*C.char)(unsafe.Pointer(&b[0]))
}

// nulTerminated copies s with a trailing NUL for cstr.
func nulTerminated(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}

// takeOut copies a gw-owned string into Go memory and frees it.
func takeOut(p *C.char) []byte {
	if p == nil {
		return nil
	}
	b := C.GoBytes(unsafe.Pointer(p), C.int(cStrlen(p)))
	C.gw_free(unsafe.Pointer(p))
	return b
}

func callJSON(op jsonOp, h *C.gw_client, req []byte) (int, []byte) {
	r := C.gw_go_json(op.fn, h, cstr(req))
	runtime.KeepAlive(req)
	return int(r.status), takeOut(r.out)
}

func callID(op idOp, h *C.gw_client, id, req []byte) (int, []byte) {
	r := C.gw_go_id(op.fn, h, cstr(id), cstr(req))
	runtime.KeepAlive(id)
	runtime.KeepAlive(req)
	return int(r.status), takeOut(r.out)
}

func callVideoStatus(h *C.gw_client, family VideoFamily, id []byte) (int, []byte) {
	r := C.gw_go_video_status(h, C.int(family), cstr(id))
	runtime.KeepAlive(id)
	return int(r.status), takeOut(r.out)
}

func callRequest(h *C.gw_client, method, path, body []byte) (int, []byte) {
	r := C.gw_go_request(h, cstr(method), cstr(path), cstr(body))
	runtime.KeepAlive(method)
	runtime.KeepAlive(path)
	runtime.KeepAlive(body)
	return int(r.status), takeOut(r.out)
}

// lastResponse is gw_client_last_response on h: JSON, or nil when nothing finished on h.
func lastResponse(h *C.gw_client) []byte {
	r := C.gw_go_last_response(h)
	out := takeOut(r.out)
	if r.status != C.GW_OK || string(out) == "null" {
		return nil
	}
	return out
}

// createClient is gw_client_create; on failure the error JSON comes back instead.
func createClient(options []byte) (*C.gw_client, int, []byte) {
	r := C.gw_go_create(cstr(options))
	runtime.KeepAlive(options)
	if r.client != nil {
		liveHandles.Add(1)
	}
	return r.client, int(r.status), takeOut(r.err)
}

// deriveClient is gw_client_create_derived: a per-call handle sharing base's pool.
func deriveClient(base *C.gw_client, options []byte) (*C.gw_client, int, []byte) {
	r := C.gw_go_derive(base, cstr(options))
	runtime.KeepAlive(options)
	if r.client != nil {
		liveHandles.Add(1)
	}
	return r.client, int(r.status), takeOut(r.err)
}

// deriveObserved is gw_client_create_observed: deriveClient whose attempts reach the
// *attempts behind handle.
func deriveObserved(base *C.gw_client, options []byte, handle uintptr) (*C.gw_client, int, []byte) {
	r := C.gw_go_derive_observed(base, cstr(options), C.uintptr_t(handle))
	runtime.KeepAlive(options)
	if r.client != nil {
		liveHandles.Add(1)
	}
	return r.client, int(r.status), takeOut(r.err)
}

func freeClient(h *C.gw_client) {
	if h != nil {
		C.gw_client_free(h)
		liveHandles.Add(-1)
	}
}

// cancelClient is gw_client_cancel: safe from any goroutine while h is not freed.
func cancelClient(h *C.gw_client) { C.gw_client_cancel(h) }

func statusName(status int) string { return C.GoString(C.gw_status_str(C.int(status))) }

// Version is the version of the linked gw library, e.g. "0.1.0".
func Version() string { return C.GoString(C.gw_version()) }

func callVideoWait(h *C.gw_client, family VideoFamily, id, options []byte, handle uintptr) (int, []byte) {
	r := C.gw_go_video_wait(h, C.int(family), cstr(id), cstr(options), C.uintptr_t(handle))
	runtime.KeepAlive(id)
	runtime.KeepAlive(options)
	return int(r.status), takeOut(r.out)
}

// cFile is a gw_file in C memory (newFile, freeFile) pointing at bytes that stay in Go
// memory, pinned by the caller (runtime.Pinner): C memory may hold pinned Go pointers.
type cFile = C.gw_file

func newFile(data []byte, name, contentType []byte, pin *runtime.Pinner) *cFile {
	var p, n, ct unsafe.Pointer
	if len(data) > 0 {
		pin.Pin(&data[0])
		p = unsafe.Pointer(&data[0])
	}
	if name != nil {
		pin.Pin(&name[0])
		n = unsafe.Pointer(&name[0])
	}
	if contentType != nil {
		pin.Pin(&contentType[0])
		ct = unsafe.Pointer(&contentType[0])
	}
	return C.gw_go_file_new((*C.uint8_t)(p), C.size_t(len(data)), (*C.char)(n), (*C.char)(ct))
}

func freeFile(f *cFile) { C.free(unsafe.Pointer(f)) }

func callUpload(h *C.gw_client, req []byte, image, mask *cFile) (int, []byte) {
	r := C.gw_go_upload(h, cstr(req), image, mask)
	runtime.KeepAlive(req)
	runtime.KeepAlive(image)
	runtime.KeepAlive(mask)
	return int(r.status), takeOut(r.out)
}

// cStream is an open pull stream.
type cStream = C.gw_stream

func streamOpen(responses bool, h *C.gw_client, req []byte) (*cStream, int, []byte) {
	kind := C.int(0)
	if responses {
		kind = 1
	}
	r := C.gw_go_stream_open(kind, h, cstr(req))
	runtime.KeepAlive(req)
	if r.stream != nil {
		liveHandles.Add(1)
	}
	return r.stream, int(r.status), takeOut(r.out)
}

// streamNext is gw_stream_next; the event is copied into Go memory before gw reuses it.
func streamNext(s *cStream) (Event, int) {
	r := C.gw_go_stream_next(s)
	if r.status != C.GW_OK || r.event == nil {
		return Event{}, int(r.status)
	}
	return copyEvent(r.event), StatusOK
}

// copyEvent makes one allocation per event: data and text delta share a buffer, and the
// common event names are Go constants.
func copyEvent(ev *C.gw_event) Event {
	dataLen := int(ev.data_len)
	textLen := 0
	if ev.text_delta != nil {
		textLen = int(ev.text_delta_len)
	}
	buf := make([]byte, dataLen+textLen)
	copy(buf, unsafe.Slice((*byte)(unsafe.Pointer(ev.data)), dataLen))
	out := Event{
		Name:        eventName(ev.event),
		Data:        buf[:dataLen:dataLen],
		Index:       int(ev.index),
		ChoiceIndex: int(ev.choice_index),
	}
	if textLen > 0 {
		copy(buf[dataLen:], unsafe.Slice((*byte)(unsafe.Pointer(ev.text_delta)), textLen))
		out.TextDelta = unsafe.String(&buf[dataLen], textLen)
	}
	return out
}

// cStrlen is strlen without a cgo call (a crossing costs more than most of gw's strings
// take to scan): bytes.IndexByte, vectorised, over one 4 KiB window at a time, each
// ending at a page boundary, so it never reads a page that holds no byte of the string.
// 4 KiB divides every page size Linux, Darwin and Android use.
func cStrlen(p *C.char) int { return strlenAt(unsafe.Pointer(p)) }

func strlenAt(start unsafe.Pointer) int {
	const window = 4096
	for n := 0; ; {
		size := window - int((uintptr(start)+uintptr(n))%window)
		if i := bytes.IndexByte(unsafe.Slice((*byte)(unsafe.Add(start, n)), size), 0); i >= 0 {
			return n + i
		}
		n += size
	}
}

func eventName(p *C.char) string {
	name := unsafe.Slice((*byte)(unsafe.Pointer(p)), cStrlen(p))
	switch string(name) { // no allocation: the compiler compares in place
	case "message":
		return "message"
	case "response.output_text.delta":
		return "response.output_text.delta"
	case "response.completed":
		return "response.completed"
	case "response.created":
		return "response.created"
	case "response.in_progress":
		return "response.in_progress"
	}
	return string(name)
}

func streamFinish(s *cStream) (int, []byte) {
	r := C.gw_go_stream_finish(s)
	return int(r.status), takeOut(r.out)
}

func streamFree(s *cStream) {
	if s != nil {
		C.gw_stream_free(s)
		liveHandles.Add(-1)
	}
}

func setLogLevel(level int) { C.gw_go_set_logger(C.int(level)) }
