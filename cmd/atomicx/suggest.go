package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/internal/funcname"
	"github.com/atomicx/atomicx/report"
)

const suggestUsage = `usage: atomicx policy suggest [journal-or-report]

Prints the atomicheck.toml rules that mask the pure non-atomic functions a
campaign found: one [[rule]] with mode = "mask" per package, its functions
each under a comment with the evidence. Dependent non-atomic functions are
only named in comments: they become atomic once their callees are masked.
A pure function that wrote to a file, a connection or another process
before failing is only named in a comment too, with the write: a rollback
of memory cannot undo it.
A field that is the first difference of most of a type's non-atomic
methods is proposed, in a comment, as a scratch path for the detect rule.

The argument is a campaign's journal (a directory given to detect -journal,
or its journal.jsonl) or a report written by 'atomicx report -format json';
default: the campaign of ./... here.
`

func policySuggestCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("policy suggest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, suggestUsage) }
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var src string
	switch fs.NArg() {
	case 0:
		wd, err := os.Getwd()
		if err == nil {
			src, err = defaultJournal(wd, []string{"./..."})
		}
		if err != nil {
			fmt.Fprintf(stderr, "atomicx: %v\n", err)
			return 1
		}
	case 1:
		src = fs.Arg(0)
	default:
		fs.Usage()
		return 2
	}
	rep, err := loadReport(src, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	fmt.Fprint(stdout, suggestPolicy(rep, filepath.ToSlash(src)))
	return 0
}

// loadReport reads the report of a campaign from its journal (a directory
// or a journal.jsonl file; the journal's problems go to stderr) or from a
// JSON report, told apart by the report's "schema" field.
func loadReport(src string, stderr io.Writer) (*report.Report, error) {
	if fi, err := os.Stat(src); err == nil && fi.IsDir() {
		src = filepath.Join(src, "journal.jsonl")
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return nil, fmt.Errorf("no journal or report: %w", err)
	}
	var head struct {
		Schema *string `json:"schema"`
	}
	if json.NewDecoder(bytes.NewReader(data)).Decode(&head) == nil && head.Schema != nil {
		if *head.Schema != report.Schema {
			return nil, fmt.Errorf("%s: report schema %q is not %q, the one this atomicx reads: write it again with 'atomicx report -format json'", src, *head.Schema, report.Schema)
		}
		var rep report.Report
		if err := json.Unmarshal(data, &rep); err != nil {
			return nil, fmt.Errorf("reading the report %s: %w", src, err)
		}
		// The names are the maps' keys.
		for name, f := range rep.Functions {
			f.Name = name
		}
		for name, t := range rep.Types {
			t.Name = name
		}
		return &rep, nil
	}
	recs, problems, err := campaign.ReadJournal(src)
	if err != nil {
		return nil, err
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "%s\n", p)
	}
	return report.Classify(recs, problems), nil
}

const suggestHeader = `# mode = "mask" makes a failing call of each function listed roll back what it
# changed, so that its callers see the state they had before the call.
# Add these rules to atomicheck.toml. An exact package path beats a pattern
# such as "./...", so the other packages keep their rule; a package may
# appear in one rule only. Instead of listing the functions, a rule may
# name the report itself: from_report = "report.json" (written with
# atomicx report -format json -o report.json).
#
# A function that is non-atomic on purpose should not be masked: an
# io.Writer's Write that writes part of its input before it reports a short
# write, say. Move it from functions to the rule's ignore list, e.g.
#   ignore = ["(*Writer).Write"]
# and atomicx neither injects faults into it nor reports it. An error that
# means "done" rather than "failed" (an iterator's end) is no failure once
# the rule declares it, e.g.
#   success_errors = ["example.com/m/iter.Done"]
# (io.EOF needs no entry).
`

// suggestPolicy writes the rules that mask the report's pure non-atomic
// functions, one per package, as TOML that policy.Parse reads.
func suggestPolicy(rep *report.Report, src string) string {
	// outside are the pure ones that wrote outside memory before failing:
	// not proposed (see outsideComment).
	type pkgFuncs struct{ pure, outside, dependent []*report.Function }
	byPkg := map[string]*pkgFuncs{}
	npure, npkgs, noutside := 0, 0, 0
	for _, f := range rep.Functions {
		if f.Verdict != report.Pure && f.Verdict != report.Dependent {
			continue
		}
		pkg := funcPackage(f)
		p := byPkg[pkg]
		if p == nil {
			p = &pkgFuncs{}
			byPkg[pkg] = p
		}
		switch {
		case f.Verdict == report.Pure && f.WroteOutside != nil:
			p.outside = append(p.outside, f)
			noutside++
		case f.Verdict == report.Pure:
			if len(p.pure) == 0 {
				npkgs++
			}
			p.pure = append(p.pure, f)
			npure++
		default:
			p.dependent = append(p.dependent, f)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by 'atomicx policy suggest %s'.\n", tomlComment(src))
	switch {
	case npure == 0 && noutside == 0:
		b.WriteString("# The campaign found no pure non-atomic function: there is nothing to mask.\n")
	case npure == 0:
		fmt.Fprintf(&b, "# It found %s, which wrote outside memory before failing: there is nothing to mask.\n", plural(noutside, "pure non-atomic function"))
		b.WriteString(outsideHeader)
	default:
		fmt.Fprintf(&b, "# It found %s in %s", plural(npure, "pure non-atomic function"), plural(npkgs, "package"))
		if noutside > 0 {
			fmt.Fprintf(&b, ", and %d more that wrote outside memory before failing", noutside)
		}
		b.WriteString(".\n#\n")
		b.WriteString(suggestHeader)
		if noutside > 0 {
			b.WriteString("#\n")
			b.WriteString(outsideHeader)
		}
	}
	scratch := scratchCandidates(rep)
	for _, pkg := range slices.Sorted(maps.Keys(byPkg)) {
		p := byPkg[pkg]
		byName := func(fns []*report.Function) {
			sort.Slice(fns, func(i, j int) bool { return relName(fns[i].Name) < relName(fns[j].Name) })
		}
		byName(p.pure)
		byName(p.outside)
		byName(p.dependent)
		b.WriteString("\n")
		if len(p.pure) > 0 {
			fmt.Fprintf(&b, "[[rule]]\npackages = [%s]\nmode = \"mask\"\nfunctions = [\n", tomlString(pkg))
			for _, f := range p.pure {
				fmt.Fprintf(&b, "\t# %s\n\t%s,\n", evidenceComment(f), tomlString(relName(f.Name)))
			}
			b.WriteString("]\n")
		} else {
			what := "no pure non-atomic function"
			if len(p.outside) > 0 {
				what += " to mask"
			}
			fmt.Fprintf(&b, "# %s: %s, no rule.\n", tomlComment(pkg), what)
		}
		if len(p.pure) > 0 {
			b.WriteString("ignore = [] # functions non-atomic on purpose (see above)\n")
		}
		for _, f := range p.outside {
			fmt.Fprintf(&b, "%s", outsideComment(f))
		}
		for _, f := range p.dependent {
			fmt.Fprintf(&b, "# dependent: atomic once its callees are masked; not masked: %s\n#   %s\n",
				tomlComment(relName(f.Name)), evidenceComment(f))
		}
		writeScratchCandidates(&b, pkg, scratch[pkg])
	}
	return b.String()
}

const outsideHeader = `# A function that wrote to a file, a connection or another process before it
# failed is not proposed: a rollback of its memory cannot undo the write, and
# masked, it would leave memory and the file out of step (a log's index rolled
# back while its entry stays on disk). Repair it instead: write last, once
# nothing can fail, or undo the write on failure (truncate the file back).
# A mask build refuses it unless the rule lists it in outside_writes (its memory
# rolled back, the file not), or, for writes to an *os.File, in undo_files
# (the writes undone with the memory).
`

// outsideComment lists a pure function that wrote outside memory before
// failing: why it is not proposed, its evidence, and what to do.
func outsideComment(f *report.Function) string {
	name := relName(f.Name)
	w := f.WroteOutside
	to := "outside memory"
	if w.File != "" {
		to = "to " + w.File
	}
	undo := ""
	if undoableWrite(w.Call) {
		undo = "; to undo its writes to files with its memory, list it in functions and in undo_files = [" + tomlComment(tomlString(name)) + "]"
	}
	return tomlComment(fmt.Sprintf("# not masked: %s wrote %s before failing: a rollback of memory cannot undo it (%s at %s; %s)", name, to, w.Call, w.Pos, plural(f.WroteOutsideCalls, "failed call"))) + "\n" +
		"#   " + evidenceComment(f) + "\n" +
		"#   repair it (write last, or undo the write on failure)" + undo + "; to mask its memory anyway, list it in functions and in outside_writes = [" + tomlComment(tomlString(name)) + "]\n"
}

// undoableWrite reports whether a write outside memory is one that a
// rule's undo_files undoes: an *os.File's writes.
func undoableWrite(callee string) bool {
	switch callee {
	case "(*os.File).Write", "(*os.File).WriteString", "(*os.File).WriteAt", "(*os.File).ReadFrom", "(*os.File).Truncate":
		return true
	}
	return false
}

// funcPackage is the import path of a function's package: the directory
// of its position, else the part of its name before the first dot after
// the last slash.
func funcPackage(f *report.Function) string {
	if file, _, ok := strings.Cut(f.Pos, ":"); ok && strings.Contains(file, "/") {
		return path.Dir(file)
	}
	if pkg, _, ok := funcname.Split(f.Name); ok {
		return pkg // unescaped: gopkg.in/ini%2ev1 is gopkg.in/ini.v1
	}
	return f.Name
}

// relName is a function's name relative to its package, as policy
// function patterns write it: example.com/m.(*T).M → (*T).M.
func relName(name string) string {
	_, rel, _ := funcname.Split(name)
	return rel
}

// evidenceComment says why a function is listed: its first differing
// path, before → after, and the failure that showed it.
func evidenceComment(f *report.Function) string {
	e := f.Evidence
	if e == nil {
		return fmt.Sprintf("%s: %d of %d failed calls changed the state", f.Verdict, f.NonAtomic, f.Failures)
	}
	how := "natural " + e.Failure
	if e.Injection != "" {
		how = "injected " + e.Injection
	}
	only := ""
	if f.Visibility == report.Stream || f.Visibility == report.Scratch || f.Visibility == report.Normalization {
		only = ", only " + f.Visibility
	}
	return tomlComment(fmt.Sprintf("%s: %s → %s (%s in %s; %d of %d failed calls%s)",
		e.Path, clip(e.Before), clip(e.After), how, e.Test, f.NonAtomic, f.Failures, only))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func clip(s string) string {
	const most = 60
	if r := []rune(s); len(r) > most {
		return string(r[:most]) + "…"
	}
	return s
}

// tomlComment makes s fit on one comment line: TOML allows no control
// characters there.
func tomlComment(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
