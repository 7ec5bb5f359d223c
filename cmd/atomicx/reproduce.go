package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/internal/funcname"
	"github.com/atomicx/atomicx/report"
	"github.com/atomicx/atomicx/rt/arm"
)

// reproduceCmd runs a finding's test again as its campaign did — the
// journal's policy, build flags and atomicx binary, the same fault and
// masks — with every call snapshotted, and prints the verdicts of the
// function that come back.
func reproduceCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("reproduce", flag.ContinueOnError)
	fs.SetOutput(stderr)
	journal := fs.String("journal", "", "the campaign's journal directory (default: the campaign of ./... here)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: atomicx reproduce [-journal DIR] FUNCTION\n\n"+
			"Runs again the test and fault that showed FUNCTION non-atomic in a campaign\n"+
			"(FUNCTION as the report names it: example.com/m.(*T).M, or (*T).M when that\n"+
			"is unambiguous), with the campaign's policy, build flags and atomicx, and\n"+
			"prints the function's verdict events. It exits 0 when the function is\n"+
			"non-atomic again, 1 when not.\n")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	wd, _ := os.Getwd()
	dir := *journal
	if dir == "" {
		d, err := defaultJournal(wd, []string{"./..."})
		if err != nil {
			fmt.Fprintf(stderr, "atomicx: %v\n", err)
			return 1
		}
		dir = d
	}
	recs, _, err := campaign.ReadJournal(filepath.Join(dir, "journal.jsonl"))
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	hdr := campaign.HeaderOf(recs)
	if hdr == nil {
		fmt.Fprintf(stderr, "atomicx: %s holds no campaign (or one an older atomicx wrote, without a header): give -journal, or rerun atomicx detect\n", dir)
		return 1
	}
	rep := report.Classify(recs, nil)
	name, f, err := findFunction(rep, fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "atomicx reproduce: %v\n", err)
		return 1
	}
	ev := f.Evidence
	if ev == nil {
		fmt.Fprintf(stderr, "atomicx reproduce: the campaign did not find %s non-atomic (its verdict: %s)\n", name, f.Verdict)
		return 1
	}
	tmp, err := os.MkdirTemp("", "atomicx-reproduce-")
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	logPath := filepath.Join(tmp, "events.jsonl")
	a := ev.Arming()
	a.Snapshots, a.Log = arm.SnapshotsAll, logPath
	env := a.Env()
	if hdr.Policy != "" {
		env = append(env, "ATOMICX_POLICY="+hdr.Policy)
	}
	var cmd *exec.Cmd
	if ev.Exec != "" {
		cmd = exec.Command(ev.Exec)
		cmd.Dir = hdr.Dir
		env = append(env, "ATOMICX_BINARY="+ev.Binary)
	} else {
		atomicx := hdr.Atomicx
		if _, err := os.Stat(atomicx); err != nil {
			self, serr := os.Executable()
			if serr != nil {
				fmt.Fprintf(stderr, "atomicx: %v\n", serr)
				return 1
			}
			fmt.Fprintf(stderr, "atomicx reproduce: warning: the campaign's atomicx (%s) is gone; building with this one\n", atomicx)
			atomicx = self
		}
		args := append([]string{"go", "test", "-count=1"}, hdr.BuildArgs...)
		args = append(args, "-run", "^"+ev.Test+"$", ev.Package)
		cmd = exec.Command(atomicx, args...)
		cmd.Dir = hdr.ModuleRoot
	}
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	fmt.Fprintf(stderr, "%s\n", ev.Reproduce)
	runErr := cmd.Run() // a test that fails under the fault is what is expected
	verdicts, err := verdictsOf(logPath, name)
	if err != nil {
		fmt.Fprintf(stderr, "atomicx reproduce: no event log (%v): %v\n", err, runErr)
		return 1
	}
	nonAtomic := false
	for _, v := range verdicts {
		fmt.Fprintf(stdout, "%s\n", v.raw)
		nonAtomic = nonAtomic || v.Verdict == "non-atomic"
	}
	if !nonAtomic {
		fmt.Fprintf(stderr, "atomicx reproduce: %s was not non-atomic in this run (%d verdicts)\n", name, len(verdicts))
		return 1
	}
	fmt.Fprintf(stderr, "reproduced: %s is non-atomic\n", name)
	return 0
}

// findFunction looks a finding up by its runtime name, or by its name
// without the package when only one function has it.
func findFunction(rep *report.Report, id string) (string, *report.Function, error) {
	if f, ok := rep.Functions[id]; ok {
		return id, f, nil
	}
	var matches []string
	for name := range rep.Functions {
		if _, rel, ok := funcname.Split(name); ok && rel == id {
			matches = append(matches, name)
		}
	}
	sort.Strings(matches)
	switch len(matches) {
	case 1:
		return matches[0], rep.Functions[matches[0]], nil
	case 0:
		return "", nil, fmt.Errorf("the campaign has no function %s", id)
	}
	return "", nil, fmt.Errorf("%s is ambiguous: %s", id, strings.Join(matches, ", "))
}

type loggedVerdict struct {
	Func    string `json:"func"`
	Verdict string `json:"verdict"`
	Event   string `json:"event"`
	raw     []byte
}

// verdictsOf reads the verdict events of fn from an event log.
func verdictsOf(logPath, fn string) ([]loggedVerdict, error) {
	data, err := os.ReadFile(logPath)
	if err != nil {
		return nil, err
	}
	var out []loggedVerdict
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var v loggedVerdict
		if json.Unmarshal(sc.Bytes(), &v) != nil || v.Event != "verdict" || v.Func != fn {
			continue
		}
		v.raw = append([]byte(nil), sc.Bytes()...)
		out = append(out, v)
	}
	return out, sc.Err()
}
