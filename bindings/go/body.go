package gw

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// requestBody encodes a request for gw: JSON with a trailing NUL. json.RawMessage, []byte
// and string are taken as JSON text already (a []byte would otherwise become base64).
func requestBody(op string, v any) ([]byte, error) {
	var b []byte
	switch x := v.(type) {
	case nil:
		return nil, argError(op, "request is nil")
	case json.RawMessage:
		b = x
	case []byte:
		b = x
	case string:
		b = []byte(x)
	case interface{ encodeRequest() ([]byte, error) }: // NUL-terminated already
		enc, err := x.encodeRequest()
		if err != nil {
			return nil, argError(op, "request cannot be encoded as JSON: %v", err)
		}
		return enc, nil
	default:
		enc, err := json.Marshal(v)
		if err != nil {
			return nil, argError(op, "request cannot be encoded as JSON: %v", err)
		}
		return append(enc, 0), nil
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return nil, argError(op, "request JSON contains a NUL byte")
	}
	out := make([]byte, len(b)+1)
	copy(out, b)
	return out, nil
}

// idArg is a path parameter as a C string; gw names an empty one itself.
func idArg(op, name, id string) ([]byte, error) {
	if bytes.IndexByte([]byte(id), 0) >= 0 {
		return nil, argError(op, "%s contains a NUL byte", name)
	}
	return nulTerminated(id), nil
}

// Extra carries request fields gw does not model; they are merged into the JSON object
// (a modelled field of the same name wins).
type Extra map[string]any

// marshalWithExtra encodes v (a struct type without its own MarshalJSON) and adds extra.
func marshalWithExtra(v any, extra Extra) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	for k, x := range extra {
		if _, known := fields[k]; known {
			continue
		}
		raw, err := json.Marshal(x)
		if err != nil {
			return nil, fmt.Errorf("Extra[%q]: %w", k, err)
		}
		fields[k] = raw
	}
	return json.Marshal(fields)
}

// decode unmarshals an answer into T and keeps the raw bytes where T wants them.
func decode[T any](op string, raw []byte, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	out := new(T)
	if err := unmarshalAnswer(raw, out); err != nil {
		return nil, &Error{Op: op, Status: StatusDecode, Message: "answer does not decode: " + err.Error(), Body: raw}
	}
	if r, ok := any(out).(interface{ setRaw(json.RawMessage) }); ok {
		r.setRaw(raw)
	}
	return out, nil
}

// unmarshalAnswer is json.Unmarshal into a fresh *out, by the type's hand-written
// decoder where it has one and that takes raw (chat_decode.go).
func unmarshalAnswer[T any](raw []byte, out *T) error {
	if f, ok := any(out).(fastDecoder); ok {
		if f.decodeFast(raw) {
			return nil
		}
		var zero T
		*out = zero // what the fast decoder filled before it declined
	}
	return json.Unmarshal(raw, out)
}

// As decodes a raw answer into T; it takes a call's two results directly:
//
//	task, err := gw.As[gw.VendorHTask](c.VendorHImageToVideo(ctx, req))
func As[T any](raw json.RawMessage, err error) (T, error) {
	var out T
	if err != nil {
		return out, err
	}
	if err := unmarshalAnswer(raw, &out); err != nil {
		return out, &Error{Op: "decode", Status: StatusDecode, Message: "answer does not decode: " + err.Error(), Body: raw}
	}
	if r, ok := any(&out).(interface{ setRaw(json.RawMessage) }); ok {
		r.setRaw(raw)
	}
	return out, nil
}

// Ptr returns a pointer to v, for optional request fields: Temperature: gw.Ptr(0.2).
func Ptr[T any](v T) *T { return &v }
