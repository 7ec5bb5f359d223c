package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/report"
)

// writeWidenDiff writes the kept widenings of rep to file as a unified
// diff whose paths are relative to the module's root, and says on stderr
// how many arms it rewrote, or why none.
func writeWidenDiff(stderr io.Writer, file string, rep *report.HandlersReport, hdr *campaign.Header, wd string) error {
	fns := &report.Report{Functions: map[string]*report.Function{}}
	for _, h := range rep.Handlers {
		fns.Functions[h.ID] = &report.Function{Name: h.Func, Pos: h.Pos}
	}
	src := newSources(hdr, wd, fns)
	var buf bytes.Buffer
	n, skipped, err := report.WriteWidenDiff(&buf, rep, func(pos string) (*report.SourceFile, error) {
		abs, _, _ := strings.Cut(src.absolute(pos), ":")
		if !filepath.IsAbs(abs) {
			return nil, fmt.Errorf("the source of %s was not found", pos)
		}
		rel, err := filepath.Rel(src.moduleRoot, abs)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("%s is outside the module", abs)
		}
		b, err := os.ReadFile(abs)
		return &report.SourceFile{Name: filepath.ToSlash(rel), Src: b}, err
	})
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o666); err != nil {
		return fmt.Errorf("writing the widening diff: %w", err)
	}
	fmt.Fprintf(stderr, "widen-diff: %d kept widenings and routings written to %s\n", n, file)
	for _, s := range skipped {
		fmt.Fprintf(stderr, "widen-diff: not written: %s\n", s)
	}
	return nil
}
