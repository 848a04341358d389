package gw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Error is every failure of a gw call: the gateway's error object, a vendor body that
// reports failure, or a client-side condition (timeout, cancel, bad input), with the
// response metadata when the gateway answered.
//
//	var e *gw.Error
//	if errors.As(err, &e) && e.Status == 429 { ... }
//	if errors.Is(err, gw.ErrRateLimited) { ... }
type Error struct {
	Op      string          // the operation, e.g. "chat", "video wait"
	Status  int             // the HTTP status, or a negative Status* code
	Type    string          // error.type, e.g. "rate_limit_error"
	Code    string          // error.code (or a vendor's numeric code as text)
	Message string          // error.message, or a vendor body's message
	Param   string          // the offending field, for limits gw checks before sending
	Body    json.RawMessage // the whole answer: error object, vendor body or failed task record
	Meta    *ResponseMeta   // the HTTP exchange behind it; nil when none finished (e.g. bad input)
	cause   error           // ctx.Err() or ErrClosed, for errors.Is
}

// Sentinels for errors.Is; a *Error matches the ones its Status belongs to.
var (
	ErrRateLimited     = errors.New("gw: rate limited")                 // 429
	ErrAuth            = errors.New("gw: authentication failed")        // 401, 403
	ErrNotFound        = errors.New("gw: not found")                    // 404
	ErrBadRequest      = errors.New("gw: bad request")                  // other 4xx
	ErrServer          = errors.New("gw: server error")                 // 5xx
	ErrInvalidArgument = errors.New("gw: invalid argument")             // StatusInvalidArgument
	ErrNetwork         = errors.New("gw: network error")                // StatusNetwork
	ErrTimeout         = errors.New("gw: timeout")                      // StatusTimeout, or the context's deadline
	ErrCancelled       = errors.New("gw: cancelled")                    // StatusCancelled (context cancelled or Close)
	ErrDecode          = errors.New("gw: unexpected answer")            // StatusDecode
	ErrVendor          = errors.New("gw: vendor reported failure")      // StatusVendor
	ErrStream          = errors.New("gw: stream failed")                // StatusStream
	ErrTooLarge        = errors.New("gw: answer too large")             // StatusTooLarge
	ErrClosed          = errors.New("gw: client closed")                // the Client was closed (before or during the call)
	ErrStreamClosed    = errors.New("gw: stream closed before its end") // Result after an early Close
)

func (e *Error) Error() string {
	var b bytes.Buffer
	b.WriteString("gw: ")
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	if e.Status > 0 {
		b.WriteString(strconv.Itoa(e.Status))
	} else {
		b.WriteString(statusName(e.Status))
	}
	if e.Type != "" || e.Code != "" {
		b.WriteString(" (")
		b.WriteString(e.Type)
		if e.Type != "" && e.Code != "" {
			b.WriteString("/")
		}
		b.WriteString(e.Code)
		b.WriteString(")")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.cause != nil {
		b.WriteString(": ")
		b.WriteString(e.cause.Error())
	}
	return b.String()
}

// Unwrap gives the context's error or ErrClosed when one of them ended the call.
func (e *Error) Unwrap() error { return e.cause }

// Is matches the sentinels by Status.
func (e *Error) Is(target error) bool {
	s := e.Status
	switch target {
	case ErrRateLimited:
		return s == 429
	case ErrAuth:
		return s == 401 || s == 403
	case ErrNotFound:
		return s == 404
	case ErrBadRequest:
		return s >= 400 && s < 500 && s != 401 && s != 403 && s != 404 && s != 429
	case ErrServer:
		return s >= 500
	case ErrInvalidArgument:
		return s == StatusInvalidArgument
	case ErrNetwork:
		return s == StatusNetwork
	case ErrTimeout:
		return s == StatusTimeout
	case ErrCancelled:
		return s == StatusCancelled
	case ErrDecode:
		return s == StatusDecode
	case ErrVendor:
		return s == StatusVendor
	case ErrStream:
		return s == StatusStream
	case ErrTooLarge:
		return s == StatusTooLarge
	}
	return false
}

// StatusName names Status as gw.h does ("GW_TIMEOUT", "GW_HTTP_STATUS" for HTTP ones).
func (e *Error) StatusName() string { return statusName(e.Status) }

// Temporary reports whether trying again later may succeed (gw already retried these
// within the call's budget).
func (e *Error) Temporary() bool {
	return e.Status == 408 || e.Status == 409 || e.Status == 429 || e.Status >= 500 ||
		e.Status == StatusNetwork || e.Status == StatusTimeout
}

// errorShape is what gw and the gateway put in an error answer.
type errorShape struct {
	Error *struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Param   string          `json:"param"`
	} `json:"error"`
	// Vendor bodies: vendor H {code, message}, vendor M {code, description},
	// vendor K failed tasks {data: {task_status_msg}}.
	Message     string          `json:"message"`
	Description string          `json:"description"`
	Code        json.RawMessage `json:"code"`
	Data        *struct {
		TaskStatusMsg string `json:"task_status_msg"`
	} `json:"data"`
	Failure string `json:"failure"` // vendor R failed tasks
}

// newError builds the Error for a failed call from its status and *out.
func newError(op string, status int, body []byte) *Error {
	e := &Error{Op: op, Status: status}
	if len(body) > 0 {
		e.Body = json.RawMessage(body)
		var shape errorShape
		if json.Unmarshal(body, &shape) == nil {
			if shape.Error != nil {
				e.Message, e.Type, e.Param = shape.Error.Message, shape.Error.Type, shape.Error.Param
				e.Code = rawText(shape.Error.Code)
			}
			if e.Code == "" {
				e.Code = rawText(shape.Code)
			}
			switch {
			case e.Message != "":
			case shape.Message != "":
				e.Message = shape.Message
			case shape.Description != "":
				e.Message = shape.Description
			case shape.Data != nil && shape.Data.TaskStatusMsg != "":
				e.Message = shape.Data.TaskStatusMsg
			case shape.Failure != "":
				e.Message = shape.Failure
			}
		}
	}
	return e
}

// rawText is a JSON string's text, or a number's digits; "" for null or absent.
func rawText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// withCause records why a call was cut short. A deadline shows as a timeout and a
// cancellation as cancelled, whatever gw saw first, so Status and errors.Is agree.
func (e *Error) withCause(cause error) *Error {
	e.cause = cause
	switch {
	case errors.Is(cause, context.DeadlineExceeded):
		e.Status = StatusTimeout
	case errors.Is(cause, context.Canceled), errors.Is(cause, ErrClosed):
		e.Status = StatusCancelled
	}
	return e
}

// argError is a bad argument found on the Go side, before anything is sent.
func argError(op, format string, args ...any) *Error {
	return &Error{Op: op, Status: StatusInvalidArgument, Type: "invalid_request_error",
		Code: "invalid_argument", Message: fmt.Sprintf(format, args...)}
}
