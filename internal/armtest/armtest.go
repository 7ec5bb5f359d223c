// Package armtest checks, in the tests of the questions, that an
// environment a planner arms a run with parses back, without a problem,
// to the arming it meant, and sets each variable once.
package armtest

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/rt/arm"
)

// Check fails t unless env sets each variable once and parses back to
// want without a problem.
func Check(t testing.TB, env []string, want arm.Arming) {
	t.Helper()
	seen := map[string]bool{}
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if seen[name] {
			t.Errorf("%s set twice in %q", name, env)
		}
		seen[name] = true
	}
	got, problems := arm.Parse(Getenv(env))
	if len(problems) > 0 {
		t.Errorf("%q: %q", env, problems)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%q parses to\n%+v, want\n%+v", env, got, want)
	}
}

// Getenv looks names up in a list of "NAME=value", the last first, as a
// process started with the list sees them.
func Getenv(env []string) func(string) string {
	return func(name string) string {
		for _, kv := range slices.Backward(env) {
			if n, v, ok := strings.Cut(kv, "="); ok && n == name {
				return v
			}
		}
		return ""
	}
}
