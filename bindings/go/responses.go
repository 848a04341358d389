package gw

import (
	"context"
	"encoding/json"
	"strings"
)

// ResponsesRequest is the body of POST /v1/responses (the Responses format).
type ResponsesRequest struct {
	Model           string          `json:"model"`
	Input           ResponsesInput  `json:"input"`
	Instructions    string          `json:"instructions,omitempty"`
	Tools           []ResponsesTool `json:"tools,omitempty"`
	Reasoning       *Reasoning      `json:"reasoning,omitempty"`
	MaxOutputTokens int             `json:"max_output_tokens,omitempty"`
	Temperature     *float64        `json:"temperature,omitempty"`
	Extra           Extra           `json:"-"`
}

func (r ResponsesRequest) MarshalJSON() ([]byte, error) {
	type plain ResponsesRequest
	return marshalWithExtra(plain(r), r.Extra)
}

// ResponsesInput is a string or a list of input items.
type ResponsesInput struct {
	Text  string
	Items []InputItem
}

// TextInput and ItemsInput build the two forms of input.
func TextInput(s string) ResponsesInput            { return ResponsesInput{Text: s} }
func ItemsInput(items ...InputItem) ResponsesInput { return ResponsesInput{Items: items} }

func (in ResponsesInput) MarshalJSON() ([]byte, error) {
	if in.Items != nil {
		return json.Marshal(in.Items)
	}
	return json.Marshal(in.Text)
}

// InputItem is one input message: Content a string, or a list of parts such as
// {"type":"input_text","text":...} (any JSON-encodable value).
type InputItem struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
	Extra   Extra  `json:"-"`
}

func (it InputItem) MarshalJSON() ([]byte, error) {
	type plain InputItem
	return marshalWithExtra(plain(it), it.Extra)
}

// ResponsesTool is a tool entry; {Type: "web_search_preview"} enables web search.
type ResponsesTool struct {
	Type  string `json:"type"`
	Extra Extra  `json:"-"`
}

func (t ResponsesTool) MarshalJSON() ([]byte, error) {
	type plain ResponsesTool
	return marshalWithExtra(plain(t), t.Extra)
}

// WebSearchTool is {"type":"web_search_preview"}.
func WebSearchTool() ResponsesTool { return ResponsesTool{Type: "web_search_preview"} }

// Reasoning sets the effort: none, minimal, low, medium, high, xhigh, max. The set is
// open (the upstream adds efforts): gw sends a value it does not know and logs it at debug level.
type Reasoning struct {
	Effort string `json:"effort,omitempty"`
}

// Response is a Responses-format answer (object "response").
type Response struct {
	ID        string          `json:"id"`
	Object    string          `json:"object"`
	CreatedAt int64           `json:"created_at"`
	Status    string          `json:"status"`
	Model     string          `json:"model"`
	Output    []OutputItem    `json:"output"`
	Usage     *ResponsesUsage `json:"usage,omitempty"`
	Raw       json.RawMessage `json:"-"`
}

func (r *Response) setRaw(raw json.RawMessage) { r.Raw = raw }

// OutputText joins the text of every output_text part of every message item.
func (r *Response) OutputText() string {
	var b strings.Builder
	for _, item := range r.Output {
		for _, part := range item.Content {
			if part.Type == "output_text" {
				b.WriteString(part.Text)
			}
		}
	}
	return b.String()
}

// OutputItem is a "message" (Role, Content) or a "web_search_call" (ID, Status).
type OutputItem struct {
	Type    string          `json:"type"`
	ID      string          `json:"id,omitempty"`
	Status  string          `json:"status,omitempty"`
	Role    string          `json:"role,omitempty"`
	Content []OutputContent `json:"content,omitempty"`
}

// OutputContent is a part of an output message, e.g. {Type: "output_text", Text}.
type OutputContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ResponsesUsage counts tokens.
type ResponsesUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

// Responses sends POST /v1/responses.
func (c *Client) Responses(ctx context.Context, req ResponsesRequest, opts ...CallOption) (*Response, error) {
	raw, err := c.runJSON(ctx, opResponses, req, opts)
	return decode[Response](opResponses.name, raw, err)
}

// ResponsesRaw is Responses with JSON in and out.
func (c *Client) ResponsesRaw(ctx context.Context, req json.RawMessage, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opResponses, req, opts)
}

// ResponsesStream opens a streamed Responses answer: TextDelta comes from
// response.output_text.delta, Result is the `response` of response.completed.
func (c *Client) ResponsesStream(ctx context.Context, req ResponsesRequest, opts ...CallOption) (*Stream[*Response], error) {
	return openTyped[Response](ctx, c, true, req, opts)
}

// ResponsesStreamRaw is ResponsesStream with a JSON request.
func (c *Client) ResponsesStreamRaw(ctx context.Context, req json.RawMessage, opts ...CallOption) (*Stream[json.RawMessage], error) {
	return openRaw(ctx, c, true, req, opts)
}
