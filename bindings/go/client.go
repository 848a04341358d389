package gw

/*
#include <gw.h>
*/
import "C"

import (
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
)

// builtinByDefault makes BuiltinTransport the default; set only by this package's test
// suite, so the same tests run through both transports.
var builtinByDefault bool

// Client is a connection to the gateway. It is safe for concurrent use by many
// goroutines; make one per process (or per gateway) and Close it when done. Every call
// runs on a handle derived from it (sharing its connection pool), which is what lets a
// context cancel exactly that call and what keeps each call's metadata its own.
type Client struct {
	st *clientState
}

// clientState is everything but the finalizer's owner: calls reference it, not the
// Client, so an in-flight call never forms a cycle with the object that has the finalizer.
type clientState struct {
	mu     sync.RWMutex // write-held by Close; read-held while deriving a call's handle
	base   *C.gw_client
	closed bool

	callsMu sync.Mutex
	calls   map[*call]struct{} // in flight, for Close to cancel

	limit    *inFlight // Options.MaxInFlight
	observer Observer  // Options.Observer, or nil

	// hc sends the calls (gw's exchange driven over net/http); nil: BuiltinTransport.
	// ownsTransport: gw made hc's transport, so Close closes its idle connections and calls
	// go to it directly (drive.go).
	hc            *http.Client
	ownsTransport bool
	lastURL       atomic.Pointer[parsedURL] // the URL the last call sent to, parsed
	headerValues  headerValues              // the last request's header values (readView)
}

// NewClient creates a client. Empty BaseURL and APIKey come from GW_BASE_URL and
// GW_API_KEY. Bad options give a *Error with StatusInvalidArgument naming the option.
func NewClient(opts Options) (*Client, error) {
	if builtinByDefault && opts.HTTPClient == nil {
		opts.BuiltinTransport = true
	}
	j, err := opts.json()
	if err != nil {
		return nil, argError("new client", "options: %v", err)
	}
	h, status, errJSON := createClient(j)
	if h == nil {
		return nil, newError("new client", failedStatus(status), errJSON)
	}
	hc, owned, err := netHTTPClient(&opts)
	if err != nil {
		freeClient(h)
		return nil, err
	}
	c := &Client{st: &clientState{base: h, calls: map[*call]struct{}{}, limit: newInFlight(opts.inFlightLimit()),
		observer: opts.Observer, hc: hc, ownsTransport: owned}}
	// A safety net only: a Client dropped without Close still frees its handle.
	runtime.SetFinalizer(c, (*Client).Close)
	return c, nil
}

// Close cancels the calls and streams in flight (they return an error matching
// ErrClosed within about 50 ms) and frees the client. Calls after Close fail with
// ErrClosed. Close is idempotent and safe to call concurrently with calls.
func (c *Client) Close() error {
	st := c.st
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		return nil
	}
	st.closed = true
	base := st.base
	st.base = nil
	st.mu.Unlock()
	st.limit.close()

	st.callsMu.Lock()
	inFlight := make([]*call, 0, len(st.calls))
	for k := range st.calls {
		inFlight = append(inFlight, k)
	}
	st.callsMu.Unlock()
	for _, k := range inFlight {
		k.cancel(ErrClosed)
	}
	// gw counts references: a derived handle still in use keeps what it shares alive.
	freeClient(base)
	if st.ownsTransport {
		st.hc.CloseIdleConnections()
	}
	runtime.SetFinalizer(c, nil)
	return nil
}

// String never shows the key.
func (c *Client) String() string { return "gw.Client" }
