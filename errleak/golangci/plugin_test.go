package golangci

import (
	"testing"

	"github.com/atomicx/atomicx/errleak"
	"github.com/golangci/plugin-module-register/register"
)

// The plugin is registered under its linter's name, hands over the
// analyzer, and turns its settings into the analyzer's flags.
func TestPlugin(t *testing.T) {
	newPlugin, err := register.GetPlugin("errleak")
	if err != nil {
		t.Fatal(err)
	}
	defer errleak.Analyzer.Flags.Set("panics", "false")
	defer errleak.Analyzer.Flags.Set("policy", "")
	p, err := newPlugin(map[string]any{"policy": "off", "panics": true})
	if err != nil {
		t.Fatal(err)
	}
	as, err := p.BuildAnalyzers()
	if err != nil || len(as) != 1 || as[0] != errleak.Analyzer {
		t.Fatalf("BuildAnalyzers() = %v, %v; want the errleak analyzer", as, err)
	}
	if got := p.GetLoadMode(); got != register.LoadModeTypesInfo {
		t.Errorf("load mode %q, want %q", got, register.LoadModeTypesInfo)
	}
	for flag, want := range map[string]string{"policy": "off", "panics": "true"} {
		if got := errleak.Analyzer.Flags.Lookup(flag).Value.String(); got != want {
			t.Errorf("-%s = %q, want %q", flag, got, want)
		}
	}
	if _, err := newPlugin(map[string]any{"panics": "often"}); err == nil {
		t.Error("a setting of the wrong type was accepted")
	}
}
