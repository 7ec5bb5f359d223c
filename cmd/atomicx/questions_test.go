package main

import (
	"bytes"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/question"
)

// TestQuestionFlagsAgree: each question's command and plan -question
// take the same flags, but for where the command writes its journal and
// report, how it runs its runs (-fresh: a shard's, atomicx run, says),
// and plan's own -o and -question.
func TestQuestionFlagsAgree(t *testing.T) {
	names := func(fs *flag.FlagSet, skip ...string) []string {
		var out []string
		fs.VisitAll(func(f *flag.Flag) {
			if !slices.Contains(skip, f.Name) {
				out = append(out, f.Name)
			}
		})
		return out
	}
	for _, q := range questions {
		cmd, _ := newCampaignFlags(q, io.Discard)
		plan, _ := planFlags(io.Discard, q)
		got := names(plan, "o", "question")
		want := names(cmd, "journal", "resume", "format", "o", "category", "fresh")
		if !slices.Equal(got, want) {
			t.Errorf("plan -question %s takes %q; atomicx %s takes %q", q.name(), got, q.name(), want)
		}
	}
}

// TestPlanRefusesOtherQuestionsFlags: a flag of another question is
// refused by name, before anything is built.
func TestPlanRefusesOtherQuestionsFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string // on stderr; "" for accepted
	}{
		{[]string{"-o", "p", "-question", "perturb", "-max-occurrences", "2"}, "-max-occurrences is not a flag of -question perturb"},
		{[]string{"-o", "p", "-question", "handlers", "-tests-per-point", "2"}, "-tests-per-point is not a flag of -question handlers"},
		{[]string{"-o", "p", "-oracle", "x", "-exec", "y"}, "-oracle is not a flag of -question detect"},
		{[]string{"-o", "p", "-question", "vet"}, "-question must be detect, perturb or handlers"},
		{[]string{"-o", "p", "-question", "handlers", "-exec", "x", "-oracle", "y"}, ""},
		{[]string{"-o", "p", "-question=perturb", "-tests-per-point", "2", "./..."}, ""},
		{[]string{"-o", "p", "-max-occurrences", "2"}, ""},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		q, ok := planQuestion(tt.args, &stderr)
		if tt.want == "" {
			if !ok || stderr.Len() > 0 {
				t.Errorf("plan %q: refused: %s", tt.args, stderr.String())
				continue
			}
			if fs, _ := planFlags(io.Discard, q); fs.Parse(tt.args) != nil {
				t.Errorf("plan %q: question %s's flags do not parse it", tt.args, q.name())
			}
			continue
		}
		if ok || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("plan %q: ok %t, stderr %q, want %q", tt.args, ok, stderr.String(), tt.want)
		}
	}
}

// TestQuestionCommandsAreQuestions: each question's command is of a
// question of the registry (package question), by value, and has a
// report; the first is the question a journal naming none asked.
func TestQuestionCommandsAreQuestions(t *testing.T) {
	for _, q := range questions {
		if question.Named(q.name()) != q.planner {
			t.Errorf("the command %s is not of the registry's question %s", q.name(), q.name())
		}
		if q.report == nil || q.ran == nil || q.synopsis == "" || q.doc == "" {
			t.Errorf("the command %s lacks its report, its ran line, its synopsis or its doc", q.name())
		}
		// atomicx NAME is the question's command, from the registry.
		var stderr bytes.Buffer
		if code := run([]string{q.name(), "-h"}, io.Discard, &stderr); code != 2 {
			t.Errorf("atomicx %s -h: exit %d, want 2", q.name(), code)
		}
		if want := "usage: atomicx " + q.name() + " " + q.synopsis + "\n\n" + q.doc; !strings.HasPrefix(stderr.String(), want) {
			t.Errorf("atomicx %s -h prints\n%s\nwant it to start with\n%s", q.name(), stderr.String(), want)
		}
	}
	if !questions[0].planner.Unnamed {
		t.Errorf("the default question %s is not the one a journal naming none asked", questions[0].name())
	}
}
