// Command atomicx-vet is the errleak analysis as a go vet tool:
//
//	go install github.com/atomicx/atomicx/cmd/atomicx-vet
//	go vet -vettool=$(go env GOPATH)/bin/atomicx-vet ./...
//
// It reports resources (files, connections, locks, context cancel
// functions, the [[leak.resource]] tables of atomicheck.toml, ...) left
// open on a path to a return. "atomicx vet" runs the same analysis
// without go vet. It must stay a thin main: the analysis is in errleak.
package main

import (
	"encoding/json"
	"os"
	"strings"

	"github.com/atomicx/atomicx/errleak"
	"golang.org/x/tools/go/analysis/unitchecker"
)

func main() {
	redirectStdout(os.Args[1:])
	unitchecker.Main(errleak.Analyzer)
}

// redirectStdout follows the Stdout field of the unit's configuration
// file: since Go 1.26, go vet runs the tool with -json and reads the
// diagnostics from that file rather than from the tool's standard output,
// which the unitchecker of our x/tools version does not know of.
func redirectStdout(args []string) {
	if len(args) == 0 || !strings.HasSuffix(args[len(args)-1], ".cfg") {
		return
	}
	data, err := os.ReadFile(args[len(args)-1])
	if err != nil {
		return // unitchecker reports it
	}
	var cfg struct{ Stdout string }
	if json.Unmarshal(data, &cfg) != nil || cfg.Stdout == "" {
		return
	}
	if f, err := os.Create(cfg.Stdout); err == nil {
		os.Stdout = f
	}
}
