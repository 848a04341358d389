package gw

import (
	"errors"
	"io"
	"sync"
)

// errBodyDetached: net/http read a request body after its attempt ended. A transport may
// do that (its write goroutine can outlive RoundTrip when the answer came first); by then
// the exchange may have freed the bytes, so the reader refuses instead.
var errBodyDetached = errors.New("gw: request body read after its attempt ended")

// viewBody is a request body read straight from the exchange's memory (no copy into Go
// first): the pieces of the request view, valid until the exchange's next request or its
// free. detach, called before either, makes every reader of it fail from then on; the
// lock keeps a read in progress from outliving the bytes.
type viewBody struct {
	mu       sync.Mutex
	pieces   [][]byte // C memory
	detached bool
}

func newViewBody(v *requestView) *viewBody {
	b := &viewBody{pieces: make([][]byte, 0, len(v.pieces))}
	for _, p := range v.pieces {
		if bytes := pieceBytes(p); len(bytes) > 0 {
			b.pieces = append(b.pieces, bytes)
		}
	}
	return b
}

func (b *viewBody) detach() {
	b.mu.Lock()
	b.detached = true
	b.pieces = nil
	b.mu.Unlock()
}

// reader is a new reader from the start (http.Request.GetBody asks for one to resend).
func (b *viewBody) reader() io.ReadCloser { return &viewBodyReader{body: b} }

type viewBodyReader struct {
	body  *viewBody
	piece int
	off   int
}

func (r *viewBodyReader) Read(p []byte) (int, error) {
	b := r.body
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.detached {
		return 0, errBodyDetached
	}
	n := 0
	for n < len(p) && r.piece < len(b.pieces) {
		c := copy(p[n:], b.pieces[r.piece][r.off:])
		n += c
		r.off += c
		if r.off == len(b.pieces[r.piece]) {
			r.piece++
			r.off = 0
		}
	}
	if n == 0 && r.piece >= len(b.pieces) {
		return 0, io.EOF
	}
	return n, nil
}

func (r *viewBodyReader) Close() error { return nil }

// bodyBytes copies the view's body pieces into one Go slice.
func (v *requestView) bodyBytes() []byte {
	b := make([]byte, 0, v.length)
	for _, p := range v.pieces {
		b = append(b, pieceBytes(p)...)
	}
	return b
}
