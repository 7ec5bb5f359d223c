package policy

import (
	"fmt"
	"sort"
	"strings"
)

// Error is one problem found in a policy file, at the key or value that
// caused it.
type Error struct {
	Pos Position
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// ErrorList is every problem found in a policy file, in file order. Parse
// reports them all at once so that a user fixes the file in one pass
// instead of one build per typo.
type ErrorList []*Error

// Error returns one "file:line:col: message" line per problem.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

func (l ErrorList) sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// knownList formats the keys a table accepts, for "unknown key" messages.
func knownList(known []string) string {
	return strings.Join(known, ", ")
}

// suggest returns ` (did you mean "x"?)`-style advice naming the known word
// closest to got, or "" when none is close enough to be a likely typo.
func suggest(got string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if strings.EqualFold(got, k) {
			return k
		}
		// Allow one edit for short words, two for longer ones, and never so
		// many that the whole word could be replaced.
		limit := 1
		if len(k) > 4 {
			limit = 2
		}
		if d := editDistance(got, k); d <= limit && d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// didYouMean appends a suggestion to msg when there is one.
func didYouMean(msg, got string, known []string) string {
	if s := suggest(got, known); s != "" {
		return fmt.Sprintf("%s; did you mean %q?", msg, s)
	}
	return msg
}

// editDistance is the optimal-string-alignment distance: insertions,
// deletions, substitutions and transpositions of neighbours each cost 1,
// so "mdoe" is one edit from "mode".
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return len(ra) + len(rb) // far too long to be a typo of a key
	}
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
