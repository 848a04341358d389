package gw

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// appendChatRequest writes the usual chat request (text messages, the sampling knobs)
// straight into one buffer, byte for byte what MarshalJSON writes, with the NUL gw's C
// strings end with. encoding/json's reflection, its re-scan of every MarshalJSON's output
// and a dozen allocations cost more than the rest of a small call's Go side; this costs
// one allocation. ok is false for a request it does not write (tools, a response format,
// metadata, Extra, a message with parts, tool calls or Extra): MarshalJSON takes those.
func appendChatRequest(r *ChatRequest) (out []byte, ok bool) {
	if len(r.Tools) > 0 || r.ToolChoice != nil || r.ResponseFormat != nil || len(r.Metadata) > 0 ||
		len(r.Extra) > 0 || r.Messages == nil {
		return nil, false
	}
	size := 64 + len(r.Model) + len(r.User) + len(r.ReasoningEffort)
	for i := range r.Messages {
		m := &r.Messages[i]
		if m.Content.Parts != nil || len(m.ToolCalls) > 0 || len(m.Extra) > 0 {
			return nil, false
		}
		size += 48 + len(m.Role) + len(m.Content.Text) + len(m.ReasoningContent) + len(m.Name) + len(m.ToolCallID)
	}
	for _, s := range r.Stop {
		size += 4 + len(s)
	}
	b := make([]byte, 0, size+size/8)
	b = append(b, `{"model":`...)
	b = appendJSONString(b, r.Model)
	if r.MaxTokens != 0 {
		b = strconv.AppendInt(append(b, `,"max_tokens":`...), int64(r.MaxTokens), 10)
	}
	var fine bool
	if b, fine = appendFloatField(b, `,"temperature":`, r.Temperature); !fine {
		return nil, false
	}
	if b, fine = appendFloatField(b, `,"top_p":`, r.TopP); !fine {
		return nil, false
	}
	if len(r.Stop) > 0 {
		b = append(b, `,"stop":[`...)
		for i, s := range r.Stop {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, s)
		}
		b = append(b, ']')
	}
	if b, fine = appendFloatField(b, `,"frequency_penalty":`, r.FrequencyPenalty); !fine {
		return nil, false
	}
	if b, fine = appendFloatField(b, `,"presence_penalty":`, r.PresencePenalty); !fine {
		return nil, false
	}
	b = appendStringField(b, `,"reasoning_effort":`, r.ReasoningEffort)
	if r.Seed != nil {
		b = strconv.AppendInt(append(b, `,"seed":`...), *r.Seed, 10)
	}
	if r.N != 0 {
		b = strconv.AppendInt(append(b, `,"n":`...), int64(r.N), 10)
	}
	if r.Logprobs {
		b = append(b, `,"logprobs":true`...)
	}
	if r.TopLogprobs != nil {
		b = strconv.AppendInt(append(b, `,"top_logprobs":`...), int64(*r.TopLogprobs), 10)
	}
	if r.ParallelToolCalls != nil {
		b = strconv.AppendBool(append(b, `,"parallel_tool_calls":`...), *r.ParallelToolCalls)
	}
	b = appendStringField(b, `,"user":`, r.User)
	// Last, as marshalReflected writes it (its messages field shadows the embedded one).
	b = append(b, `,"messages":[`...)
	for i := range r.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendTextMessage(b, &r.Messages[i])
	}
	return append(b, ']', '}', 0), true
}

// appendTextMessage writes a message without parts, tool calls or Extra as wireMessage
// encodes it: content null only when the Message says so.
func appendTextMessage(b []byte, m *Message) []byte {
	b = append(b, `{"role":`...)
	b = appendJSONString(b, m.Role)
	if m.Content.null {
		b = append(b, `,"content":null`...)
	} else {
		b = appendJSONString(append(b, `,"content":`...), m.Content.Text)
	}
	b = appendStringField(b, `,"reasoning_content":`, m.ReasoningContent)
	b = appendStringField(b, `,"name":`, m.Name)
	b = appendStringField(b, `,"tool_call_id":`, m.ToolCallID)
	return append(b, '}')
}

// appendStringField writes an omitempty string field.
func appendStringField(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendJSONString(append(b, key...), s)
}

// appendFloatField writes an optional number as encoding/json does (ES6 style: 'f'
// between 1e-6 and 1e21, else 'e' without a padded exponent); fine is false for NaN and
// the infinities, which encoding/json refuses (MarshalJSON then says so).
func appendFloatField(b []byte, key string, f *float64) (out []byte, fine bool) {
	if f == nil {
		return b, true
	}
	v := *f
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return b, false
	}
	b = append(b, key...)
	format := byte('f')
	if abs := math.Abs(v); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' {
		// e-07 → e-7, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// appendJSONString quotes s as encoding/json does. The common bytes are written here:
// printable ASCII but <, >, & (which encoding/json writes as \u003c...), the escapes \"
// \\ \n \r \t, and valid UTF-8 but U+2028 and U+2029. A string with anything else (other
// control bytes, <>&, invalid UTF-8, U+2028/9) is handed whole to encoding/json, so the
// two never differ.
func appendJSONString(b []byte, s string) []byte {
	start := len(b)
	b = append(b, '"')
	for i := 0; i < len(s); {
		run := i
		for run < len(s) && plainJSONByte[s[run]] {
			run++
		}
		b = append(b, s[i:run]...) // a run at a time: most text is one run
		if i = run; i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				return appendMarshalledString(b[:start], s)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return appendMarshalledString(b[:start], s)
		}
		b = append(b, s[i:i+size]...)
		i += size
	}
	return append(b, '"')
}

// plainJSONByte: the ASCII bytes encoding/json writes as they are.
var plainJSONByte = func() (plain [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		plain[c] = true
	}
	for _, c := range []byte{'"', '\\', '<', '>', '&'} {
		plain[c] = false
	}
	return plain
}()

func appendMarshalledString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}
