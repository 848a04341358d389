// Package native holds gw.h; this file makes it a package, so `go mod vendor` keeps the folder.
package native
