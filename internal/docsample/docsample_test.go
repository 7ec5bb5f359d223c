package docsample

import (
	"strings"
	"testing"

	"github.com/atomicx/atomicx/docs"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name, block, output string
		ok                  bool
	}{
		{"same", "a\nb\n", "a\nb\n", true},
		{"no final newline", "a\nb\n", "a\nb", true},
		{"other line", "a\nb\n", "a\nc\n", false},
		{"more lines", "a\n", "a\nb\n", false},
		{"fewer lines", "a\nb\n", "a\n", false},
		{"elided text", "x=…;\n", "x=/tmp/w/1;\n", true},
		{"elision stays in its line", "x=…;\n", "x=1\n;\n", false},
		{"elided lines", "a\n…\nd\n", "a\nb\nc\nd\n", true},
		{"elided no line", "a\n…\nd\n", "a\nd\n", true},
		{"elided tail", "a\n…\n", "a\nb\nc\n", true},
		{"duration", "wall time 1.3s, 92ms\n", "wall time 2m5.25s, 4µs\n", true},
		{"not a duration", "line 27\n", "line 28\n", false},
		{"special characters", "(*T).M: a → b [x]\n", "(*T).M: a → b [x]\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Sample{Page: "p", Name: "n", Line: 1, Text: tc.block}
			err := s.Check(tc.output)
			if (err == nil) != tc.ok {
				t.Errorf("Check(%q) of block %q = %v, want ok %v", tc.output, tc.block, err, tc.ok)
			}
		})
	}
}

func TestBlocks(t *testing.T) {
	page := "text\n\n<!-- output: report -->\n```\nout 1\nout 2\n```\n\n```sh\ncmd\n```\n"
	blocks, err := Blocks("p", page)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 {
		t.Fatalf("got %d blocks, want 2: %+v", len(blocks), blocks)
	}
	if b := blocks[0]; !b.Marked || b.Name != "report" || b.Line != 5 || b.Text != "out 1\nout 2\n" || b.Info != "" {
		t.Errorf("first block: %+v", b)
	}
	if b := blocks[1]; b.Marked || b.Info != "sh" || b.Text != "cmd\n" {
		t.Errorf("second block: %+v", b)
	}
	if _, err := Blocks("p", "```\nnot closed\n"); err == nil {
		t.Error("an unclosed block: no error")
	}
}

// TestOutputBlocksAreMarked: every block of the docs that shows output
// (no info string, or "text") is marked, so that a test produces it, and
// names are unique per page.
func TestOutputBlocksAreMarked(t *testing.T) {
	for _, topic := range docs.Topics() {
		text, _ := docs.Page(topic)
		blocks, err := Blocks(topic, text)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, b := range blocks {
			if !b.Marked {
				if b.Info == "" || b.Info == "text" {
					t.Errorf("docs/%s.md:%d: an output block without an output marker (<!-- output: NAME --> on the line before it, and a test script that checks it): %q", topic, b.Line, firstLine(b.Text))
				}
				continue
			}
			if seen[b.Name] {
				t.Errorf("docs/%s.md:%d: a second block marked %q", topic, b.Line, b.Name)
			}
			seen[b.Name] = true
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
