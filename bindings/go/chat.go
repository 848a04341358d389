package gw

import (
	"context"
	"encoding/json"
)

// Chat sends POST /v1/chat/completions and returns the completion.
func (c *Client) Chat(ctx context.Context, req ChatRequest, opts ...CallOption) (*ChatCompletion, error) {
	raw, err := c.runJSON(ctx, opChat, req, opts)
	return decode[ChatCompletion](opChat.name, raw, err)
}

// ChatRaw is Chat with JSON in and out: fields reach the gateway as given.
func (c *Client) ChatRaw(ctx context.Context, req json.RawMessage, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opChat, req, opts)
}

// ChatStream opens a streamed chat completion (gw sets "stream": true). It returns once
// the answer's headers arrived; read it with Events or Text, then Result for the
// assembled completion. ctx bounds the whole stream. Close it (defer s.Close()).
func (c *Client) ChatStream(ctx context.Context, req ChatRequest, opts ...CallOption) (*Stream[*ChatCompletion], error) {
	return openTyped[ChatCompletion](ctx, c, false, req, opts)
}

// ChatStreamRaw is ChatStream with a JSON request; Result gives the completion as JSON.
func (c *Client) ChatStreamRaw(ctx context.Context, req json.RawMessage, opts ...CallOption) (*Stream[json.RawMessage], error) {
	return openRaw(ctx, c, false, req, opts)
}

// Chunk decodes a chat stream event.
func (e Event) Chunk() (*ChatCompletionChunk, error) {
	return decode[ChatCompletionChunk]("chat stream", e.Data, nil)
}
