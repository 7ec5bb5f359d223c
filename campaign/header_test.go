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

// TestNamePlan checks that the plan's ID goes into the header of a
// campaign's own journal, the other records kept, and that a journal
// whose header has it is not written again.
func TestNamePlan(t *testing.T) {
	for _, tc := range []struct {
		name, had string
		rewrite   bool
	}{
		{"no plan yet (a journal of an earlier atomicx)", "", true},
		{"another plan (resumed after the plan changed)", "0123456789abcdef", true},
		{"this plan", "fedcba9876543210", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal.jsonl")
			h := &Header{Module: "example.com/m", Question: "perturb", Plan: tc.had}
			prof := &Record{Kind: "profile", Package: "example.com/m", Test: "TestA", Status: Passed}
			if err := WriteJournal(path, []*Record{{Kind: "campaign", Campaign: h}, prof}); err != nil {
				t.Fatal(err)
			}
			before, _ := os.Stat(path)
			if err := namePlan(path, "fedcba9876543210"); err != nil {
				t.Fatal(err)
			}
			recs, problems, err := ReadJournal(path)
			if err != nil || len(problems) > 0 {
				t.Fatal(err, problems)
			}
			if got := HeaderOf(recs); got == nil || got.Plan != "fedcba9876543210" || got.Question != "perturb" {
				t.Errorf("header after namePlan: %+v; want the plan's ID, the rest kept", got)
			}
			if len(recs) != 2 || recs[1].Key() != prof.Key() {
				t.Errorf("records after namePlan: %d, want the header and the profile run", len(recs))
			}
			after, _ := os.Stat(path)
			if rewritten := !os.SameFile(before, after); rewritten != tc.rewrite {
				t.Errorf("journal rewritten: %v, want %v", rewritten, tc.rewrite)
			}
		})
	}
}
