//go:build !linux

package rt

import (
	"errors"
	"os"
)

// appendMode cannot read a file's flags here: no write is undone.
func appendMode(*os.File) (bool, error) {
	return false, errors.New("the file's flags are read on Linux only")
}
