//go:build !cgo

package gw

// The binding calls gw's C library through cgo, so it cannot build with CGO_ENABLED=0. The
// undefined name below is the compile error's message (this file's name sorts first, so the
// compiler reports it first).
var _ = gw_requires_cgo__build_with_CGO_ENABLED_1_and_a_C_compiler__see_README
