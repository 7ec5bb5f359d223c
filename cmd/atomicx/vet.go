package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/atomicx/atomicx/errleak"
	"github.com/atomicx/atomicx/report"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"
)

// vetCmd runs the errleak analysis on packages: resources left open on a
// path to a return. It exits 1 when it reports, like go vet.
func vetCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("vet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stats := fs.Bool("stats", false, "print, on standard error, how many findings each filter removed")
	policyPath := fs.String("policy", "", "atomicheck.toml to read [[leak.resource]] tables from (default: the one found from each package's directory; off: none)")
	tests := fs.Bool("tests", true, "analyze the packages' test files too")
	panics := fs.Bool("panics", false, "also report locks still held on a path that ends in a panic (off by default: most panics end the program; the lock matters where a caller recovers)")
	format := fs.String("format", "text", "output format: text (file:line:col lines), sarif (SARIF 2.1.0 with code flows) or github (GitHub Actions annotations)")
	out := fs.String("o", "", "write the findings to this file instead of standard output")
	confirm := fs.Bool("confirm", false, "run the packages' tests with the failure that opens each finding's path injected, and say which findings a test takes to the reported return")
	jobs := fs.Int("jobs", runtime.NumCPU(), "with -confirm: experiments run at once")
	timeout := fs.Duration("timeout", time.Minute, "with -confirm: time limit of one test run")
	run := fs.String("run", "", "with -confirm: run only the tests whose names match this regular expression")
	journal := fs.String("journal", "", "with -confirm: directory for the campaign's journal, test binaries and policy (default: one per module and packages in the user cache)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: atomicx vet [-stats] [-policy file] [-tests=false] [-panics] [-format text|sarif|github] [-o file]\n"+
			"                   [-confirm [-jobs N] [-timeout d] [-run regexp] [-journal dir]] [packages]\n\n"+
			"With -confirm, each finding outside test files whose path a failed call opens\n"+
			"is run: the packages' tests, built for detection, with that call's failure\n"+
			"injected, and the finding is confirmed when the function then returns with a\n"+
			"failure at the reported return; a file, connection or listener is then probed:\n"+
			"still open at that return, or closed.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *format != "text" && *format != "sarif" && *format != "github" {
		fmt.Fprintf(stderr, "atomicx vet: unknown -format %q (known formats: text, sarif, github)\n", *format)
		return 2
	}
	if *policyPath != "" {
		if err := errleak.Analyzer.Flags.Set("policy", *policyPath); err != nil {
			fmt.Fprintf(stderr, "atomicx vet: %v\n", err)
			return 2
		}
	}
	if err := errleak.Analyzer.Flags.Set("panics", fmt.Sprint(*panics)); err != nil {
		fmt.Fprintf(stderr, "atomicx vet: %v\n", err)
		return 2
	}
	var runRE *regexp.Regexp
	if *run != "" {
		re, err := regexp.Compile(*run)
		if err != nil {
			fmt.Fprintf(stderr, "atomicx vet: -run: %v\n", err)
			return 2
		}
		runRE = re
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Tests: *tests}
	roots, err := packages.Load(cfg, patterns...)
	if err != nil {
		fmt.Fprintf(stderr, "atomicx vet: %v\n", err)
		return 2
	}
	if n := packages.PrintErrors(roots); n > 0 {
		return 2
	}
	v := &vetRun{facts: make(map[factKey]analysis.Fact), done: make(map[*packages.Package]*vetResult)}
	var diags []string
	var leaks []report.Leak
	total := errleak.Stats{Removed: make(map[string]int)}
	wd, _ := os.Getwd()
	seen := make(map[string]bool) // a test variant repeats its package's files
	var findings []vetFinding
	findingPkgs := map[string]bool{}
	seenFinding := map[string]bool{}
	for _, p := range roots {
		res := v.analyze(p)
		if res.err != nil {
			fmt.Fprintf(stderr, "atomicx vet: %s: %v\n", p.PkgPath, res.err)
			return 2
		}
		for _, d := range res.diags {
			line := formatDiag(p.Fset, d, wd)
			if !seen[line] {
				seen[line] = true
				diags = append(diags, line)
				leaks = append(leaks, leakOf(p.Fset, d, wd))
			}
		}
		if s, ok := res.result.(*errleak.Stats); ok && !isTestMain(p) {
			for _, f := range findingsOf(p, s.Findings, wd) {
				if !seenFinding[f.pos] {
					seenFinding[f.pos] = true
					findings = append(findings, f)
					if f.target != nil {
						findingPkgs[p.PkgPath] = true
					}
				}
			}
			total.Reported += s.Reported
			for k, n := range s.Removed {
				total.Removed[k] += n
			}
		}
	}
	if *confirm {
		answers, err := confirmFindings(findings, findingPkgs, confirmOptions{jobs: *jobs, timeout: *timeout, run: runRE,
			journal: *journal, args: args}, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "atomicx vet: -confirm: %v\n", err)
			return 2
		}
		for i := range leaks {
			if a := answers[leaks[i].Pos]; a != nil {
				leaks[i].Confirmation = a
				diags[i] += confirmLines(a)
			}
		}
	}
	if err := writeFindings(stdout, *out, *format, diags, leaks); err != nil {
		fmt.Fprintf(stderr, "atomicx vet: %v\n", err)
		return 2
	}
	if *stats {
		fmt.Fprintf(stderr, "errleak: %d reported", len(diags))
		keys := make([]string, 0, len(total.Removed))
		for k := range total.Removed {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(stderr, "; %s: %d removed", k, total.Removed[k])
		}
		fmt.Fprintln(stderr)
	}
	if len(diags) > 0 {
		return 1
	}
	return 0
}

// writeFindings writes the findings in format to path, or to stdout.
func writeFindings(stdout io.Writer, path, format string, diags []string, leaks []report.Leak) (err error) {
	w := stdout
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer func() {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}()
		w = f
	}
	if format == "sarif" || format == "github" {
		sort.Slice(leaks, func(i, j int) bool { return leaks[i].Key < leaks[j].Key })
		opt := report.SARIFOptions{Version: version(), SemanticVersion: semanticVersion(version())}
		if format == "sarif" {
			return report.WriteLeaksSARIF(w, leaks, opt)
		}
		var log bytes.Buffer
		if err := report.WriteLeaksSARIF(&log, leaks, opt); err != nil {
			return err
		}
		return report.WriteGitHubAnnotations(w, log.Bytes())
	}
	sort.Strings(diags)
	for _, d := range diags {
		if _, err := fmt.Fprint(w, d); err != nil {
			return err
		}
	}
	return nil
}

// leakOf turns a diagnostic into a report.Leak, positions relative to
// the current directory. Its key is the file, the message without line
// numbers and the column, so that it survives lines moved above it.
func leakOf(fset *token.FileSet, d analysis.Diagnostic, wd string) report.Leak {
	pos := fset.Position(d.Pos)
	l := report.Leak{Pos: vetPos(pos, wd), Message: d.Message}
	file, _, _ := strings.Cut(l.Pos, ":")
	what, _, _ := strings.Cut(d.Message, " on the path")
	l.Key = fmt.Sprintf("%s:%s:%d", file, what, pos.Column)
	for _, r := range d.Related {
		l.Path = append(l.Path, report.LeakStep{Pos: vetPos(fset.Position(r.Pos), wd), Message: r.Message})
	}
	return l
}

func isTestMain(p *packages.Package) bool { return strings.HasSuffix(p.ID, ".test") }

// formatDiag writes a diagnostic as file:line:col: message, then its
// related positions (the branches of the path), one per indented line.
func formatDiag(fset *token.FileSet, d analysis.Diagnostic, wd string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", vetPos(fset.Position(d.Pos), wd), d.Message)
	for _, r := range d.Related {
		fmt.Fprintf(&b, "\t%s: %s\n", vetPos(fset.Position(r.Pos), wd), r.Message)
	}
	return b.String()
}

func vetPos(p token.Position, wd string) string {
	if rel, err := filepath.Rel(wd, p.Filename); err == nil && !strings.HasPrefix(rel, "..") {
		p.Filename = rel
	}
	return p.String()
}

// vetRun drives the analyzer over a package graph, dependencies first, so
// that the facts a package exports reach its importers. The standard
// library is not analyzed: its resources are errleak's built-in set.
type vetRun struct {
	facts map[factKey]analysis.Fact
	done  map[*packages.Package]*vetResult
}

type factKey struct {
	obj any // types.Object
	typ reflect.Type
}

type vetResult struct {
	diags  []analysis.Diagnostic
	result any
	err    error
}

func (v *vetRun) analyze(p *packages.Package) *vetResult {
	if r := v.done[p]; r != nil {
		return r
	}
	r := &vetResult{}
	v.done[p] = r
	paths := make([]string, 0, len(p.Imports))
	for path := range p.Imports {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		if imp := p.Imports[path]; imp.Module != nil {
			v.analyze(imp)
		}
	}
	if p.Types == nil || p.IllTyped {
		r.err = fmt.Errorf("not type-checked")
		return r
	}
	r.result, r.err = v.run(errleak.Analyzer, p, &r.diags, make(map[*analysis.Analyzer]any))
	return r
}

// run runs a and, first, the analyzers it requires, on p.
func (v *vetRun) run(a *analysis.Analyzer, p *packages.Package, diags *[]analysis.Diagnostic, results map[*analysis.Analyzer]any) (any, error) {
	if r, ok := results[a]; ok {
		return r, nil
	}
	resultOf := make(map[*analysis.Analyzer]any)
	for _, req := range a.Requires {
		r, err := v.run(req, p, diags, results)
		if err != nil {
			return nil, err
		}
		resultOf[req] = r
	}
	pass := &analysis.Pass{
		Analyzer:   a,
		Fset:       p.Fset,
		Files:      p.Syntax,
		OtherFiles: p.OtherFiles,
		Pkg:        p.Types,
		TypesInfo:  p.TypesInfo,
		TypesSizes: p.TypesSizes,
		ResultOf:   resultOf,
		ReadFile:   os.ReadFile,
		Report: func(d analysis.Diagnostic) {
			if a == errleak.Analyzer {
				*diags = append(*diags, d)
			}
		},
		ImportObjectFact: func(obj types.Object, f analysis.Fact) bool {
			got, ok := v.facts[factKey{obj, reflect.TypeOf(f)}]
			if ok {
				reflect.ValueOf(f).Elem().Set(reflect.ValueOf(got).Elem())
			}
			return ok
		},
		ExportObjectFact: func(obj types.Object, f analysis.Fact) {
			v.facts[factKey{obj, reflect.TypeOf(f)}] = f
		},
		ImportPackageFact: func(*types.Package, analysis.Fact) bool { return false },
		ExportPackageFact: func(analysis.Fact) {},
		AllObjectFacts:    func() []analysis.ObjectFact { return nil },
		AllPackageFacts:   func() []analysis.PackageFact { return nil },
	}
	r, err := a.Run(pass)
	if err != nil {
		return nil, err
	}
	results[a] = r
	return r, nil
}
