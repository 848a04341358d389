// Package gw is the Go binding of gw, the client for the Unified Generative-Model Gateway:
// chat (plain, streamed, multimodal, tools), the Responses format, embeddings, image
// generation and edits (uploads included), the video task families with polling, the
// vendor operations, the native generateContent format, and any path through Do.
//
// It is a thin layer over gw's C ABI (gw.h), linked statically by default: retries,
// timeouts, limit checks, streaming and SSE parsing run in the gw library, so behaviour is
// the same as in C, Kotlin, Python or Swift. The network I/O is Go's net/http by default
// (Options.HTTPClient brings your own), driving gw's sans-IO exchange: a call waiting on
// the network is a parked goroutine, not an OS thread; Options.BuiltinTransport selects
// gw's own transport instead. A Client is safe for concurrent use; each call takes a
// context.Context, whose cancellation and deadline reach the call in gw.
//
//	c, err := gw.NewClient(gw.Options{}) // GW_BASE_URL, GW_API_KEY
//	if err != nil { ... }
//	defer c.Close()
//	res, err := c.Chat(ctx, gw.ChatRequest{Model: "m", Messages: []gw.Message{gw.UserMessage("Hi")}})
//
// Failures are *Error values (errors.As), matched by sentinels with errors.Is
// (ErrRateLimited, ErrAuth, ErrTimeout, ErrCancelled, ...); a call ended by its context
// also matches context.Canceled or context.DeadlineExceeded.
package gw
