package atomicx

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the README's sample output from the real command")

// readmeBlocks returns the README's fenced blocks in order, each with its
// info string ("sh", "" ...), and the README itself.
func readmeBlocks(t *testing.T) (string, []readmeBlock) {
	t.Helper()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	var blocks []readmeBlock
	for off := 0; ; {
		i := strings.Index(text[off:], "\n```")
		if i < 0 {
			break
		}
		start := off + i + len("\n```")
		nl := strings.IndexByte(text[start:], '\n')
		info := text[start : start+nl]
		body := start + nl + 1
		end := strings.Index(text[body:], "```\n")
		if end < 0 {
			t.Fatalf("README: block at offset %d not closed", start)
		}
		blocks = append(blocks, readmeBlock{info: info, start: body, end: body + end})
		off = body + end + len("```")
	}
	return text, blocks
}

type readmeBlock struct {
	info       string
	start, end int // the body's offsets in the README
}

func (b readmeBlock) body(text string) string { return text[b.start:b.end] }

// TestReadmeFirstCommand runs the README's first command as a user would
// paste it on a fresh machine (atomicx not on PATH), once with GOBIN set
// and once without, and checks that it prints the sample output that
// follows it. go test -run TestReadmeFirstCommand -update-readme rewrites
// the sample from the real output.
func TestReadmeFirstCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a detection campaign on the example; skipped in -short mode")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	text, blocks := readmeBlocks(t)
	if len(blocks) < 3 || blocks[0].info != "sh" || blocks[1].info != "" || blocks[2].info != "sh" {
		t.Fatalf("README must open with the command (sh), its output, then the test-suite command (sh); blocks %+v", blocks[:min(len(blocks), 3)])
	}
	command := strings.TrimSpace(blocks[0].body(text))
	if strings.Contains(command, "\n") {
		t.Fatalf("the first command must be one line a user pastes:\n%s", command)
	}
	ci, err := os.ReadFile(filepath.Join(".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if suite := strings.TrimSpace(blocks[2].body(text)); !bytes.Contains(ci, []byte("\n"+suite+"\n")) {
		t.Errorf(".ci/run does not run the README's test command %q", suite)
	}

	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	goEnv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	caches := strings.Fields(string(goEnv))
	var outputs []string
	for _, gobin := range []bool{true, false} {
		home := t.TempDir()
		binDir := filepath.Join(home, "go", "bin")
		env := []string{
			"HOME=" + home,
			"PATH=" + filepath.Dir(goBin) + ":/usr/bin:/bin",
			"GOPATH=" + filepath.Join(home, "go"),
			"GOCACHE=" + caches[0], "GOMODCACHE=" + caches[1], // what the machine has built and downloaded
			"GOPROXY=off", "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local",
			"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		}
		if gobin {
			binDir = filepath.Join(home, "bin")
			env = append(env, "GOBIN="+binDir)
		}
		cmd := exec.Command("sh", "-c", command)
		cmd.Dir, cmd.Env = root, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("GOBIN set: %v: %s: %v\n%s", gobin, command, err, stderr.Bytes())
		}
		// The machine's paths, as the README shows them.
		out := strings.NewReplacer(
			binDir+"/", "/home/you/go/bin/",
			filepath.Join(home, ".cache")+"/", "/home/you/.cache/",
			root+"/", "/home/you/atomicx/",
		).Replace(stdout.String())
		outputs = append(outputs, out)
	}
	if stableOutput(outputs[0]) != stableOutput(outputs[1]) {
		t.Errorf("the output with GOBIN set differs from the one without:\n%s\n---\n%s", outputs[0], outputs[1])
	}
	if *updateReadme {
		text = text[:blocks[1].start] + outputs[0] + text[blocks[1].end:]
		if err := os.WriteFile("README.md", []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got, want := stableOutput(outputs[0]), stableOutput(blocks[1].body(text)); got != want {
		t.Errorf("the README's sample output is stale (go test -run TestReadmeFirstCommand -update-readme rewrites it); the command printed:\n%s", outputs[0])
	}
}

// stableOutput blanks what changes from run to run and machine to
// machine: atomicx's version, the date, the Go version, the journal's
// hash, the plan's ID (which hashes the test binaries), the times.
func stableOutput(s string) string {
	for _, r := range []struct {
		re   *regexp.Regexp
		with string
	}{
		{regexp.MustCompile(`(?m)^atomicx \S+, `), "atomicx VERSION, "},
		{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`), "DATE"},
		{regexp.MustCompile(`\bgo1\.\d+(\.\d+)?\S*,`), "GOVERSION,"},
		{regexp.MustCompile(`campaigns/[0-9a-f]{16}`), "campaigns/HASH"},
		{regexp.MustCompile(`(?m)^plan [0-9a-f]{16}$`), "plan ID"},
		{regexp.MustCompile(`wall time [0-9hmsµ.]+, experiment time [0-9hmsµ.]+`), "wall time T, experiment time T"},
	} {
		s = r.re.ReplaceAllString(s, r.with)
	}
	return s
}

// TestReadmeInstallLine: the README's install line for users names this
// module's command, at its latest version.
func TestReadmeInstallLine(t *testing.T) {
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod names no module")
	}
	text, blocks := readmeBlocks(t)
	want := "go install " + string(m[1]) + "/cmd/atomicx@latest"
	for _, b := range blocks {
		if b.info == "sh" && strings.Contains(b.body(text), want+"\n") {
			return
		}
	}
	t.Errorf("no sh block of the README runs %q", want)
}
