package gw

import (
	"context"
	"encoding/json"
	"runtime"
)

// runJSON is every `gw_xxx(client, request_json, &out)` call: derive, call, finish.
func (c *Client) runJSON(ctx context.Context, op jsonOp, req any, opts []CallOption) (json.RawMessage, error) {
	body, err := requestBody(op.name, req)
	if err != nil {
		return nil, err
	}
	if c.st.hc != nil {
		return c.exchange(ctx, op.name, methodPost, nulTerminated(op.path), body, opts)
	}
	k, err := c.begin(ctx, op.name, opts)
	if err != nil {
		return nil, err
	}
	status, out := callJSON(op, k.h, body)
	runtime.KeepAlive(c) // the finalizer must not Close the client under a running call
	return k.finish(status, out)
}

// runID is the calls with a path parameter before the body.
func (c *Client) runID(ctx context.Context, op idOp, idName, id string, req any, opts []CallOption) (json.RawMessage, error) {
	idb, err := idArg(op.name, idName, id)
	if err != nil {
		return nil, err
	}
	body, err := requestBody(op.name, req)
	if err != nil {
		return nil, err
	}
	if c.st.hc != nil {
		path, err := op.path.with(op.name, id)
		if err != nil {
			return nil, err
		}
		return c.exchange(ctx, op.name, methodPost, path, body, opts)
	}
	k, err := c.begin(ctx, op.name, opts)
	if err != nil {
		return nil, err
	}
	status, out := callID(op, k.h, idb, body)
	runtime.KeepAlive(c)
	return k.finish(status, out)
}

// Do sends any request: method "GET" or "POST", path from "/" (a query may follow), body
// a value to encode as JSON, json.RawMessage, or nil for none. A documented path gets
// the same checks and answer rules as its named method; auth is placed as the API says.
func (c *Client) Do(ctx context.Context, method, path string, body any, opts ...CallOption) (json.RawMessage, error) {
	const op = "request"
	m, err := idArg(op, "method", method)
	if err != nil {
		return nil, err
	}
	p, err := idArg(op, "path", path)
	if err != nil {
		return nil, err
	}
	var b []byte
	if body != nil {
		if b, err = requestBody(op, body); err != nil {
			return nil, err
		}
	}
	if c.st.hc != nil {
		return c.exchange(ctx, op, m, p, b, opts)
	}
	k, err := c.begin(ctx, op, opts)
	if err != nil {
		return nil, err
	}
	status, out := callRequest(k.h, m, p, b)
	runtime.KeepAlive(c)
	return k.finish(status, out)
}

var (
	methodPost = nulTerminated("POST")
	methodGet  = nulTerminated("GET")
)

// exchange runs one plain call through gw's exchange over net/http: method, path and
// body (nil for none) are NUL-terminated.
func (c *Client) exchange(ctx context.Context, op string, method, path, body []byte, opts []CallOption) (json.RawMessage, error) {
	k, err := c.begin(ctx, op, opts)
	if err != nil {
		return nil, err
	}
	ex, status, out, first := exchangeOpen(k.h, method, path, body, 0, &k.st.headerValues)
	if ex == nil {
		return k.finish(failedStatus(status), out)
	}
	return c.drive(k, openedDriver(k, c.st.hc, ex, false, &first))
}

// drive runs a plain call's exchange to its end and finishes the call.
func (c *Client) drive(k *call, d *driver) (json.RawMessage, error) {
	if s := d.advance(false); s.want != wantDone {
		d.release() // a plain exchange gives no event: this is a bug in gw or here
		return k.finish(StatusInternal, nil)
	}
	status, out := d.finish()
	runtime.KeepAlive(c) // the finalizer must not Close the client under a running call
	return k.finish(status, out)
}

// failedStatus is status, or StatusInternal where gw said OK without the object asked for.
func failedStatus(status int) int {
	if status == StatusOK {
		return StatusInternal
	}
	return status
}
