package errleak

import (
	"fmt"
	"path/filepath"

	"github.com/atomicx/atomicx/policy"
	"golang.org/x/tools/go/analysis"
)

// policyFile is the -policy flag: the atomicheck.toml to read instead of
// the one found from the package's directory ("off" for none).
var policyFile string

// reportPanics is the -panics flag: report locks held on a path that
// panics.
var reportPanics bool

func init() {
	Analyzer.Flags.StringVar(&policyFile, "policy", "", "atomicheck.toml with [[leak.resource]] tables (default: the one that applies to the package's directory; off: none)")
	// Off by default: most panics end the program, which releases
	// everything, and code panics on a broken invariant with its lock
	// held on purpose; the lock matters only where a caller recovers and
	// goes on, which the analysis cannot see.
	Analyzer.Flags.BoolVar(&reportPanics, "panics", false, "also report locks still held on a path that ends in a panic (a caller that recovers then deadlocks on the next Lock); off by default because most panics end the program")
}

// resourcesFor returns the resources that apply to the package of pass:
// the [[leak.resource]] tables of its policy file, then the standard
// library's set (an acquire named in both follows the policy file).
func resourcesFor(pass *analysis.Pass) ([]Resource, error) {
	path := policyFile
	if path == "" && len(pass.Files) > 0 {
		dir := filepath.Dir(pass.Fset.File(pass.Files[0].Pos()).Name())
		found, err := policy.Find(dir, nil)
		if err != nil {
			return nil, err
		}
		path = found
	}
	if path == "" || path == "off" {
		return builtin, nil
	}
	pol, err := policy.Load(path)
	if err != nil {
		return nil, fmt.Errorf("errleak: %w", err)
	}
	var out []Resource
	for _, r := range pol.Leaks {
		out = append(out, Resource{Name: r.Name, Acquire: r.Acquire, Release: r.Release, IsClosed: r.IsClosed})
	}
	return append(out, builtin...), nil
}
