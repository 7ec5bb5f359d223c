package toolexec

import (
	"strings"

	"github.com/atomicx/atomicx/internal/gobuild"
)

// takeKey removes the build key flags from a compile command line and
// returns the last one's value.
func takeKey(args []string) (rest []string, key string) {
	rest = args[:0:0]
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, gobuild.KeyFlag); ok {
			key = v
			continue
		}
		rest = append(rest, a)
	}
	return rest, key
}
