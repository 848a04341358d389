// Command chat streams a chat reply from the gateway and prints it as it arrives.
//
//	GW_BASE_URL=... GW_API_KEY=... go run ./examples/chat "Write a haiku about Go"
//
// GW_CHAT_MODEL picks the model. Ctrl-C cancels the stream mid-way (the context reaches
// gw, which closes the connection).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/gw-dev/gw/bindings/go"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "chat:", err)
		os.Exit(1)
	}
}

func run() error {
	model := os.Getenv("GW_CHAT_MODEL")
	if model == "" {
		model = "my-chat-model"
	}
	prompt := strings.Join(os.Args[1:], " ")
	if prompt == "" {
		prompt = "Say hello to the Go developers reading this."
	}

	c, err := gw.NewClient(gw.Options{}) // GW_BASE_URL and GW_API_KEY
	if err != nil {
		return err
	}
	defer c.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	s, err := c.ChatStream(ctx, gw.ChatRequest{
		Model:    model,
		Messages: []gw.Message{gw.SystemMessage("You are concise."), gw.UserMessage(prompt)},
	})
	if err != nil {
		return err
	}
	defer s.Close()
	for delta, err := range s.Text() {
		if errors.Is(err, context.Canceled) {
			fmt.Println("\n[cancelled]")
			return nil
		}
		if err != nil {
			return err
		}
		fmt.Print(delta)
	}
	fmt.Println()

	final, err := s.Result()
	if err != nil {
		return err
	}
	meta := s.Meta()
	fmt.Printf("[model %s, finish %s", final.Model, final.Choices[0].FinishReason)
	if final.Usage != nil {
		fmt.Printf(", %d tokens", final.Usage.TotalTokens)
	}
	if meta != nil && meta.RequestID != "" {
		fmt.Printf(", request %s", meta.RequestID)
	}
	fmt.Println("]")
	return nil
}
