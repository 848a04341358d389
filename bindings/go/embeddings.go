package gw

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
)

// EmbeddingRequest is the body of POST /v1/embeddings. Input is a string, []string, a
// token array []int, or [][]int.
type EmbeddingRequest struct {
	Model          string `json:"model"`
	Input          any    `json:"input"`
	EncodingFormat string `json:"encoding_format,omitempty"` // float (default) or base64
	Dimensions     int    `json:"dimensions,omitempty"`
	Extra          Extra  `json:"-"`
}

func (r EmbeddingRequest) MarshalJSON() ([]byte, error) {
	type plain EmbeddingRequest
	return marshalWithExtra(plain(r), r.Extra)
}

// EmbeddingList is the answer of Embeddings.
type EmbeddingList struct {
	Object string      `json:"object"`
	Data   []Embedding `json:"data"`
	Model  string      `json:"model"`
	Usage  *struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage,omitempty"`
	Raw json.RawMessage `json:"-"`
}

func (l *EmbeddingList) setRaw(raw json.RawMessage) { l.Raw = raw }

// Embedding is one input's vector.
type Embedding struct {
	Object    string `json:"object"`
	Index     int    `json:"index"`
	Embedding Vector `json:"embedding"`
}

// Vector holds an embedding as float32s, whichever encoding_format the answer used: a
// JSON array of numbers, or base64 of little-endian float32s (decoded here).
type Vector []float32

func (v *Vector) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		out, err := DecodeEmbedding(s)
		*v = out
		return err
	}
	var f []float32
	err := json.Unmarshal(b, &f)
	*v = f
	return err
}

// DecodeEmbedding decodes a base64 embedding (little-endian float32s).
func DecodeEmbedding(b64 string) ([]float32, error) {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("gw: base64 embedding: %w", err)
	}
	if len(raw)%4 != 0 {
		return nil, fmt.Errorf("gw: base64 embedding: %d bytes is not a whole number of float32s", len(raw))
	}
	out := make([]float32, len(raw)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out, nil
}

// Embeddings sends POST /v1/embeddings.
func (c *Client) Embeddings(ctx context.Context, req EmbeddingRequest, opts ...CallOption) (*EmbeddingList, error) {
	raw, err := c.runJSON(ctx, opEmbeddings, req, opts)
	return decode[EmbeddingList](opEmbeddings.name, raw, err)
}

// EmbeddingsRaw is Embeddings with JSON in and out.
func (c *Client) EmbeddingsRaw(ctx context.Context, req json.RawMessage, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opEmbeddings, req, opts)
}
