package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// anchors are the link targets of a Markdown page's headings, as GitHub
// makes them: lower case, punctuation dropped, spaces as hyphens, a
// number after a heading seen before.
func anchors(page string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestLinks: every link between the README and the pages leads to a file
// that is there and, with a #fragment, to one of its headings; and the
// README links every page.
func TestLinks(t *testing.T) {
	files, _ := filepath.Glob("*.md")
	files = append(files, "../README.md")
	texts := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[filepath.Clean(f)] = string(b)
	}
	for _, f := range files {
		from := filepath.Clean(f)
		for _, m := range link.FindAllStringSubmatch(texts[from], -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			to := from
			if file != "" {
				to = filepath.Clean(filepath.Join(filepath.Dir(from), file))
			}
			text, ok := texts[to]
			if !ok {
				if _, err := os.Stat(to); err != nil {
					t.Errorf("%s: link %s: no file %s", from, target, to)
				}
				continue
			}
			if frag != "" && !anchors(text)[frag] {
				t.Errorf("%s: link %s: %s has no heading #%s", from, target, to, frag)
			}
		}
	}
	for _, topic := range Topics() {
		if !strings.Contains(texts[filepath.Clean("../README.md")], "](docs/"+topic+".md") {
			t.Errorf("the README does not link docs/%s.md", topic)
		}
	}
}

func TestAnchors(t *testing.T) {
	got := anchors("# The policy: atomicheck.toml\n## Sharded campaigns: plan, run, merge\n```\n# not a heading\n```\n### Verdicts\n## Verdicts\n#### `-format github`\n")
	for _, want := range []string{"the-policy-atomichecktoml", "sharded-campaigns-plan-run-merge", "verdicts", "verdicts-1", "-format-github"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a fenced line counted as a heading")
	}
}

func TestPage(t *testing.T) {
	for _, topic := range Topics() {
		page, ok := Page(topic)
		b, err := os.ReadFile(topic + ".md")
		if !ok || err != nil || page != string(b) {
			t.Errorf("Page(%q) is not %s.md", topic, topic)
		}
	}
	for _, bad := range []string{"", "../README", "docs.go", "nope"} {
		if _, ok := Page(bad); ok {
			t.Errorf("Page(%q) found a page", bad)
		}
	}
}
