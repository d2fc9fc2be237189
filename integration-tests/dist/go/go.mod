module leaseq.example/cgo

go 1.19
