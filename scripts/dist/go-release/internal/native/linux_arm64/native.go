// Package native holds gw.h and libgw.a for linux/arm64; this file makes it a package, so `go mod vendor` keeps the folder.
package native
