//go:build openai

package main

// go-openai, side by side, where its module can be fetched (scripts/bench-go.sh builds
// with -tags openai when the module proxy answers).

import (
	"context"
	"errors"
	"io"

	goopenai "github.com/sashabaranov/go-openai"
)

func init() {
	clients["go-openai"] = func(mockURL string) (loadClient, error) {
		cfg := goopenai.DefaultConfig(key)
		cfg.BaseURL = mockURL + "/v1"
		c := goopenai.NewClientWithConfig(cfg)
		return loadClient{
			stream: func(ctx context.Context, prompt string) (int, error) {
				s, err := c.CreateChatCompletionStream(ctx, goopenai.ChatCompletionRequest{
					Model:    model,
					Messages: []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: prompt}},
					Stream:   true,
				})
				if err != nil {
					return 0, err
				}
				defer s.Close()
				n := 0
				for {
					chunk, err := s.Recv()
					if errors.Is(err, io.EOF) {
						return n, nil
					}
					if err != nil {
						return n, err
					}
					if len(chunk.Choices) > 0 {
						_ = chunk.Choices[0].Delta.Content
					}
					n++
				}
			},
			chat: func(ctx context.Context) error {
				_, err := c.CreateChatCompletion(ctx, goopenai.ChatCompletionRequest{
					Model:    model,
					Messages: []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: question}},
				})
				return err
			},
			close: func() {},
		}, nil
	}
}
