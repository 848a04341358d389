// A program outside the repository, built by scripts/test-go.sh twice: with the default
// static link through a `replace` to the checkout, and with -tags gw_pkgconfig against an
// installed gw. It makes one call and one stream against GW_BASE_URL.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/gw-dev/gw/bindings/go"
)

func main() {
	c, err := gw.NewClient(gw.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer c.Close()
	ctx := context.Background()
	req := gw.ChatRequest{Model: "m", Messages: []gw.Message{gw.UserMessage("from outside")}}
	res, err := c.Chat(ctx, req)
	if err != nil || res.Text() != "Echo: from outside" {
		fmt.Fprintln(os.Stderr, "chat:", res, err)
		os.Exit(1)
	}
	s, err := c.ChatStream(ctx, req)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stream:", err)
		os.Exit(1)
	}
	defer s.Close()
	text := ""
	for delta, err := range s.Text() {
		if err != nil {
			fmt.Fprintln(os.Stderr, "stream:", err)
			os.Exit(1)
		}
		text += delta
	}
	if text != "Echo: from outside" {
		fmt.Fprintf(os.Stderr, "stream text %q\n", text)
		os.Exit(1)
	}
	fmt.Printf("outside program: gw %s, chat and stream ok\n", gw.Version())
}
