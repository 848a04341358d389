package gw

import (
	"bytes"
	"strconv"
)

// A hand-written decoder for EmbeddingList, as chat_decode.go's for chat answers:
// encoding/json took about 300 µs for one 1,536-float embedding, number by number through
// reflection; this reads each number with strconv.ParseFloat(…, 32), which is what
// encoding/json does for a float32, into one slice sized by counting the commas first.
// It declines what it does not read exactly as encoding/json does (jsonReader), a null
// in a vector, or base64 that DecodeEmbedding refuses; decodeAnswer then asks
// encoding/json.

var (
	embeddingListFields = []string{"object", "data", "model", "usage"}
	embeddingFields     = []string{"object", "index", "embedding"}
	embeddingUseFields  = []string{"prompt_tokens", "total_tokens"}
)

// decodeFast reads a whole embeddings answer.
func (l *EmbeddingList) decodeFast(b []byte) bool {
	r := jsonReader{b: b}
	var seen seenFields
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "object":
			return seen.first(0) && r.stringInto(&l.Object)
		case "data":
			return seen.first(1) && r.embeddings(&l.Data)
		case "model":
			return seen.first(2) && r.stringInto(&l.Model)
		case "usage":
			if !seen.first(3) {
				return false
			}
			if r.null() {
				l.Usage = nil
				return true
			}
			u := &struct {
				PromptTokens int `json:"prompt_tokens"`
				TotalTokens  int `json:"total_tokens"`
			}{}
			l.Usage = u
			var inner seenFields
			return r.members(func(key []byte) bool {
				switch string(key) {
				case "prompt_tokens":
					return inner.first(0) && r.intInto(&u.PromptTokens)
				case "total_tokens":
					return inner.first(1) && r.intInto(&u.TotalTokens)
				}
				return r.other(key, embeddingUseFields)
			})
		}
		return r.other(key, embeddingListFields)
	}) && r.atEnd()
}

func (r *jsonReader) embeddings(out *[]Embedding) bool {
	return list(r, out, func(e *Embedding) bool {
		var seen seenFields
		return r.members(func(key []byte) bool {
			switch string(key) {
			case "object":
				return seen.first(0) && r.stringInto(&e.Object)
			case "index":
				return seen.first(1) && r.intInto(&e.Index)
			case "embedding":
				return seen.first(2) && r.vector(&e.Embedding)
			}
			return r.other(key, embeddingFields)
		})
	})
}

// vector reads an embedding: null, an array of numbers, or a base64 string.
func (r *jsonReader) vector(out *Vector) bool {
	switch r.next() {
	case 'n':
		*out = nil
		return r.null()
	case '"':
		s, ok := r.str()
		if !ok {
			return false
		}
		v, err := DecodeEmbedding(s)
		*out = v
		return err == nil // its error is encoding/json's to report
	case '[':
	default:
		return false
	}
	// A vector holds numbers only, so its first ']' ends it: the commas before it size it.
	end := bytes.IndexByte(r.b[r.i:], ']')
	if end < 0 {
		return false
	}
	v := make(Vector, 0, bytes.Count(r.b[r.i:r.i+end], []byte{','})+1)
	ok := r.elements(func() bool {
		r.next()
		start := r.i
		if !r.number() {
			return false
		}
		f, err := strconv.ParseFloat(string(r.b[start:r.i]), 32)
		v = append(v, float32(f))
		return err == nil
	})
	*out = v
	return ok
}
