package gw

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestEmbeddingsFloatAndBase64(t *testing.T) {
	c := newClient(t)
	floats, err := c.Embeddings(bg(), EmbeddingRequest{Model: "e", Input: []string{"a b", "c"}, Dimensions: 8})
	if err != nil {
		t.Fatal(err)
	}
	b64, err := c.Embeddings(bg(), EmbeddingRequest{Model: "e", Input: []string{"a b", "c"}, Dimensions: 8, EncodingFormat: "base64"})
	if err != nil {
		t.Fatal(err)
	}
	if len(floats.Data) != 2 || len(b64.Data) != 2 || floats.Object != "list" || floats.Usage == nil {
		t.Fatalf("lists %+v %+v", floats, b64)
	}
	if !strings.Contains(string(b64.Raw), `"embedding":"`) {
		t.Fatalf("the base64 answer was not base64: %s", b64.Raw)
	}
	for i := range floats.Data {
		f, g := floats.Data[i].Embedding, b64.Data[i].Embedding
		if len(f) != 8 || len(g) != 8 {
			t.Fatalf("dimensions %d %d", len(f), len(g))
		}
		for j := range f {
			if math.Abs(float64(f[j]-g[j])) > 1e-6 {
				t.Fatalf("vector %d differs at %d: %v vs %v", i, j, f, g)
			}
		}
	}
	raw, err := c.EmbeddingsRaw(bg(), json.RawMessage(`{"model":"e","input":"x"}`))
	if err != nil || !json.Valid(raw) {
		t.Fatalf("%s %v", raw, err)
	}
}

func TestDecodeEmbedding(t *testing.T) {
	buf := make([]byte, 12)
	for i, f := range []float32{1.5, -2, 0.25} {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(f))
	}
	got, err := DecodeEmbedding(base64.StdEncoding.EncodeToString(buf))
	if err != nil || len(got) != 3 || got[0] != 1.5 || got[1] != -2 || got[2] != 0.25 {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := DecodeEmbedding("not base64!"); err == nil {
		t.Fatal("bad base64 accepted")
	}
	if _, err := DecodeEmbedding(base64.StdEncoding.EncodeToString([]byte{1, 2, 3})); err == nil || !strings.Contains(err.Error(), "3 bytes") {
		t.Fatalf("odd length: %v", err)
	}
}

func TestImageGenerateAndEdit(t *testing.T) {
	c := newClient(t)
	gen, err := c.ImageGenerate(bg(), ImageRequest{Model: "img", Prompt: "a cat", Size: "512x512", Seed: Ptr[int64](7), N: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(gen.Data) != 2 || gen.Data[0].URL == "" || gen.Model != "img" || gen.Usage == nil || gen.Usage.GeneratedImages != 2 {
		t.Fatalf("generate %s", gen.Raw)
	}
	edit, err := c.ImageEdit(bg(), ImageEditRequest{Model: "edit", Prompt: "hat", Image: "https://img.example/cat.png"})
	if err != nil {
		t.Fatal(err)
	}
	if len(edit.Data) == 0 || edit.Data[0].URL == "" || edit.Data[0].RevisedPrompt == "" {
		t.Fatalf("edit %s", edit.Raw)
	}
	_, err = c.ImageGenerate(bg(), ImageRequest{Model: "img", Prompt: "x", Size: "1024x"})
	if e := asError(t, err); e.Status != StatusInvalidArgument || e.Param != "size" {
		t.Fatalf("error %+v", e)
	}
	if raw, err := c.ImageGenerateRaw(bg(), json.RawMessage(`{"model":"i","prompt":"p"}`)); err != nil || !json.Valid(raw) {
		t.Fatalf("%s %v", raw, err)
	}
	if raw, err := c.ImageEditRaw(bg(), json.RawMessage(`{"model":"i","prompt":"p","image":"https://i.example/a.png"}`)); err != nil || !json.Valid(raw) {
		t.Fatalf("%s %v", raw, err)
	}
}

func TestImageEditUpload(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	image := bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 0}, 2000) // NUL bytes included
	mask := []byte("mask-bytes")
	res, err := c.ImageEditUpload(bg(), ImageEditRequest{Model: "edit", Prompt: "add a hat", N: 1, Size: "256x256"},
		File{Name: "cat.png", ContentType: "image/png", Reader: bytes.NewReader(image)},
		&File{Data: mask})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Data) == 0 || res.Data[0].URL == "" {
		t.Fatalf("answer %s", res.Raw)
	}
	parts := map[string]int{}
	r := lastRequest(t)
	for i, p := range r.Multipart {
		parts[p.Name] = i
	}
	img, ok := parts["image"]
	if !ok || r.Multipart[img].Size != len(image) || *r.Multipart[img].Filename != "cat.png" || *r.Multipart[img].ContentType != "image/png" {
		t.Fatalf("image part %+v", r.Multipart)
	}
	if got, _ := base64.StdEncoding.DecodeString(r.Multipart[img].BytesB64); !bytes.Equal(got, image) {
		t.Fatal("image bytes differ")
	}
	m, ok := parts["mask"]
	if !ok || *r.Multipart[m].Filename != "mask.png" || r.Multipart[m].Size != len(mask) {
		t.Fatalf("mask part %+v", r.Multipart)
	}
	if _, ok := parts["prompt"]; !ok {
		t.Fatalf("no prompt field: %+v", r.Multipart)
	}

	raw, err := c.ImageEditUploadRaw(bg(), json.RawMessage(`{"model":"edit","prompt":"p"}`), File{Data: image}, nil)
	if err != nil || !json.Valid(raw) {
		t.Fatalf("%s %v", raw, err)
	}
	// An empty image is refused before sending, naming it.
	_, err = c.ImageEditUpload(bg(), ImageEditRequest{Model: "edit", Prompt: "p"}, File{}, nil)
	if e := asError(t, err); e.Status != StatusInvalidArgument || !strings.Contains(e.Message, "image") {
		t.Fatalf("error %+v", e)
	}
	_, err = c.ImageEditUpload(bg(), ImageEditRequest{Model: "edit", Prompt: "p"}, File{Data: image, Name: "a\x00b"}, nil)
	if e := asError(t, err); e.Status != StatusInvalidArgument || !strings.Contains(e.Message, "image.Name") {
		t.Fatalf("error %+v", e)
	}
	_, err = c.ImageEditUpload(bg(), ImageEditRequest{Model: "edit", Prompt: "p"}, File{Reader: failingReader{}}, nil)
	if e := asError(t, err); e.Status != StatusInvalidArgument || !strings.Contains(e.Message, "reading image") {
		t.Fatalf("error %+v", e)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

// Issue 39: a null member (an Extra entry set to nil) is "not given": the form leaves it
// out instead of sending the text null, which the gateway refuses for an integer n.
func TestImageEditUploadLeavesNullMembersOut(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	req := ImageEditRequest{Model: "edit", Prompt: "sepia", Extra: Extra{"n": nil, "background": nil}}
	if _, err := c.ImageEditUpload(bg(), req, File{Data: []byte("\x89PNG")}, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range lastRequest(t).Multipart {
		if p.Name == "n" || p.Name == "background" {
			t.Fatalf("a null member was sent as a part: %+v", p)
		}
	}
}
