package instrument

import (
	"flag"
	"fmt"
	"go/importer"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// langSuffix is the language version an input file name asks for.
var langSuffix = regexp.MustCompile(`_go1(\d\d)\.go$`)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestRewriteGolden instruments each testdata/rewrite/*.go as a package of
// its own and compares the result with the .golden file beside it.
func TestRewriteGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/rewrite/*.go")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			name := "/src/example.com/m/" + filepath.Base(in)
			opts := testOptions()
			opts.Mask = strings.HasPrefix(filepath.Base(in), "mask_")
			if opts.Mask {
				opts.Releases, opts.Borrows = testReleases()
			}
			if strings.HasPrefix(filepath.Base(in), "mask_oblivious") {
				// By name: Plain* failure-oblivious and not masked, Ob*
				// masked and failure-oblivious, Atomic* atomic
				// failure-oblivious (masked whatever Selects says).
				opts.Selects = func(name string) bool { return !strings.Contains(name, "Plain") && !strings.Contains(name, "Atomic") }
				opts.Oblivious = func(name string) (bool, bool) {
					atomic := strings.Contains(name, "Atomic")
					return atomic || strings.Contains(name, "Plain") || strings.Contains(name, "Ob"), atomic
				}
			}
			if opts.Mask {
				// Masked although they lock otherwise, so that the
				// checkpoints of structs that hold locks are generated;
				// in mask_locks.go, by name: *Anyway only.
				opts.MasksOutsideLocks = func(string) bool { return true }
				if strings.HasPrefix(filepath.Base(in), "mask_locks") {
					opts.MasksOutsideLocks = func(name string) bool { return strings.Contains(name, "Anyway") }
				}
			}
			if strings.HasPrefix(filepath.Base(in), "mask_undo") {
				// bump and reset are called with the undo log of the
				// masked functions that call them, through clones.
				opts.Selects = func(name string) bool { return !strings.Contains(name, "bump") && name != "reset" }
			}
			// The fixtures of the generated checkpoints keep them where
			// the undo log would do (see undoSaves).
			switch strings.TrimSuffix(filepath.Base(in), ".go") {
			case "mask_aliases", "mask_gen", "mask_graph", "mask_go120", "mask_conc", "mask_conc_go120":
				opts.checkpointsOnly = true
			}
			// nopanics_*.go: a policy that injects no panics.
			opts.Panics = !strings.HasPrefix(filepath.Base(in), "nopanics_")
			if v := langSuffix.FindStringSubmatch(in); v != nil {
				opts.GoVersion = "go1." + v[1] // mask_go120.go is at go1.20
			}
			if strings.HasPrefix(filepath.Base(in), "mask_undo_callbacks") {
				// By name: the function values Trusted* functions call
				// write only what their arguments reach.
				opts.CallbacksWriteArguments = func(name string) bool { return strings.Contains(name, "Trusted") }
			}
			if strings.HasPrefix(filepath.Base(in), "mask_undo_files") {
				// By name: *Undone functions undo their writes to files.
				opts.UndoFiles = func(name string) bool { return strings.Contains(name, "Undone") }
			}
			if strings.HasPrefix(filepath.Base(in), "mask_done") {
				// The policy's success_errors: the package's own values,
				// one of a package it imports, and two it cannot name.
				opts.DoneValues = []string{"example.com/m.ErrStop", "example.com/m.errQuiet", "io.ErrShortBuffer",
					"example.com/other.ErrDone", "io.errWhence"}
			}
			if strings.HasPrefix(filepath.Base(in), "probe_") {
				opts.ProbeAcquires = probedLines(string(src), "example.com/m/"+filepath.Base(in))
			}
			res, err := Package([]File{{Name: name, Src: src}}, opts)
			if err != nil {
				t.Fatal(err)
			}
			var got strings.Builder
			got.Write(res.Files[0].Src)
			got.WriteString("\n-- generated --\n")
			if res.Generated != nil {
				got.Write(res.Generated.Src)
			}
			if res.GeneratedInit != nil {
				got.WriteString("-- generated init --\n")
				got.Write(res.GeneratedInit.Src)
			}
			got.WriteString("-- skipped --\n")
			for _, s := range res.Skipped {
				got.WriteString(s.Name + ": " + s.Reason + "\n")
			}
			for _, n := range res.Notes {
				got.WriteString(n.Name + ": note: " + n.Message + "\n")
			}
			if len(res.OmittedCalls) > 0 {
				fmt.Fprintf(&got, "-- omitted calls (%d points) --\n", res.CallPoints)
				for _, reason := range slices.Sorted(maps.Keys(res.OmittedCalls)) {
					fmt.Fprintf(&got, "%d %s\n", res.OmittedCalls[reason], reason)
				}
			}
			if len(res.Constructors) > 0 {
				fmt.Fprintf(&got, "-- error constructors left as written --\n%s\n", strings.Join(res.Constructors, "\n"))
			}
			golden := strings.TrimSuffix(in, ".go") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got.String()), 0o666); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got.String()); diff != "" {
				t.Errorf("rewrite of %s differs from %s (-want +got):\n%s", in, golden, diff)
			}
		})
	}
}

// probedLines returns the positions, as sites give them, of the acquire
// calls on the lines of src marked "// probed": the opening parenthesis
// of the call on the right of the line's assignment, or of the line's
// call when it has no assignment; "// probed IsClosed" names the method
// of the resource that probes it.
func probedLines(src, file string) map[string]string {
	set := map[string]string{}
	for i, line := range strings.Split(src, "\n") {
		code, isClosed, ok := strings.Cut(line, "// probed")
		if !ok || strings.Contains(isClosed, "(") {
			continue
		}
		eq := max(strings.Index(code, "="), 0)
		col := eq + strings.Index(code[eq:], "(") + 1
		set[fmt.Sprintf("%s:%d:%d", file, i+1, col)] = strings.TrimSpace(isClosed)
	}
	return set
}

func testOptions() Options {
	return Options{
		ImportPath:  "example.com/m",
		Importer:    importer.ForCompiler(token.NewFileSet(), "source", nil),
		RuntimePath: "atomicx/rt",
		Panics:      true,
	}
}

// testReleases is a part of the leak policy's standard set, for the
// masking goldens.
func testReleases() (map[string]Release, func(string) bool) {
	return map[string]Release{
			"os.Open":                  {Resource: "file", Method: "Close"},
			"net/http.Get":             {Resource: "HTTP response body", Field: "Body", Method: "Close"},
			"time.NewTimer":            {Resource: "timer", Method: "Stop"},
			"(*database/sql.DB).Begin": {Resource: "sql transaction", Method: "Rollback", Others: []string{"Commit"}},
			"example.com/m.acquire":    {Resource: "handle", Method: "Close"},
		}, func(name string) bool {
			return name == "io.ReadAll"
		}
}
