module github.com/atomicx/atomicx

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0 // indirect
	github.com/dave/dst v0.28.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)
