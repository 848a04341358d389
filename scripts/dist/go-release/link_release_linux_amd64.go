//go:build !gw_pkgconfig && cgo && linux && amd64

package gw

// The release module's default link (make dist puts this file in the release tree; main links
// the checkout's target/release instead): gw.h and the stripped static archive of gw for
// linux/amd64, carried in the module, so `go get` is all a user needs and the binary needs no
// libgw.so at run time. -lpthread -ldl -lm are the system libraries Rust's std needs. The
// blank imports make `go mod vendor` copy both folders (it copies only imported packages).

/*
#cgo CFLAGS: -I${SRCDIR}/internal/native/include
#cgo LDFLAGS: ${SRCDIR}/internal/native/linux_amd64/libgw.a -lpthread -ldl -lm
*/
import "C"

import (
	_ "github.com/gw-dev/gw/bindings/go/internal/native/include"
	_ "github.com/gw-dev/gw/bindings/go/internal/native/linux_amd64"
)
