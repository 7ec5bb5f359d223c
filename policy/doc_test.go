package policy

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestDocumentedKeys: the page that specifies the policy file names every
// key the parser accepts.
func TestDocumentedKeys(t *testing.T) {
	page, err := os.ReadFile("../docs/policy.md")
	if err != nil {
		t.Fatal(err)
	}
	// probe_acquires is atomicx vet -confirm's own, and not documented.
	keys := slices.Concat(topKeys, optionKeys, ruleKeys, leakResourceKeys)
	for _, key := range keys {
		if !strings.Contains(string(page), key+" =") && !strings.Contains(string(page), "`"+key+"`") && !strings.Contains(string(page), "["+key) {
			t.Errorf("docs/policy.md does not document the key %s", key)
		}
	}
}
