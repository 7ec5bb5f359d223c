package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHeaderInJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	h := &Header{Module: "example.com/m", ModuleRoot: "/src/m", Policy: "/j/atomicheck.toml", BuildArgs: []string{"-race"}}
	for _, r := range []*Record{{Kind: "campaign", Campaign: h}, {Kind: "profile", Package: "example.com/m", Test: "TestA", Status: "pass"}} {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "{\"v\":%d,\"kind\":\"campaign\"}\n", JournalVersion)
	f.Close()
	recs, problems, err := ReadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || len(problems) != 1 || !strings.Contains(problems[0].String(), "without its header") {
		t.Fatalf("records %d, problems %v", len(recs), problems)
	}
	got := HeaderOf(recs)
	if got == nil || got.Module != "example.com/m" || got.Policy != h.Policy || len(got.BuildArgs) != 1 {
		t.Errorf("header read back as %+v", got)
	}
	if HeaderOf(recs[1:]) != nil {
		t.Errorf("a journal without a header has one")
	}
}

func TestSameCampaign(t *testing.T) {
	base := Header{ModuleRoot: "/m", Patterns: []string{"./..."}, BuildArgs: []string{}, Policy: "/j/p.toml"}
	for _, c := range []struct {
		name   string
		change func(h *Header)
		want   string
	}{
		{"same", func(h *Header) {}, ""},
		{"another binary and date are the same campaign", func(h *Header) { h.Atomicx, h.Date = "/other", "later" }, ""},
		{"module", func(h *Header) { h.ModuleRoot = "/n" }, "module"},
		{"packages", func(h *Header) { h.Patterns = []string{"./a"} }, "packages"},
		{"flags", func(h *Header) { h.BuildArgs = []string{"-race"} }, "build flags"},
		{"policy", func(h *Header) { h.Policy = "/m/atomicheck.toml" }, "policy"},
	} {
		now := base
		c.change(&now)
		got := sameCampaign(&base, &now)
		if (got == "") != (c.want == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestRepoRoot(t *testing.T) {
	dir := t.TempDir()
	nested := filepath.Join(dir, "repo", "examples", "bank")
	if err := os.MkdirAll(nested, 0o777); err != nil {
		t.Fatal(err)
	}
	if got := repoRoot(nested); got != "" {
		t.Errorf("no .git: %q", got)
	}
	// A worktree's .git is a file.
	if err := os.WriteFile(filepath.Join(dir, "repo", ".git"), []byte("gitdir: elsewhere\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if got := repoRoot(nested); got != filepath.Join(dir, "repo") {
		t.Errorf("repoRoot = %q", got)
	}
}
