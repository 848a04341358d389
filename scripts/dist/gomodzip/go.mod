module gw.invalid/scripts/dist/gomodzip

go 1.23

require golang.org/x/mod v0.22.0
