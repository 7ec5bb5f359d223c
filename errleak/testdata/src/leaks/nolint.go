package leaks

import "os"

// docSuppressed keeps its file open for the process on purpose.
//
//nolint:errleak // the file lives as long as the process
func docSuppressed(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

func declSuppressed(p string) error { //nolint:errleak
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// A suppression for another linter suppresses nothing here.
//
//nolint:bodyclose
func otherLinter(p string) error {
	f, err := os.Open(p) // want `file from os.Open is not released \(Close\) on the path to the return at line 39`
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}
