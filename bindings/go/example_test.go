package gw_test

// Runnable examples: the README's snippets. They use GW_BASE_URL and GW_API_KEY, which
// the test's TestMain points at gw-mock (it echoes the last user message).

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/gw-dev/gw/bindings/go"
)

func ExampleClient_Chat() {
	c, err := gw.NewClient(gw.Options{}) // GW_BASE_URL, GW_API_KEY
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	res, err := c.Chat(context.Background(), gw.ChatRequest{
		Model:       "my-model",
		Messages:    []gw.Message{gw.SystemMessage("Be brief."), gw.UserMessage("Hello!")},
		Temperature: gw.Ptr(0.2),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text())
	fmt.Println(res.Choices[0].FinishReason, res.Usage.TotalTokens)
	// Output:
	// Echo: Hello!
	// stop 5
}

func ExampleClient_ChatStream() {
	c, err := gw.NewClient(gw.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := c.ChatStream(ctx, gw.ChatRequest{
		Model:    "my-model",
		Messages: []gw.Message{gw.UserMessage("Tell me a story")},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for ev, err := range s.Events() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(ev.TextDelta)
	}
	final, err := s.Result() // the assembled chat.completion
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println()
	fmt.Println(final.Choices[0].FinishReason)
	// Output:
	// Echo: Tell me a story
	// stop
}

func ExampleClient_Chat_multimodal() {
	c, err := gw.NewClient(gw.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	res, err := c.Chat(context.Background(), gw.ChatRequest{
		Model: "vision-model",
		Messages: []gw.Message{gw.UserParts(
			gw.TextPart("What happens here?"),
			gw.ImagePart("https://example.com/cat.png"),
			gw.VideoPart("https://example.com/clip.mp4", 1),
		)},
		Extra: gw.Extra{"user": "example"}, // fields gw does not model pass through
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text())
	// Output: Echo: What happens here? [1 image] [1 video]
}

func ExampleClient_Embeddings() {
	c, err := gw.NewClient(gw.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	list, err := c.Embeddings(context.Background(), gw.EmbeddingRequest{
		Model:          "embed-model",
		Input:          []string{"first", "second"},
		EncodingFormat: "base64", // decoded to []float32 for you
		Dimensions:     4,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range list.Data {
		fmt.Println(e.Index, len(e.Embedding))
	}
	// Output:
	// 0 4
	// 1 4
}

func ExampleClient_VideoWait() {
	c, err := gw.NewClient(gw.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	task, err := c.VideoCreate(ctx, gw.VideoRequest{Model: "video-model", Prompt: "A sunrise", Duration: 5})
	if err != nil {
		log.Fatal(err)
	}
	final, err := c.VideoWait(ctx, gw.VideoUnified, task.ID, gw.WaitOptions{
		Interval:   10 * time.Millisecond, // 2 s by default
		OnProgress: func(t *gw.VideoTask) { fmt.Println(t.Status, t.Progress) },
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.HasSuffix(final.VideoURL, ".mp4"))
	// Output:
	// processing 30
	// processing 60
	// succeeded 100
	// true
}

func ExampleError() {
	c, err := gw.NewClient(gw.Options{APIKey: "sk-not-valid"})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	_, err = c.Chat(context.Background(), gw.ChatRequest{Model: "m", Messages: []gw.Message{gw.UserMessage("hi")}})
	var e *gw.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status, e.Type, e.Code)
		fmt.Println(errors.Is(err, gw.ErrAuth), errors.Is(err, gw.ErrRateLimited))
	}
	// Output:
	// 401 authentication_error invalid_api_key
	// true false
}

func ExampleWithResponseMeta() {
	c, err := gw.NewClient(gw.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	var meta gw.ResponseMeta
	_, err = c.Chat(context.Background(),
		gw.ChatRequest{Model: "m", Messages: []gw.Message{gw.UserMessage("hi")}},
		gw.WithResponseMeta(&meta), gw.WithTimeout(30*time.Second), gw.WithHeader("X-Trace", "t-1"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(meta.Status, meta.Attempts)
	// Output: 200 1
}

func ExampleAs() {
	c, err := gw.NewClient(gw.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	task, err := gw.As[gw.VendorHTask](c.VendorHImageToVideo(context.Background(), map[string]any{
		"image_url": "https://example.com/a.png", "prompt": "slow zoom",
	}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(task.Code, task.Data.Status)
	// Output: 0 pending
}
