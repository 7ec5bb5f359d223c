module github.com/atomicx/atomicx

go 1.24

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/dave/dst v0.27.4
	github.com/golangci/plugin-module-register v0.1.1
	github.com/google/go-cmp v0.7.0
	github.com/rogpeppe/go-internal v1.14.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/mod v0.21.0
	golang.org/x/tools v0.26.0
)

require (
	golang.org/x/sync v0.8.0 // indirect
	golang.org/x/sys v0.26.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)
