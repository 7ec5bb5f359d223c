// Command probe calls every function of the test packages and prints the
// runtime's name of each, one a line.
package main

import (
	"fmt"
	"runtime"

	x "example.com/x.v2"
	"example.com/x.v2/yaml.v3"
)

//go:noinline
func Main() { x.Record() }

func main() {
	x.Root()
	yaml.Run()
	Main()
	for _, pc := range x.PCs {
		fmt.Println(runtime.FuncForPC(pc).Name())
	}
}
