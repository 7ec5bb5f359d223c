package errleak

import "golang.org/x/tools/go/analysis"

// resourcesFor returns the resources that apply to the package of pass.
func resourcesFor(pass *analysis.Pass) ([]Resource, error) {
	return builtin, nil
}
