//go:build !gw_pkgconfig && cgo && !(linux && (amd64 || arm64))

package gw

// The module carries gw's static library for linux/amd64 and linux/arm64 only. Elsewhere:
// install gw (a C/C++ SDK archive, or `make install` from source) and build with
// -tags gw_pkgconfig. The undefined type below is the compile error's message; the header is
// given so that cgo gets as far as the Go compiler, which reports it.

/*
#cgo CFLAGS: -I${SRCDIR}/internal/native/include
*/
import "C"

import _ "github.com/gw-dev/gw/bindings/go/internal/native/include"

type noPrebuiltLibrary gw_has_no_prebuilt_library_for_this_GOOS_GOARCH__install_gw_and_build_with_tags_gw_pkgconfig__see_README
