module gw

go 1.23
