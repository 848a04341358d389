package gw

import "strconv"

// Hand-written decoders for the answers every chat call decodes: a ChatCompletion and a
// ChatCompletionChunk. encoding/json's reflection cost a small call more than the rest
// of its Go side (about 30,000 instructions for a 284-byte completion); these read the
// usual answer in one pass. Each gives the value encoding/json gives or declines
// (false): a field in another case or twice, a content of parts, logprobs, a number or
// string it does not read exactly (jsonReader). decodeAnswer then asks encoding/json,
// so what it declines decodes as before, errors included.

// fastDecoder is an answer type with a hand-written decoder.
type fastDecoder interface {
	decodeFast(b []byte) bool
}

// seenFields marks the fields an object held: a second one goes to encoding/json,
// which would merge it into the first.
type seenFields uint32

func (s *seenFields) first(field uint) bool {
	if *s&(1<<field) != 0 {
		return false
	}
	*s |= 1 << field
	return true
}

// Each type's JSON names, for foldsToField.
var (
	completionFields   = []string{"id", "object", "created", "model", "choices", "usage", "system_fingerprint"}
	choiceFields       = []string{"index", "message", "finish_reason", "logprobs"}
	chunkChoiceFields  = []string{"index", "delta", "finish_reason", "logprobs"}
	messageFields      = []string{"role", "content", "reasoning_content", "name", "tool_calls", "tool_call_id"}
	deltaFields        = []string{"role", "content", "reasoning_content", "tool_calls"}
	toolCallFields     = []string{"index", "id", "type", "function"}
	functionCallFields = []string{"name", "arguments"}
	usageFields        = []string{"prompt_tokens", "completion_tokens", "total_tokens", "completion_tokens_details"}
	usageDetailFields  = []string{"reasoning_tokens"}
)

// list reads an array into *out (null makes it nil, [] empty, as encoding/json does),
// element reading each entry in place.
func list[T any](r *jsonReader, out *[]T, element func(*T) bool) bool {
	if r.null() {
		*out = nil
		return true
	}
	items := make([]T, 0, 1)
	ok := r.elements(func() bool {
		var zero T
		items = append(items, zero)
		return element(&items[len(items)-1])
	})
	*out = items
	return ok
}

// other skips a member no field takes, as encoding/json does; it declines one that a
// field would take in another case.
func (r *jsonReader) other(key []byte, fields []string) bool {
	return !foldsToField(key, fields...) && r.skip(0)
}

// decodeFast reads a whole chat completion.
func (c *ChatCompletion) decodeFast(b []byte) bool {
	r := jsonReader{b: b}
	var seen seenFields
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "id":
			return seen.first(0) && r.stringInto(&c.ID)
		case "object":
			return seen.first(1) && r.stringInto(&c.Object)
		case "created":
			return seen.first(2) && r.int64Into(&c.Created)
		case "model":
			return seen.first(3) && r.stringInto(&c.Model)
		case "choices":
			return seen.first(4) && r.choices(&c.Choices)
		case "usage":
			return seen.first(5) && r.usage(&c.Usage)
		case "system_fingerprint":
			return seen.first(6) && r.stringInto(&c.SystemFingerprint)
		}
		return r.other(key, completionFields)
	}) && r.atEnd()
}

// decodeFast reads a whole chat stream event.
func (c *ChatCompletionChunk) decodeFast(b []byte) bool {
	r := jsonReader{b: b}
	var seen seenFields
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "id":
			return seen.first(0) && r.stringInto(&c.ID)
		case "object":
			return seen.first(1) && r.stringInto(&c.Object)
		case "created":
			return seen.first(2) && r.int64Into(&c.Created)
		case "model":
			return seen.first(3) && r.stringInto(&c.Model)
		case "choices":
			return seen.first(4) && r.chunkChoices(&c.Choices)
		case "usage":
			return seen.first(5) && r.usage(&c.Usage)
		}
		return r.other(key, completionFields[:6])
	}) && r.atEnd()
}

func (r *jsonReader) choices(out *[]Choice) bool {
	return list(r, out, func(ch *Choice) bool {
		var seen seenFields
		return r.members(func(key []byte) bool {
			switch string(key) {
			case "index":
				return seen.first(0) && r.intInto(&ch.Index)
			case "message":
				return seen.first(1) && r.message(&ch.Message)
			case "finish_reason":
				return seen.first(2) && r.stringInto(&ch.FinishReason)
			case "logprobs":
				return seen.first(3) && r.null() // logprobs given: encoding/json reads them
			}
			return r.other(key, choiceFields)
		})
	})
}

func (r *jsonReader) chunkChoices(out *[]ChunkChoice) bool {
	return list(r, out, func(ch *ChunkChoice) bool {
		var seen seenFields
		return r.members(func(key []byte) bool {
			switch string(key) {
			case "index":
				return seen.first(0) && r.intInto(&ch.Index)
			case "delta":
				return seen.first(1) && r.delta(&ch.Delta)
			case "finish_reason":
				if !seen.first(2) {
					return false
				}
				if r.null() {
					return true
				}
				s, ok := r.str()
				ch.FinishReason = &s
				return ok
			case "logprobs":
				return seen.first(3) && r.null()
			}
			return r.other(key, chunkChoiceFields)
		})
	})
}

// message reads a message into m (null leaves it as it is, as encoding/json does).
func (r *jsonReader) message(m *Message) bool {
	if r.null() {
		return true
	}
	var seen seenFields
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "role":
			return seen.first(0) && r.stringInto(&m.Role)
		case "content":
			if !seen.first(1) {
				return false
			}
			if r.null() {
				m.Content = Content{}
				return true
			}
			if r.next() != '"' { // parts, or what Content.UnmarshalJSON refuses
				return false
			}
			s, ok := r.str()
			m.Content = Content{Text: s}
			return ok
		case "reasoning_content":
			return seen.first(2) && r.stringInto(&m.ReasoningContent)
		case "name":
			return seen.first(3) && r.stringInto(&m.Name)
		case "tool_calls":
			return seen.first(4) && r.toolCalls(&m.ToolCalls)
		case "tool_call_id":
			return seen.first(5) && r.stringInto(&m.ToolCallID)
		}
		return r.other(key, messageFields)
	})
}

func (r *jsonReader) delta(d *Delta) bool {
	if r.null() {
		return true
	}
	var seen seenFields
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "role":
			return seen.first(0) && r.stringInto(&d.Role)
		case "content":
			return seen.first(1) && r.stringInto(&d.Content)
		case "reasoning_content":
			return seen.first(2) && r.stringInto(&d.ReasoningContent)
		case "tool_calls":
			return seen.first(3) && r.toolCalls(&d.ToolCalls)
		}
		return r.other(key, deltaFields)
	})
}

func (r *jsonReader) toolCalls(out *[]ToolCall) bool {
	return list(r, out, func(tc *ToolCall) bool {
		var seen seenFields
		return r.members(func(key []byte) bool {
			switch string(key) {
			case "index":
				if !seen.first(0) {
					return false
				}
				if r.null() {
					return true
				}
				n := new(int)
				tc.Index = n
				return r.intInto(n)
			case "id":
				return seen.first(1) && r.stringInto(&tc.ID)
			case "type":
				return seen.first(2) && r.stringInto(&tc.Type)
			case "function":
				return seen.first(3) && r.functionCall(&tc.Function)
			}
			return r.other(key, toolCallFields)
		})
	})
}

func (r *jsonReader) functionCall(f *FunctionCall) bool {
	if r.null() {
		return true
	}
	var seen seenFields
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "name":
			return seen.first(0) && r.stringInto(&f.Name)
		case "arguments":
			return seen.first(1) && r.stringInto(&f.Arguments)
		}
		return r.other(key, functionCallFields)
	})
}

func (r *jsonReader) usage(out **Usage) bool {
	if r.null() {
		*out = nil
		return true
	}
	u := new(Usage)
	*out = u
	var seen seenFields
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "prompt_tokens":
			return seen.first(0) && r.intInto(&u.PromptTokens)
		case "completion_tokens":
			return seen.first(1) && r.intInto(&u.CompletionTokens)
		case "total_tokens":
			return seen.first(2) && r.intInto(&u.TotalTokens)
		case "completion_tokens_details":
			if !seen.first(3) {
				return false
			}
			if r.null() {
				return true
			}
			d := &struct {
				ReasoningTokens int `json:"reasoning_tokens"`
			}{}
			u.CompletionTokensDetails = d
			var inner seenFields
			return r.members(func(key []byte) bool {
				if string(key) == "reasoning_tokens" {
					return inner.first(0) && r.intInto(&d.ReasoningTokens)
				}
				return r.other(key, usageDetailFields)
			})
		}
		return r.other(key, usageFields)
	})
}

// stringInto reads a string or null (which leaves *dst as it is, as encoding/json does).
func (r *jsonReader) stringInto(dst *string) bool {
	if r.null() {
		return true
	}
	s, ok := r.str()
	*dst = s
	return ok
}

func (r *jsonReader) intInto(dst *int) bool {
	if r.null() {
		return true
	}
	v, ok := r.integer(strconv.IntSize)
	*dst = int(v)
	return ok
}

func (r *jsonReader) int64Into(dst *int64) bool {
	if r.null() {
		return true
	}
	v, ok := r.integer(64)
	*dst = v
	return ok
}
