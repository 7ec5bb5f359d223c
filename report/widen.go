package report

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/atomicx/atomicx/question/handlers"
)

// The kept widenings of a handlers campaign, as a unified diff of the
// sources: each kept arm's predicate, on the arm's line, rewritten to
// the widened one (errors.Is(err, ErrX) becomes err != nil): conditions
// of if statements and of cases of switches without tag. A kept case of a
// type switch, or of a switch on the error, is not in the diff: widened, it runs for any error that no
// case before it takes, which no edit of its line says; the report lists
// it, to be rewritten by hand. The diff is offered only when the kept
// widenings passed together.
//
// The kept routings, when they passed together, are in the diff too: the
// region's call, on the region's line, wrapped in a function literal
// that returns its results and turns its panic into its error with a
// deferred recover:
//
//	v, err := func() (_ string, err error) {
//		defer func() {
//			if r := recover(); r != nil {
//				err = fmt.Errorf("c.lookup(k): panic: %v", r)
//			}
//		}()
//		return c.lookup(k)
//	}()
//
// A file that does not import fmt is left out, and said so.

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
	widen := r.Together != nil && r.Together.Status == handlers.WidenKept
	route := r.RoutedTogether != nil && r.RoutedTogether.Status == handlers.WidenKept
	switch {
	case r.Together == nil:
		skipped = append(skipped, "no widening was kept")
	case !widen:
		skipped = append(skipped, "the kept widenings together are "+r.Together.Status+": "+r.Together.Why)
	}
	if r.RoutedTogether != nil && !route {
		skipped = append(skipped, "the kept routings together are "+r.RoutedTogether.Status+": "+r.RoutedTogether.Why)
	}
	if !widen && !route {
		return 0, skipped, nil
	}
	type edit struct {
		line    int // 1-based
		newText string
	}
	files := map[string]*SourceFile{}
	lines := map[string][]string{}
	edits := map[string][]edit{}
	// fileAt reads the file of pos once, and returns its name, line and
	// column.
	fileAt := func(h *HandlerFinding, pos string) (string, int, int) {
		name, line, col := splitPos(pos)
		if line == 0 {
			skipped = append(skipped, h.ID+": no position")
			return "", 0, 0
		}
		if files[name] == nil {
			f, err := read(pos)
			if err != nil {
				skipped = append(skipped, h.ID+": "+err.Error())
				return "", 0, 0
			}
			files[name], lines[name] = f, strings.SplitAfter(string(f.Src), "\n")
		}
		if line > len(lines[name]) {
			skipped = append(skipped, h.ID+": "+pos+" is past the end of the file")
			return "", 0, 0
		}
		return name, line, col
	}
	for _, h := range r.Handlers {
		rt := h.Routing
		if !route || rt == nil || rt.Status != handlers.WidenKept || rt.Call == "" {
			continue
		}
		if rt.Results == "" {
			skipped = append(skipped, h.ID+": the results of "+rt.Call+" cannot be named: route its panic by hand")
			continue
		}
		name, line, _ := fileAt(h, h.Region)
		if line == 0 {
			continue
		}
		if !bytes.Contains(files[name].Src, []byte(`"fmt"`)) {
			skipped = append(skipped, h.ID+": "+files[name].Name+" does not import fmt: route the panic of "+rt.Call+" by hand")
			continue
		}
		text := lines[name][line-1]
		i := strings.Index(text, rt.Call)
		if i < 0 {
			skipped = append(skipped, h.ID+": "+strconv.Quote(rt.Call)+" is not at "+h.Region+" any more")
			continue
		}
		indent := text[:len(text)-len(strings.TrimLeft(text, " \t"))]
		lines[name][line-1] = text[:i] + routedCall(rt.Call, rt.Results, indent) + text[i+len(rt.Call):]
		edits[name] = append(edits[name], edit{line, lines[name][line-1]})
		n++
	}
	for _, h := range r.Handlers {
		if !widen || h.Widening == nil || h.Widening.Status != handlers.WidenKept || h.Widening.Widened == "" {
			continue
		}
		if strings.HasPrefix(h.Predicate, "case ") {
			skipped = append(skipped, h.ID+": a case of a switch on the error or on its type is not rewritten in the diff: widened, it takes every error that no case before it takes")
			continue
		}
		file, line, col := fileAt(h, h.Pos)
		if line == 0 {
			continue
		}
		ls := lines[file]
		if strings.Contains(h.Predicate, "\n") {
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
	for _, file := range slices.Sorted(maps.Keys(edits)) {
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

// routedCall is call wrapped in a function literal, called at once, that
// returns its results (results, as its result list: "_ string, err
// error") and turns its panic into its error; indent is that of the
// call's line.
func routedCall(call, results, indent string) string {
	last := results
	if i := strings.LastIndex(results, ", "); i >= 0 {
		last = results[i+2:]
	}
	errName, _, _ := strings.Cut(last, " ")
	format := strconv.Quote(strings.ReplaceAll(call, "%", "%%") + ": panic: %v")
	var b strings.Builder
	fmt.Fprintf(&b, "func() (%s) {\n", results)
	fmt.Fprintf(&b, "%s\tdefer func() {\n", indent)
	fmt.Fprintf(&b, "%s\t\tif r := recover(); r != nil {\n", indent)
	fmt.Fprintf(&b, "%s\t\t\t%s = fmt.Errorf(%s, r)\n", indent, errName, format)
	fmt.Fprintf(&b, "%s\t\t}\n", indent)
	fmt.Fprintf(&b, "%s\t}()\n", indent)
	fmt.Fprintf(&b, "%s\treturn %s\n", indent, call)
	fmt.Fprintf(&b, "%s}()", indent)
	return b.String()
}

// writeHunks writes the hunks of a diff between old and new, which have
// the same lines but for the changed ones (0-based), with 3 lines of
// context. A changed line of new may be several lines.
func writeHunks(w io.Writer, old, new []string, changed map[int]bool) {
	const context = 3
	var at []int
	for i := range changed {
		at = append(at, i)
	}
	sort.Ints(at)
	added := 0 // lines new has more than old, before the hunk
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
		count, newCount := end-start, 0
		for i := start; i < end; i++ {
			if changed[i] {
				newCount += strings.Count(strings.TrimSuffix(new[i], "\n"), "\n")
			}
		}
		newCount += count
		fmt.Fprintf(w, "@@ -%d,%d +%d,%d @@\n", start+1, count, start+1+added, newCount)
		added += newCount - count
		for i := start; i < end; i++ {
			l := strings.TrimSuffix(old[i], "\n")
			if changed[i] {
				fmt.Fprintf(w, "-%s\n", l)
				for _, nl := range strings.Split(strings.TrimSuffix(new[i], "\n"), "\n") {
					fmt.Fprintf(w, "+%s\n", nl)
				}
			} else {
				fmt.Fprintf(w, " %s\n", l)
			}
		}
		at = at[k:]
	}
}
