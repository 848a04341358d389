package gw

import (
	"bytes"
	"encoding/json"
)

// ChatRequest is the body of POST /v1/chat/completions. Optional numbers are pointers so
// 0 can be sent: Temperature: gw.Ptr(0.0). Fields gw does not model go in Extra.
type ChatRequest struct {
	Model            string    `json:"model"`
	Messages         []Message `json:"messages"`
	MaxTokens        int       `json:"max_tokens,omitempty"`
	Temperature      *float64  `json:"temperature,omitempty"`
	TopP             *float64  `json:"top_p,omitempty"`
	Stop             []string  `json:"stop,omitempty"`
	FrequencyPenalty *float64  `json:"frequency_penalty,omitempty"`
	PresencePenalty  *float64  `json:"presence_penalty,omitempty"`
	ReasoningEffort  string    `json:"reasoning_effort,omitempty"` // none, minimal, low, medium, high, xhigh, max; a newer one is sent too
	Tools            []Tool    `json:"tools,omitempty"`
	ToolChoice       any       `json:"tool_choice,omitempty"` // "auto", "none", or an object

	ResponseFormat    *ResponseFormat   `json:"response_format,omitempty"` // TextFormat, JSONObjectFormat, JSONSchemaFormat
	Seed              *int64            `json:"seed,omitempty"`            // best-effort determinism
	N                 int               `json:"n,omitempty"`               // choices to generate (0: the gateway's default, 1)
	Logprobs          bool              `json:"logprobs,omitempty"`        // return each token's log probability
	TopLogprobs       *int              `json:"top_logprobs,omitempty"`    // 0 to 20 alternatives per token; needs Logprobs
	ParallelToolCalls *bool             `json:"parallel_tool_calls,omitempty"`
	User              string            `json:"user,omitempty"`     // your end user's id, for abuse monitoring
	Metadata          map[string]string `json:"metadata,omitempty"` // tags stored with the request

	Extra Extra `json:"-"`
}

// ResponseFormat asks for plain text, any JSON object, or JSON matching a schema.
type ResponseFormat struct {
	Type       string      `json:"type"` // "text", "json_object", "json_schema"
	JSONSchema *JSONSchema `json:"json_schema,omitempty"`
}

// JSONSchema is the schema of a "json_schema" ResponseFormat.
type JSONSchema struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Schema      any    `json:"schema,omitempty"` // a map, a struct or json.RawMessage
	Strict      *bool  `json:"strict,omitempty"`
}

// TextFormat asks for plain text (the default).
func TextFormat() *ResponseFormat { return &ResponseFormat{Type: "text"} }

// JSONObjectFormat asks for a JSON object (say so in the prompt too).
func JSONObjectFormat() *ResponseFormat { return &ResponseFormat{Type: "json_object"} }

// JSONSchemaFormat asks for JSON matching schema (a map, a struct or json.RawMessage);
// strict asks the model to follow it exactly.
func JSONSchemaFormat(name string, schema any, strict bool) *ResponseFormat {
	return &ResponseFormat{Type: "json_schema", JSONSchema: &JSONSchema{Name: name, Schema: schema, Strict: &strict}}
}

func (r ChatRequest) MarshalJSON() ([]byte, error) {
	if b, ok := appendChatRequest(&r); ok {
		return b[:len(b)-1], nil // without the NUL
	}
	return r.marshalReflected()
}

// marshalReflected is MarshalJSON through encoding/json, for every request.
func (r ChatRequest) marshalReflected() ([]byte, error) {
	type plain ChatRequest
	// The messages go as plain structs: encoding/json re-scans and compacts what each
	// MarshalJSON returns, at every level, and that cost more than the rest of a small
	// call's encoding (and a good share of its CPU).
	return marshalWithExtra(struct {
		plain
		Messages any `json:"messages"` // hides plain.Messages
	}{plain(r), wireMessages(r.Messages)}, r.Extra)
}

// encodeRequest is requestBody's fast path, NUL-terminated: the usual request written by
// hand (appendChatRequest), any other without encoding/json's compaction pass over the
// whole body.
func (r ChatRequest) encodeRequest() ([]byte, error) {
	if b, ok := appendChatRequest(&r); ok {
		return b, nil
	}
	b, err := r.marshalReflected()
	return append(b, 0), err
}

// wireMessage is a Message as Message.MarshalJSON writes it, without the method.
type wireMessage struct {
	Role             string     `json:"role"`
	Content          any        `json:"content"` // string, []Part, or nil for null
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	Name             string     `json:"name,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
}

// wireMessages is messages for encoding: []wireMessage, or, when a message has Extra to
// merge, []any holding that Message itself among the others.
func wireMessages(messages []Message) any {
	if messages == nil {
		return nil
	}
	plain := make([]wireMessage, len(messages))
	var mixed []any
	for i := range messages {
		m := &messages[i]
		if len(m.Extra) > 0 && mixed == nil {
			mixed = make([]any, len(messages))
			for j := range i {
				mixed[j] = plain[j]
			}
		}
		if len(m.Extra) > 0 {
			mixed[i] = *m
			continue
		}
		w := &plain[i]
		*w = wireMessage{Role: m.Role, ReasoningContent: m.ReasoningContent, Name: m.Name,
			ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID}
		switch {
		case m.Content.null, m.Content.isEmpty() && len(m.ToolCalls) > 0:
			w.Content = nil
		case m.Content.Parts != nil:
			w.Content = m.Content.Parts
		default:
			w.Content = m.Content.Text
		}
		if mixed != nil {
			mixed[i] = *w
		}
	}
	if mixed != nil {
		return mixed
	}
	return plain
}

// Message is one chat turn. Content is text or parts; an assistant turn that only calls
// tools has empty Content and ToolCalls.
type Message struct {
	Role             string     `json:"role"` // system, user, assistant, tool
	Content          Content    `json:"content"`
	ReasoningContent string     `json:"reasoning_content,omitempty"` // answers only, when the model shows it
	Name             string     `json:"name,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"` // role "tool": the call answered
	Extra            Extra      `json:"-"`
}

func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message
	p := plain(m)
	if m.Content.isEmpty() && len(m.ToolCalls) > 0 {
		p.Content = Content{null: true}
	}
	return marshalWithExtra(p, m.Extra)
}

// SystemMessage, UserMessage and AssistantMessage are text turns.
func SystemMessage(text string) Message    { return Message{Role: "system", Content: Text(text)} }
func UserMessage(text string) Message      { return Message{Role: "user", Content: Text(text)} }
func AssistantMessage(text string) Message { return Message{Role: "assistant", Content: Text(text)} }

// UserParts is a multimodal user turn: gw.UserParts(gw.TextPart("what is this?"), gw.ImagePart(url)).
func UserParts(parts ...Part) Message { return Message{Role: "user", Content: Parts(parts...)} }

// ToolMessage answers the tool call with id callID.
func ToolMessage(callID, content string) Message {
	return Message{Role: "tool", ToolCallID: callID, Content: Text(content)}
}

// Content is a message's content: a string, or an array of parts.
type Content struct {
	Text  string // used when Parts is nil
	Parts []Part
	null  bool
}

// Text is string content; Parts is multimodal content.
func Text(s string) Content       { return Content{Text: s} }
func Parts(parts ...Part) Content { return Content{Parts: parts} }
func (c Content) isEmpty() bool   { return c.Parts == nil && c.Text == "" }
func (c Content) String() string  { return c.AllText() }

// AllText is the text of the content: the string, or its text parts joined.
func (c Content) AllText() string {
	if c.Parts == nil {
		return c.Text
	}
	var b bytes.Buffer
	for _, p := range c.Parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func (c Content) MarshalJSON() ([]byte, error) {
	switch {
	case c.null:
		return []byte("null"), nil
	case c.Parts != nil:
		return json.Marshal(c.Parts)
	}
	return json.Marshal(c.Text)
}

func (c *Content) UnmarshalJSON(b []byte) error {
	*c = Content{}
	switch {
	case string(b) == "null":
		return nil
	case len(b) > 0 && b[0] == '[':
		c.Parts = []Part{}
		return json.Unmarshal(b, &c.Parts)
	}
	return json.Unmarshal(b, &c.Text)
}

// Part is one piece of multimodal content: type "text", "image_url" or "video_url".
type Part struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
	VideoURL *VideoURL `json:"video_url,omitempty"`
	Extra    Extra     `json:"-"`
}

func (p Part) MarshalJSON() ([]byte, error) {
	type plain Part
	if p.Type == "text" && p.Text == "" {
		// omitempty would drop it and the part would lack its required text.
		return marshalWithExtra(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{p.Type, p.Text}, p.Extra)
	}
	return marshalWithExtra(plain(p), p.Extra)
}

// ImageURL is an image by URL or Base64 data URI.
type ImageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// VideoURL is a video (mp4 or mov, at most 50 MB) by URL or data URI; FPS 0.2 to 5 (0: default 1).
type VideoURL struct {
	URL string  `json:"url"`
	FPS float64 `json:"fps,omitempty"`
}

func TextPart(text string) Part { return Part{Type: "text", Text: text} }
func ImagePart(url string) Part { return Part{Type: "image_url", ImageURL: &ImageURL{URL: url}} }
func VideoPart(url string, fps float64) Part {
	return Part{Type: "video_url", VideoURL: &VideoURL{URL: url, FPS: fps}}
}

// Tool is a tool the model may call; FunctionTool builds the usual kind.
type Tool struct {
	Type     string       `json:"type"` // "function"
	Function *FunctionDef `json:"function,omitempty"`
	Extra    Extra        `json:"-"`
}

func (t Tool) MarshalJSON() ([]byte, error) {
	type plain Tool
	return marshalWithExtra(plain(t), t.Extra)
}

// FunctionDef declares a function: Parameters is a JSON Schema (a map, a struct or json.RawMessage).
type FunctionDef struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Parameters  any    `json:"parameters,omitempty"`
	Strict      *bool  `json:"strict,omitempty"`
}

// FunctionTool declares a callable function.
func FunctionTool(name, description string, parameters any) Tool {
	return Tool{Type: "function", Function: &FunctionDef{Name: name, Description: description, Parameters: parameters}}
}

// ToolCall is the model asking for a function call. In stream chunks Index says which
// call a fragment continues, and Arguments arrives in pieces.
type ToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its arguments as JSON text.
type FunctionCall struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

// ChatCompletion is the answer of Chat, and the assembled result of a chat stream.
type ChatCompletion struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	Choices           []Choice        `json:"choices"`
	Usage             *Usage          `json:"usage,omitempty"`
	SystemFingerprint string          `json:"system_fingerprint,omitempty"`
	Raw               json.RawMessage `json:"-"` // the whole answer, for fields gw does not model
}

func (c *ChatCompletion) setRaw(raw json.RawMessage) { c.Raw = raw }

// Text is the first choice's text ("" when there is none).
func (c *ChatCompletion) Text() string {
	if len(c.Choices) == 0 {
		return ""
	}
	return c.Choices[0].Message.Content.AllText()
}

// Choice is one alternative answer.
type Choice struct {
	Index        int       `json:"index"`
	Message      Message   `json:"message"`
	FinishReason string    `json:"finish_reason"`      // stop, length, tool_calls
	Logprobs     *Logprobs `json:"logprobs,omitempty"` // with ChatRequest.Logprobs
}

// Logprobs are the log probabilities of a choice's tokens.
type Logprobs struct {
	Content []TokenLogprob `json:"content"`
	Refusal []TokenLogprob `json:"refusal,omitempty"`
}

// TokenLogprob is one token of the answer, with the likeliest alternatives when
// ChatRequest.TopLogprobs asked for them.
type TokenLogprob struct {
	Token       string       `json:"token"`
	Logprob     float64      `json:"logprob"`
	Bytes       []int        `json:"bytes,omitempty"` // the token's UTF-8 bytes
	TopLogprobs []TopLogprob `json:"top_logprobs,omitempty"`
}

// TopLogprob is one alternative for a token.
type TopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
	Bytes   []int   `json:"bytes,omitempty"`
}

// Usage counts tokens.
type Usage struct {
	PromptTokens            int `json:"prompt_tokens"`
	CompletionTokens        int `json:"completion_tokens"`
	TotalTokens             int `json:"total_tokens"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details,omitempty"`
}

// ChatCompletionChunk is one streamed chat event (Event.Chunk decodes it).
type ChatCompletionChunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []ChunkChoice `json:"choices"`
	Usage   *Usage        `json:"usage,omitempty"`
}

// ChunkChoice is one choice's fragment; FinishReason is nil until its last chunk.
type ChunkChoice struct {
	Index        int       `json:"index"`
	Delta        Delta     `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
	Logprobs     *Logprobs `json:"logprobs,omitempty"`
}

// Delta is what a chunk adds to a choice.
type Delta struct {
	Role             string     `json:"role,omitempty"`
	Content          string     `json:"content,omitempty"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
}
