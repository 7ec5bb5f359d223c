package policy

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnused(t *testing.T) {
	path := filepath.Join("testdata", "unused.toml")
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string][]string{
		"example.com/m":          {"Transfer", "(*Vector).Alloc", "(*Vector).String", "(*Reader[...]).Read"},
		"example.com/m/util":     {"Helper", "Stack[...].Len"},
		"example.com/m/vec":      {"(*Vector).Alloc"},
		"example.com/m/vec_test": {"TestAlloc"},
		"example.com/m/store":    {"Open"},
		"sync":                   {"(*Mutex).Lock"},
	}
	want := []string{
		path + `:2:34: package pattern "example.com/gone/..." matches no package`,
		path + `:4:41: functions pattern "Missing" matches no function in the packages of this rule`,
		path + `:5:32: exclude pattern "NoSuchFunc" matches no function in the packages of this rule`,
		path + `:9:34: package pattern "example.com/m/other" matches no package`,
		path + `:11:14: functions pattern "Nothing*" matches no function in the packages of this rule`,
		path + `:12:34: undo_files pattern "(*Vector).Sync" matches no function in the packages of this rule`,
		path + `:19:13: package pattern "example.com/m/store/...x" has no effect: other rules take precedence for every package it matches`,
		path + `:23:13: package pattern "sync/..." matches only packages that atomicx never instruments (the standard library its runtime depends on)`,
	}
	// Both store patterns match store/x, and tie: the earlier rule takes it.
	pkgs["example.com/m/store/x"] = nil
	if diff := cmp.Diff(want, p.Unused(pkgs)); diff != "" {
		t.Errorf("Unused (-want +got):\n%s", diff)
	}

	if got := p.Unused(nil); len(got) != 7 {
		t.Errorf("Unused(nil) = %d warnings, want one per package pattern:\n%v", len(got), got)
	}
	if got := Empty().Unused(pkgs); len(got) != 0 {
		t.Errorf("Empty().Unused = %v", got)
	}
}
