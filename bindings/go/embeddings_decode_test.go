package gw

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

var takenEmbeddings = []string{
	`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.0023064255,-0.009327292,1e-3,-0,0,3.4028234e38,1.5E-45,12345678901234567890]}],"model":"text-embedding-3-small","usage":{"prompt_tokens":8,"total_tokens":8}}`,
	`{"data":[{"index":1,"embedding":"AACAPwAAAEAAAEBA"},{"index":0,"embedding":[]},{"embedding":null}],"usage":null,"extra":{"a":[1,"]",2]}}`,
	` { "data" : [ { "embedding" : [ 1 , 2 ] } ] } `,
	`{"data":null,"usage":{"prompt_tokens":1,"other":true}}`,
	`{}`,
}

var declinedEmbeddings = []string{
	`{"Data":[]}`,
	`{"data":[],"data":[]}`,
	`{"data":[{"embedding":[1,null,2]}]}`,
	`{"data":[{"embedding":[1e39]}]}`,        // past float32: encoding/json refuses it
	`{"data":[{"embedding":"AAA"}]}`,         // base64 DecodeEmbedding refuses
	`{"data":[{"embedding":"not base64!"}]}`, //
	`{"data":[{"embedding":[1,]}]}`,
	`{"data":[{"embedding":[1 2]}]}`,
	`{"data":[{"embedding":[[1]]}]}`,
	`{"data":[{"embedding":{}}]}`,
	`{"data":[{"embedding":true}]}`,
	`{"data":[{"embedding":[01]}]}`,
	`{"data":[{"embedding":[1`,
	`{"data":[{"index":1.0}]}`,
	`{"usage":{"total_tokens":"8"}}`,
}

func TestEmbeddingDecodeTakesUsualAnswers(t *testing.T) {
	takenAlike[EmbeddingList](t, takenEmbeddings)
	// A vector of the usual size, numbers as a gateway writes them.
	if !decodedAlike[EmbeddingList](t, embeddingAnswer(1536, 41)) {
		t.Error("the decoder declined a 1,536-float embedding")
	}
}

func TestEmbeddingDecodeLeavesTheRestToEncodingJSON(t *testing.T) {
	declinedAlike[EmbeddingList](t, declinedEmbeddings)
}

func TestEmbeddingDecodeMutatedAnswers(t *testing.T) {
	taken := 0
	mutations(append(append([]string{embeddingAnswer(8, 1)}, takenEmbeddings...), declinedEmbeddings...),
		`{}[]:,"\ 0123456789.eE+-nulAQ=/`+"\t\x00\xff", 20000, func(b string) {
			if decodedAlike[EmbeddingList](t, b) {
				taken++
			}
		})
	if taken == 0 {
		t.Fatal("no mutation was taken by the decoder: the test checks nothing")
	}
}

// embeddingAnswer is an answer of one vector of n floats as a gateway writes them.
func embeddingAnswer(n int, seed int64) string {
	rng := rand.New(rand.NewSource(seed))
	var b strings.Builder
	b.WriteString(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%.10g", float32(rng.NormFloat64()*0.03))
	}
	b.WriteString(`]}],"model":"text-embedding-3-small","usage":{"prompt_tokens":8,"total_tokens":8}}`)
	return b.String()
}

// An embedding of 1,536 floats: go test -run X -bench EmbeddingDecode -benchmem
func BenchmarkEmbeddingDecode(b *testing.B) {
	benchDecode[EmbeddingList](b, embeddingAnswer(1536, 41))
}
