// Command probe runs every literal of package lits and prints the
// runtime's name of each, one a line.
package main

import (
	"fmt"
	"runtime"

	"example.com/lits"
)

func main() {
	lits.Run()
	for _, pc := range lits.PCs {
		fmt.Println(runtime.FuncForPC(pc).Name())
	}
}
