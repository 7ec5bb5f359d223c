// Package golangci registers the errleak analyzer as a golangci-lint
// module plugin, so that teams that already run golangci-lint get
// atomicx vet's findings in the same run. Build a golangci-lint with it
// by `golangci-lint custom` (see docs/vet.md); the
// linter's settings are errleak's flags:
//
//	linters:
//	  enable: [errleak]
//	  settings:
//	    custom:
//	      errleak:
//	        type: module
//	        description: resources left open on error paths
//	        settings:
//	          policy: ""     # atomicheck.toml to read; "" finds it from each package's directory, "off" reads none
//	          panics: false  # also report locks held where a function panics
//
// It holds no analysis of its own: it hands golangci-lint the analyzer
// that atomicx vet and atomicx-vet run.
package golangci

import (
	"fmt"
	"strconv"

	"github.com/atomicx/atomicx/errleak"
	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"
)

func init() {
	register.Plugin("errleak", New)
}

// Settings are the plugin's settings in .golangci.yml.
type Settings struct {
	Policy string `json:"policy"`
	Panics bool   `json:"panics"`
}

// New makes the plugin from its settings.
func New(raw any) (register.LinterPlugin, error) {
	s, err := register.DecodeSettings[Settings](raw)
	if err != nil {
		return nil, fmt.Errorf("errleak settings: %w", err)
	}
	if s.Policy != "" {
		if err := errleak.Analyzer.Flags.Set("policy", s.Policy); err != nil {
			return nil, fmt.Errorf("errleak settings: policy: %w", err)
		}
	}
	if err := errleak.Analyzer.Flags.Set("panics", strconv.FormatBool(s.Panics)); err != nil {
		return nil, fmt.Errorf("errleak settings: panics: %w", err)
	}
	return plugin{}, nil
}

type plugin struct{}

func (plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return []*analysis.Analyzer{errleak.Analyzer}, nil
}

// GetLoadMode asks for type information: errleak builds SSA from it.
func (plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
