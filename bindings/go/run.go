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
	k, err := c.begin(ctx, op, opts)
	if err != nil {
		return nil, err
	}
	status, out := callRequest(k.h, m, p, b)
	runtime.KeepAlive(c)
	return k.finish(status, out)
}
