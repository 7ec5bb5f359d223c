package campaign

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/rt/arm"
)

// testPlan writes a plan of one package with one test binary into a new
// directory.
func testPlan(t *testing.T) (string, *Plan) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin", "example.com_m.test")
	if err := os.WriteFile(bin, []byte("a test binary"), 0o777); err != nil {
		t.Fatal(err)
	}
	sum, err := fileSHA256(bin)
	if err != nil {
		t.Fatal(err)
	}
	prof := &Record{Kind: "profile", Package: "example.com/m", Test: "TestA", Status: Passed, Millis: 12}
	p := &Plan{Planner: replayOnce.Name, planner: replayOnce, Header: &Header{Module: "example.com/m", ModuleRoot: "/src/m"},
		Packages: []*PlanPackage{{ImportPath: "example.com/m", Dir: "sub", Binary: "bin/example.com_m.test", SHA256: sum, Tests: []string{"TestA"}}},
		Options:  Options{TimeoutMs: 60000, MaxOccur: 3, EarlyStop: true},
		Profiles: []*Record{prof},
		Runs:     runsOf(map[string]int64{"TestA": 12}, 4),
	}
	if err := WritePlan(dir, p); err != nil {
		t.Fatal(err)
	}
	return dir, p
}

// replayOnce is the question of the engine's tests: once a journal holds
// an experiment and no recheck, it asks one recheck of the first
// experiment by key, as a question that asks a thing once per campaign
// does, whichever shard's runs ask it.
var replayOnce = &Planner{
	Name: "replay-once",
	FollowUps: func(recs []*Record, opt Options) []*PlannedRun {
		var first *Record
		for _, r := range recs {
			switch {
			case r.Kind == "recheck":
				return nil
			case r.Kind == "experiment" && (first == nil || r.Key() < first.Key()):
				first = r
			}
		}
		if first == nil {
			return nil
		}
		re := &Record{Kind: "recheck", Package: first.Package, Test: first.Test, Arming: arm.Arming{Inject: arm.Injection{Site: first.Arming.Inject.Site, Occurrence: first.Arming.Inject.Occurrence, Fault: first.Arming.Inject.Fault}, Mask: arm.SplitIDs("p.Parse")}}
		return []*PlannedRun{{Key: re.Key(), Run: re}}
	},
	Rounds: 1,
}

// plannerNamed knows the questions of the engine's tests.
func plannerNamed(name string) *Planner {
	if name == replayOnce.Name {
		return replayOnce
	}
	return nil
}

// TestReadPlan checks that a plan reads back as written, and that a
// plan of another version, one changed after it was made, a missing
// binary and a binary that is not the plan's are refused, each saying so.
func TestReadPlan(t *testing.T) {
	edit := func(dir string, f func(m map[string]any)) {
		path := filepath.Join(dir, PlanFile)
		var m map[string]any
		data, _ := os.ReadFile(path)
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		data, _ = json.Marshal(m)
		os.WriteFile(path, data, 0o666)
	}
	tests := []struct {
		name    string
		damage  func(dir string)
		readErr string // from ReadPlan
		resErr  string // from Resolve
	}{
		{name: "as written"},
		{name: "another version", damage: func(dir string) { edit(dir, func(m map[string]any) { m["version"] = 99 }) },
			readErr: "a plan of format version 99; this atomicx reads version 1"},
		{name: "changed after it was made", damage: func(dir string) {
			edit(dir, func(m map[string]any) { m["options"].(map[string]any)["max_occurrences"] = 8 })
		}, readErr: "was changed after it was made: its ID is "},
		{name: "no plan", damage: func(dir string) { os.Remove(filepath.Join(dir, PlanFile)) }, readErr: "holds no plan"},
		{name: "missing binary", damage: func(dir string) { os.RemoveAll(filepath.Join(dir, "bin")) },
			resErr: "the test binary of example.com/m is missing"},
		{name: "another binary", damage: func(dir string) {
			os.WriteFile(filepath.Join(dir, "bin", "example.com_m.test"), []byte("rebuilt"), 0o777)
		}, resErr: "is not the plan's: SHA-256 "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, want := testPlan(t)
			if tt.damage != nil {
				tt.damage(dir)
			}
			p, err := ReadPlan(dir, plannerNamed)
			if tt.readErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.readErr) {
					t.Fatalf("ReadPlan: %v, want an error saying %q", err, tt.readErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.ID != want.ID || len(p.Runs) != len(want.Runs) || !reflect.DeepEqual(p.Options, want.Options) {
				t.Errorf("read back %+v, wrote %+v", p, want)
			}
			pkgs, err := p.Resolve(dir, "/elsewhere/m")
			if tt.resErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.resErr) {
					t.Fatalf("Resolve: %v, want an error saying %q", err, tt.resErr)
				}
				var missing *MissingBinaryError
				if strings.Contains(tt.resErr, "missing") && !errors.As(err, &missing) {
					t.Errorf("Resolve: %T, want a *MissingBinaryError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := pkgs[0].Dir; got != filepath.Join("/elsewhere/m", "sub") {
				t.Errorf("package directory %s, want it under the module's root here", got)
			}
		})
	}
}
