package campaign

import (
	"os/exec"
	"strings"
	"testing"
)

// TestEngineLinksNoRewriter: the engine builds, runs and merges; the
// rewriter and its analyses (the syntax trees, SSA, the leak analyzer)
// belong to the toolexec side. A program that only runs campaigns must
// not link them.
func TestEngineLinksNoRewriter(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{
		"github.com/atomicx/atomicx/instrument",
		"github.com/atomicx/atomicx/errleak",
		"github.com/atomicx/atomicx/toolexec",
		"github.com/dave/dst",
		"golang.org/x/tools/go/ssa",
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("the engine depends on %s", dep)
			}
		}
	}
}

// TestEngineKnowsNoQuestion: the questions (package question and its
// packages) plan and read runs with the engine; the engine is handed the
// one it runs and imports none of them.
func TestEngineKnowsNoQuestion(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const questions = "github.com/atomicx/atomicx/question"
	for _, dep := range strings.Fields(string(out)) {
		if dep == questions || strings.HasPrefix(dep, questions+"/") {
			t.Errorf("the engine depends on %s", dep)
		}
	}
}
