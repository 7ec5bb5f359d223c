// Package docsample ties the command output shown in atomicx's docs to the
// end-to-end tests that produce it. A page marks an output block with an
// HTML comment on the line before its fence,
//
//	<!-- output: NAME -->
//
// and a test script that runs the command checks its output against the
// block ("docsample PAGE:NAME stdout"), so that a change of the output
// that the page does not follow fails a test.
//
// A block shows the output as it is, with two liberties: "…" in a line
// stands for any text, and a line that is only "…" for any lines, none
// included; and a duration (1.3s, 35.604s, 92ms) stands for any duration.
package docsample

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/atomicx/atomicx/docs"
)

// A Sample is an output block of a page that a test checks.
type Sample struct {
	Page string // the topic: "detect" for docs/detect.md
	Name string // from its marker
	Line int    // of its first line in the page, from 1
	Text string // its lines, each ending in a newline
}

// ID is how a test script names the sample: PAGE:NAME.
func (s Sample) ID() string { return s.Page + ":" + s.Name }

// A Block is a fenced block of a page, marked or not.
type Block struct {
	Sample
	Info   string // the fence's info string: "sh", "toml", "" ...
	Marked bool   // preceded by an output marker
}

var marker = regexp.MustCompile(`^<!-- output: ([A-Za-z0-9_-]+) -->$`)

// Blocks returns the fenced blocks of a page's text.
func Blocks(page, text string) ([]Block, error) {
	var blocks []Block
	lines := strings.SplitAfter(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\n")
		info, ok := strings.CutPrefix(line, "```")
		if !ok {
			continue
		}
		b := Block{Info: info, Sample: Sample{Page: page, Line: i + 2}}
		if i > 0 {
			if m := marker.FindStringSubmatch(strings.TrimRight(lines[i-1], "\n")); m != nil {
				b.Name, b.Marked = m[1], true
			}
		}
		var body strings.Builder
		for i++; ; i++ {
			if i >= len(lines) {
				return nil, fmt.Errorf("docs/%s.md:%d: block not closed", page, b.Line-1)
			}
			if strings.TrimRight(lines[i], "\n") == "```" {
				break
			}
			body.WriteString(lines[i])
		}
		b.Text = body.String()
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// All returns the marked blocks of every page.
func All() ([]Sample, error) {
	var out []Sample
	for _, topic := range docs.Topics() {
		text, _ := docs.Page(topic)
		blocks, err := Blocks(topic, text)
		if err != nil {
			return nil, err
		}
		for _, b := range blocks {
			if b.Marked {
				out = append(out, b.Sample)
			}
		}
	}
	return out, nil
}

// Find returns the sample that id (PAGE:NAME) names.
func Find(id string) (Sample, error) {
	all, err := All()
	if err != nil {
		return Sample{}, err
	}
	for _, s := range all {
		if s.ID() == id {
			return s, nil
		}
	}
	return Sample{}, fmt.Errorf("no output block marked %q in the docs (want PAGE:NAME, marked <!-- output: NAME --> in docs/PAGE.md)", id)
}

var duration = regexp.MustCompile(`\b\d+(?:\.\d+)?(?:h|m|s|ms|µs|ns)(?:\d+(?:\.\d+)?(?:m|s|ms|µs|ns))*\b`)

const anyDuration = `\d+(?:\.\d+)?(?:h|m|s|ms|µs|ns)(?:\d+(?:\.\d+)?(?:m|s|ms|µs|ns))*`

// pattern is the regular expression that output the sample shows matches.
func (s Sample) pattern() *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`\A`)
	for _, line := range strings.SplitAfter(s.Text, "\n") {
		if line == "" {
			continue
		}
		text := strings.TrimSuffix(line, "\n")
		if text == "…" {
			b.WriteString(`(?:[^\n]*\n)*?`)
			continue
		}
		for i, part := range strings.Split(text, "…") {
			if i > 0 {
				b.WriteString(`[^\n]*?`)
			}
			last := 0
			for _, m := range duration.FindAllStringIndex(part, -1) {
				b.WriteString(regexp.QuoteMeta(part[last:m[0]]))
				b.WriteString(anyDuration)
				last = m[1]
			}
			b.WriteString(regexp.QuoteMeta(part[last:]))
		}
		b.WriteString(`\n`)
	}
	b.WriteString(`\z`)
	return regexp.MustCompile(b.String())
}

// Check says how output differs from what the sample shows, or returns
// nil when the sample shows it.
func (s Sample) Check(output string) error {
	if output != "" && !strings.HasSuffix(output, "\n") {
		output += "\n"
	}
	if s.pattern().MatchString(output) {
		return nil
	}
	return fmt.Errorf("docs/%s.md:%d: the block marked %q does not show the output:\n%s\nwhat the block shows:\n%s", s.Page, s.Line, s.Name, s.firstDifference(output), s.Text)
}

// firstDifference names the first line of the sample that no line of the
// output, from where the lines before it matched, matches: the place to
// look at when the output changed.
func (s Sample) firstDifference(output string) string {
	var prefix []string
	lines := strings.SplitAfter(s.Text, "\n")
	for _, line := range lines {
		if line == "" {
			continue
		}
		try := Sample{Text: strings.Join(append(prefix, line), "") + "…\n"}
		if !try.pattern().MatchString(output) {
			return fmt.Sprintf("from the block's line %q on, the output differs; the output is:\n%s", strings.TrimSuffix(line, "\n"), output)
		}
		prefix = append(prefix, line)
	}
	return "the output has lines after the block's last:\n" + output
}
