//go:build !cgo

package gw

// The binding calls gw's C library through cgo, so it cannot build with CGO_ENABLED=0. The
// undefined type below is the compile error's message; it is reported first, as type
// declarations are checked first, in file order, and this file's name sorts first.
type cgoRequired gw_requires_cgo__build_with_CGO_ENABLED_1_and_a_C_compiler__see_README
