package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/atomicx/atomicx/campaign"
)

// The kept widenings of a handlers campaign, as a unified diff of the
// sources: each kept arm's predicate, on the arm's line, rewritten to
// the widened one (errors.Is(err, ErrX) becomes err != nil): conditions
// of if statements and of cases of switches without tag. A kept case of a
// type switch, or of a switch on the error, is not in the diff: widened, it runs for any error that no
// case before it takes, which no edit of its line says; the report lists
// it, to be rewritten by hand. The diff is offered only when the kept
// widenings passed together.

// A SourceFile is what WriteWidenDiff needs of a file: its name in the
// diff (relative to where the diff is applied) and its text.
type SourceFile struct {
	Name string
	Src  []byte
}

// WriteWidenDiff writes the kept widenings of r as a unified diff. read
// gives the file of a position ("import/path/file.go:line:col").
// It returns the number of arms rewritten, and what could not be
// rewritten (a predicate not found where the campaign saw it: the
// source changed since). It writes nothing when no widening was kept,
// or when the kept ones did not pass together, and says why in skipped.
func WriteWidenDiff(w io.Writer, r *HandlersReport, read func(pos string) (*SourceFile, error)) (n int, skipped []string, err error) {
	if r.Together == nil {
		return 0, []string{"no widening was kept"}, nil
	}
	if r.Together.Status != campaign.WidenKept {
		return 0, []string{"the kept widenings together are " + r.Together.Status + ": " + r.Together.Why}, nil
	}
	type edit struct {
		line    int // 1-based
		newText string
	}
	files := map[string]*SourceFile{}
	lines := map[string][]string{}
	edits := map[string][]edit{}
	for _, h := range r.Handlers {
		if h.Widening == nil || h.Widening.Status != campaign.WidenKept || h.Widening.Widened == "" {
			continue
		}
		if strings.HasPrefix(h.Predicate, "case ") {
			skipped = append(skipped, h.ID+": a case of a switch on the error or on its type is not rewritten in the diff: widened, it takes every error that no case before it takes")
			continue
		}
		file, line, col := splitPos(h.Pos)
		if line == 0 {
			skipped = append(skipped, h.ID+": no position")
			continue
		}
		if files[file] == nil {
			f, err := read(h.Pos)
			if err != nil {
				skipped = append(skipped, h.ID+": "+err.Error())
				continue
			}
			files[file], lines[file] = f, strings.SplitAfter(string(f.Src), "\n")
		}
		ls := lines[file]
		if line > len(ls) || strings.Contains(h.Predicate, "\n") {
			skipped = append(skipped, h.ID+": the predicate is not on the arm's line")
			continue
		}
		text := ls[line-1]
		from := min(max(col-1, 0), len(text))
		i := strings.Index(text[from:], h.Predicate)
		if i < 0 {
			skipped = append(skipped, h.ID+": "+strconv.Quote(h.Predicate)+" is not at "+h.Pos+" any more")
			continue
		}
		i += from
		ls[line-1] = text[:i] + h.Widening.Widened + text[i+len(h.Predicate):]
		edits[file] = append(edits[file], edit{line, ls[line-1]})
		n++
	}
	names := make([]string, 0, len(edits))
	for f := range edits {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, file := range names {
		f := files[file]
		old := strings.SplitAfter(string(f.Src), "\n")
		changed := map[int]bool{}
		for _, e := range edits[file] {
			changed[e.line-1] = true
		}
		fmt.Fprintf(w, "--- a/%s\n+++ b/%s\n", f.Name, f.Name)
		writeHunks(w, old, lines[file], changed)
	}
	return n, skipped, nil
}

// writeHunks writes the hunks of a diff between old and new, which have
// the same lines but for the changed ones (0-based), with 3 lines of
// context.
func writeHunks(w io.Writer, old, new []string, changed map[int]bool) {
	const context = 3
	var at []int
	for i := range changed {
		at = append(at, i)
	}
	sort.Ints(at)
	for len(at) > 0 {
		start := max(at[0]-context, 0)
		end := at[0] + context + 1 // exclusive
		k := 1
		for k < len(at) && at[k]-context <= end {
			end = at[k] + context + 1
			k++
		}
		end = min(end, len(old))
		if end > 0 && old[end-1] == "" {
			end-- // the empty string after a final newline
		}
		count := end - start
		fmt.Fprintf(w, "@@ -%d,%d +%d,%d @@\n", start+1, count, start+1, count)
		for i := start; i < end; i++ {
			l := strings.TrimSuffix(old[i], "\n")
			if changed[i] {
				fmt.Fprintf(w, "-%s\n+%s\n", l, strings.TrimSuffix(new[i], "\n"))
			} else {
				fmt.Fprintf(w, " %s\n", l)
			}
		}
		at = at[k:]
	}
}
