package campaign

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Header is the journal's first record: what the campaign ran and where,
// so that a report made later, from any directory, finds the sources, and
// a finding can be reproduced with the same policy, build flags and
// atomicx binary. A resumed campaign keeps the header of its first run.
// Its JSON form is one object: its fields, then the keys of QuestionData.
type Header struct {
	Module     string   `json:"module"`         // path of the main module
	ModuleRoot string   `json:"module_root"`    // directory holding its go.mod
	RepoRoot   string   `json:"repo_root"`      // nearest directory at or above it holding .git; "" when none
	Dir        string   `json:"dir"`            // where the go command ran
	Journal    string   `json:"journal"`        // the campaign's directory
	Patterns   []string `json:"patterns"`       // the packages named
	Policy     string   `json:"policy"`         // the policy file the builds used
	BuildArgs  []string `json:"build_args"`     // extra go build flags
	Exec       string   `json:"exec,omitempty"` // program workload's script
	Atomicx    string   `json:"atomicx"`        // the atomicx binary, absolute
	Version    string   `json:"atomicx_version"`
	GoVersion  string   `json:"go_version"`      // of the go command that built the workload
	Command    []string `json:"command"`         // the command line that started the campaign
	Date       string   `json:"date"`            // when it started, RFC 3339
	Run        string   `json:"run,omitempty"`   // the tests selected, as go test -run
	Plan       string   `json:"plan,omitempty"`  // the ID (Plan.ID) of the plan the campaign ran: a sharded campaign's, or the one a campaign made of its profile runs
	Shard      string   `json:"shard,omitempty"` // a shard's journal: which shard, "K/N"
	Cover      bool     `json:"cover,omitempty"` // built with coverage (Config.Cover)
	// Question is the planner's name when it is not detect's (Planner).
	Question string `json:"question,omitempty"`
	// Oracle is a program workload's domain check (Config.Oracle).
	Oracle string `json:"oracle,omitempty"`
	// OneAtATime: every run ran on one thread, a test's parallel subtests
	// one at a time (Planner.OneAtATime).
	OneAtATime bool `json:"one_at_a_time,omitempty"`
	// QuestionData is what the question's report needs of its options
	// (Planner.HeaderData), a JSON object that the question encodes and
	// decodes.
	QuestionData json.RawMessage `json:"-"`
}

// headerLine is Header as a journal has it, the question's data aside.
type headerLine Header

var headerKeys = jsonKeys[headerLine]()

// MarshalJSON writes the header as one object, the question's data last.
func (h Header) MarshalJSON() ([]byte, error) {
	return marshalWithQuestion(headerLine(h), h.QuestionData, headerKeys)
}

// UnmarshalJSON reads a header written by MarshalJSON.
func (h *Header) UnmarshalJSON(b []byte) error {
	var l headerLine
	data, err := unmarshalWithQuestion(b, &l, headerKeys)
	if err != nil {
		return err
	}
	*h = Header(l)
	h.QuestionData = data
	return nil
}

// HeaderOf returns the header among a journal's records, nil if it has
// none (a journal written before headers existed).
func HeaderOf(recs []*Record) *Header {
	for _, r := range recs {
		if r.Kind == "campaign" && r.Campaign != nil {
			return r.Campaign
		}
	}
	return nil
}

// sameCampaign says why a resumed campaign would not be the one its
// journal records, "" when it is: experiments planned with another
// policy, other build flags or other packages would not mean the same.
func sameCampaign(old, now *Header) string {
	switch {
	case old.ModuleRoot != now.ModuleRoot:
		return fmt.Sprintf("module %s, not %s", old.ModuleRoot, now.ModuleRoot)
	case !slices.Equal(old.Patterns, now.Patterns):
		return fmt.Sprintf("packages %q, not %q", old.Patterns, now.Patterns)
	case !slices.Equal(old.BuildArgs, now.BuildArgs):
		return fmt.Sprintf("build flags %q, not %q", old.BuildArgs, now.BuildArgs)
	case old.Policy != now.Policy:
		return fmt.Sprintf("policy %s, not %s", old.Policy, now.Policy)
	case old.Exec != now.Exec:
		return fmt.Sprintf("workload %q, not %q", old.Exec, now.Exec)
	case old.Cover != now.Cover:
		return fmt.Sprintf("-cover %v, not %v", old.Cover, now.Cover)
	case old.Question != now.Question || old.Oracle != now.Oracle:
		return fmt.Sprintf("question %q with oracle %q, not %q with %q", old.Question, old.Oracle, now.Question, now.Oracle)
	}
	return ""
}

// describeModule fills in the header's module, repository and Go version
// from the go command run in the campaign's directory.
func describeModule(ctx context.Context, h *Header, dir string) error {
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION", "GOMOD")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go env: %v\n%s", err, stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return fmt.Errorf("go env printed %q", out)
	}
	h.GoVersion = lines[0]
	h.ModuleRoot = dir
	if gomod := lines[1]; gomod != "" && gomod != os.DevNull {
		h.ModuleRoot = filepath.Dir(gomod)
		if data, err := os.ReadFile(gomod); err == nil {
			h.Module = modulePath(data)
		}
	}
	h.RepoRoot = repoRoot(h.ModuleRoot)
	return nil
}

// modulePath returns the path on a go.mod file's module line.
func modulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(strings.TrimSpace(line))
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], "\"`")
		}
	}
	return ""
}

// repoRoot returns the nearest directory at or above dir that holds .git
// (a directory, or a file in a worktree or submodule); "" when none does.
func repoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		} else if !errors.Is(err, os.ErrNotExist) {
			return ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// ModuleOf returns the root and the path of the module that holds dir,
// as the go command finds them.
func ModuleOf(ctx context.Context, dir string) (root, module string, err error) {
	var h Header
	if err := describeModule(ctx, &h, dir); err != nil {
		return "", "", err
	}
	return h.ModuleRoot, h.Module, nil
}
