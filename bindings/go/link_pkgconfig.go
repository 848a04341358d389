//go:build gw_pkgconfig

package gw

// Linking against an installed gw (`make install`): build with `-tags gw_pkgconfig` and
// PKG_CONFIG_PATH pointing at <prefix>/lib/pkgconfig. gw.pc names the shared library, so
// the program needs <prefix>/lib on its library path at run time (ld.so.conf, rpath or
// LD_LIBRARY_PATH).

/*
#cgo pkg-config: gw
*/
import "C"
