module github.com/gw-dev/gw/bindings/go

go 1.23
