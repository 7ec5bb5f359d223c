package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/coverage"
	"github.com/atomicx/atomicx/report"
)

// addCoverage attaches to rep the coverage of a campaign run with -cover,
// read from the counters in its directory and the sources of the
// packages it covered; a campaign without -cover, or without a header,
// has none.
func addCoverage(ctx context.Context, rep *report.Report, hdr *campaign.Header) error {
	if hdr == nil || !hdr.Cover {
		return nil
	}
	tests, injected := campaign.CoverDirs(hdr.Journal)
	before, err := coverage.ReadDirs(ctx, hdr.Dir, tests)
	if err != nil {
		return fmt.Errorf("coverage of the tests alone: %w", err)
	}
	after, err := coverage.ReadDirs(ctx, hdr.Dir, tests, injected)
	if err != nil {
		return fmt.Errorf("coverage with injection: %w", err)
	}
	var flags []string
	for _, a := range hdr.BuildArgs {
		if strings.HasPrefix(a, "-tags=") {
			flags = append(flags, a)
		}
	}
	src, err := coverage.LoadSources(ctx, hdr.Dir, flags, hdr.Patterns)
	if err != nil {
		return err
	}
	rep.Coverage = coverage.Build(before, after, src)
	return nil
}
