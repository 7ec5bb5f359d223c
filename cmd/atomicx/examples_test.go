package main

import (
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
)

// shellValue stands for what the runner substitutes: ${{ matrix.shard }},
// $((JOB_COMPLETION_INDEX+1)), $SHARDS, $RUNNER_TEMP.
var shellValue = regexp.MustCompile(`\$\{\{[^}]*\}\}|\$\(\([^)]*\)\)|\$[A-Z_]+`)

// exampleCommands returns the atomicx plan, run and merge command lines
// of an example file, each split into words with the runner's values
// stood in by 1 and shard counts by n.
func exampleCommands(t *testing.T, path, n string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cmds [][]string
	for _, line := range strings.Split(string(data), "\n") {
		_, cmd, ok := strings.Cut(line, "atomicx ")
		if !ok {
			continue
		}
		cmd = shellValue.ReplaceAllString(strings.ReplaceAll(cmd, "$SHARDS", n), "1")
		f := strings.Fields(cmd)
		if len(f) == 0 || f[0] != "plan" && f[0] != "run" && f[0] != "merge" {
			continue
		}
		var words []string
		for _, w := range f {
			words = append(words, strings.Trim(strings.ReplaceAll(w, `"`, ""), "'"))
		}
		cmds = append(cmds, words)
	}
	return cmds
}

// TestCIExamples checks that the atomicx command lines of the CI examples
// parse with the commands' own flags, and that their shard counts agree
// with the jobs they run in: the examples cannot drift from the CLI.
func TestCIExamples(t *testing.T) {
	gha, err := os.ReadFile("../../examples/ci/github-actions.yml")
	if err != nil {
		t.Fatal(err)
	}
	shards := regexp.MustCompile(`(?m)^\s+SHARDS: (\d+)$`).FindSubmatch(gha)
	matrix := regexp.MustCompile(`(?m)^\s+shard: \[([0-9, ]+)\]`).FindSubmatch(gha)
	if shards == nil || matrix == nil {
		t.Fatal("github-actions.yml: no SHARDS or no matrix of shards")
	}
	if n, _ := strconv.Atoi(string(shards[1])); len(strings.Split(string(matrix[1]), ",")) != n {
		t.Errorf("github-actions.yml: SHARDS is %s, the matrix has %s", shards[1], matrix[1])
	}
	k8s, err := os.ReadFile("../../examples/ci/k8s-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	completions := regexp.MustCompile(`(?m)^\s+completions: (\d+)$`).FindSubmatch(k8s)
	if completions == nil {
		t.Fatal("k8s-indexed-job.yaml: no completions")
	}

	for _, ex := range []struct {
		path, n string
	}{
		{"../../examples/ci/github-actions.yml", string(shards[1])},
		{"../../examples/ci/k8s-indexed-job.yaml", string(completions[1])},
	} {
		cmds := exampleCommands(t, ex.path, ex.n)
		seen := map[string]bool{}
		for _, words := range cmds {
			seen[words[0]] = true
			var fs interface {
				Parse([]string) error
				Args() []string
			}
			switch words[0] {
			case "plan":
				q, ok := planQuestion(words[1:], io.Discard)
				if !ok {
					t.Errorf("%s: atomicx %s: not a question's flags", ex.path, strings.Join(words, " "))
					continue
				}
				f, _ := planFlags(io.Discard, q)
				fs = f
			case "run":
				f, o := runFlags(io.Discard)
				fs = f
				defer func(words []string) {
					s, err := campaign.ParseShard(o.shard)
					if err != nil {
						t.Errorf("%s: %q: %v", ex.path, words, err)
					} else if strconv.Itoa(s.N) != ex.n {
						t.Errorf("%s: %q runs shards of %d, the job has %s", ex.path, words, s.N, ex.n)
					}
				}(words)
			case "merge":
				f, _ := mergeFlags(io.Discard)
				fs = f
			}
			if err := fs.Parse(words[1:]); err != nil {
				t.Errorf("%s: atomicx %s: %v", ex.path, strings.Join(words, " "), err)
				continue
			}
			if words[0] != "plan" && len(fs.Args()) == 0 {
				t.Errorf("%s: atomicx %s names no plan directory", ex.path, strings.Join(words, " "))
			}
			if words[0] == "run" && len(fs.Args()) != 1 {
				t.Errorf("%s: atomicx %s: one plan directory, no more", ex.path, strings.Join(words, " "))
			}
		}
		for _, c := range []string{"plan", "run", "merge"} {
			if !seen[c] {
				t.Errorf("%s: no atomicx %s command line", ex.path, c)
			}
		}
	}
}
