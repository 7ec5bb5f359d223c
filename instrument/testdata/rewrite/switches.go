package switches

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Switches have call statements in their headers.
func Switches(s string, r io.Reader) error {
	switch k, err := strconv.Atoi(s); {
	case err != nil:
		return err
	case k > 1:
		return errors.New("big")
	}
	switch k, err := strconv.Atoi(s); k {
	case 1:
		return err
	}
	switch b, err := io.ReadAll(r); x := any(b).(type) {
	case []byte:
		_ = x
		return err
	}
Outer:
	switch k, err := strconv.Atoi(s); k {
	case 1:
		if err != nil {
			break Outer
		}
	}
	return nil
}

// Omitted has calls that are not injection points, one per reason.
func Omitted(w io.Writer, f *os.File) error {
	defer f.Close()
	for _, err := strconv.Atoi("1"); err != nil; _, err = strconv.Atoi("2") {
	}
	if _, err := fmt.Fprint(w, "x"); err != nil {
		return fmt.Errorf("write: %w", f.Close())
	}
	switch f.Close() {
	}
	return nil
}
