package campaign

import (
	"bytes"
	"encoding/json"
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

// TestNamePlan checks that naming the plan only appends to the journal
// (what it held is kept byte for byte), that every reader then sees the
// plan's ID in the header, whether a plan record or the header itself
// (a journal of an earlier atomicx, or a shard's) names it, and that a
// resumed campaign naming the same plan again appends nothing.
func TestNamePlan(t *testing.T) {
	const id = "fedcba9876543210"
	for _, tc := range []struct {
		name    string
		header  string   // Header.Plan as written in the header record
		named   []string // plan records appended by earlier runs
		appends bool
	}{
		{"no plan yet (a journal of an earlier atomicx, or a new campaign)", "", nil, true},
		{"another plan in the header (resumed after the plan changed)", "0123456789abcdef", nil, true},
		{"this plan in the header (a journal of an earlier atomicx)", id, nil, false},
		{"another plan named (resumed after the plan changed)", "", []string{"0123456789abcdef"}, true},
		{"this plan named", "", []string{id}, false},
		{"this plan named after another", "0123456789abcdef", []string{"0123456789abcdef", id}, false},
		{"another plan named after this one", "", []string{id, "0123456789abcdef"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal.jsonl")
			h := &Header{Module: "example.com/m", Question: "perturb", Plan: tc.header}
			prof := &Record{Kind: "profile", Package: "example.com/m", Test: "TestA", Status: Passed}
			j, err := OpenJournal(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []*Record{{Kind: "campaign", Campaign: h}, prof} {
				if err := j.Append(r); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range tc.named {
				if err := namePlan(j, nil, p); err != nil {
					t.Fatal(err)
				}
			}
			j.Close()
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}

			// As a campaign does: the header read when it began, then
			// the plan named twice, as a resumed campaign would.
			for range 2 {
				recs, problems, err := ReadJournal(path)
				if err != nil || len(problems) > 0 {
					t.Fatal(err, problems)
				}
				j, err := OpenJournal(path)
				if err != nil {
					t.Fatal(err)
				}
				if err := namePlan(j, HeaderOf(recs), id); err != nil {
					t.Fatal(err)
				}
				j.Close()
			}

			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(after, before) {
				t.Fatalf("the journal was rewritten, not appended to:\n%s\nthen\n%s", before, after)
			}
			added := string(after[len(before):])
			want := ""
			if tc.appends {
				want = fmt.Sprintf(`{"v":%d,"kind":"plan","plan":"%s","pkg":"","test":"","status":"","ms":0}`+"\n", JournalVersion, id)
			}
			if added != want {
				t.Errorf("appended %q, want %q", added, want)
			}
			recs, problems, err := ReadJournal(path)
			if err != nil || len(problems) > 0 {
				t.Fatal(err, problems)
			}
			if got := HeaderOf(recs); got == nil || got.Plan != id || got.Question != "perturb" {
				t.Errorf("header read back: %+v; want the plan's ID, the rest kept", got)
			}
			if len(recs) != 2 || recs[0].Kind != "campaign" || recs[1].Key() != prof.Key() {
				t.Errorf("records read back: %d, want the header and the profile run, no plan record", len(recs))
			}
		})
	}
}

// TestPlanRecordProblems checks that a plan record that names no plan,
// or that has no header to name it in, is reported and skipped.
func TestPlanRecordProblems(t *testing.T) {
	for _, tc := range []struct {
		name, journal, want string
	}{
		{"no ID", `{"v":3,"kind":"campaign","campaign":{"module":"m"}}` + "\n" + `{"v":3,"kind":"plan"}` + "\n",
			":2: skipped: a plan record without the plan's ID"},
		{"no header", `{"v":3,"kind":"profile","pkg":"m","test":"TestA","status":"pass"}` + "\n" + `{"v":3,"kind":"plan","plan":"0123456789abcdef"}` + "\n",
			":2: skipped: a plan record in a journal without a header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal.jsonl")
			if err := os.WriteFile(path, []byte(tc.journal), 0o666); err != nil {
				t.Fatal(err)
			}
			recs, problems, err := ReadJournal(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 1 || len(problems) != 1 || problems[0].String() != path+tc.want {
				t.Fatalf("records %d, problems %v; want 1 record and %q", len(recs), problems, tc.want)
			}
			if h := HeaderOf(recs); h != nil && h.Plan != "" {
				t.Errorf("header names plan %q", h.Plan)
			}
		})
	}
}

// BenchmarkNamePlan names a new plan in journals of the size of a small
// module's campaign at the end of its planning (ini's: 2 MB of profile
// runs' events) and of a larger one's: naming it must not cost in
// proportion to what the journal holds.
func BenchmarkNamePlan(b *testing.B) {
	for _, mb := range []int{2, 32} {
		b.Run(fmt.Sprintf("journal=%dMB", mb), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "journal.jsonl")
			h := &Header{Module: "example.com/m", Patterns: []string{"./..."}}
			writeProfiles(b, path, h, mb<<20)
			j, err := OpenJournal(path)
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if err := namePlan(j, h, fmt.Sprintf("%016x", i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// writeProfiles writes a journal of a header and profile runs with reach
// events, of about size bytes.
func writeProfiles(b *testing.B, path string, h *Header, size int) {
	j, err := OpenJournal(path)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	if err := j.Append(&Record{Kind: "campaign", Campaign: h}); err != nil {
		b.Fatal(err)
	}
	for n, written := 0, 0; written < size; n++ {
		r := &Record{Kind: "profile", Package: "example.com/m", Test: fmt.Sprintf("Test%d", n), Status: Passed, Millis: 12}
		for i := range 1000 {
			e := fmt.Sprintf(`{"event":"reach","pid":4242,"site":"example.com/m.(*Tree).insert#entry","occurrence":%d,"stack":"1@example.com/m.(*Tree).Insert#entry;%d@example.com/m.(*Tree).insert#entry"}`, i+1, i+1)
			r.Events = append(r.Events, json.RawMessage(e))
			written += len(e) + 1
		}
		if err := j.Append(r); err != nil {
			b.Fatal(err)
		}
	}
}
