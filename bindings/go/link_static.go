//go:build !gw_pkgconfig

package gw

// Default linking, for use from this repository after `make build`: the checked-in header
// and the static archive, so a Go binary carries gw inside and needs no libgw.so at run
// time. -lpthread -ldl -lm are the system libraries Rust's std needs.
//
// After rebuilding libgw.a, `go build` may reuse a cached link of this package: the go
// command does not hash files named in #cgo LDFLAGS. scripts/test-go.sh handles that; by
// hand, `go clean -cache` or `go build -a` does.

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: ${SRCDIR}/../../target/release/libgw.a -lpthread -ldl -lm
*/
import "C"
