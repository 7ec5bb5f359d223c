package leaks

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
)

// parse only reads r: a file passed to it is still the caller's.
func parse(r io.Reader) error { // want parse:`borrows param 0`
	var v map[string]any
	return json.NewDecoder(r).Decode(&v)
}

func parseLeak(p string) error {
	f, err := os.Open(p) // want `file from os.Open is not released \(Close\) on the path to the return at line 23`
	if err != nil {
		return err
	}
	if err := parse(f); err != nil {
		return err
	}
	return f.Close()
}

func parseClosed(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return parse(f)
}

// A borrower that hands the reader to another borrower borrows too.
func parseTwice(r io.Reader) error { // want parseTwice:`borrows param 0`
	if err := parse(r); err != nil {
		return err
	}
	return parse(r)
}

func parseTwiceLeak(p string) error {
	f, err := os.Open(p) // want `file from os.Open is not released \(Close\) on the path to the return at line 51`
	if err != nil {
		return err
	}
	if err := parseTwice(f); err != nil {
		return err
	}
	return f.Close()
}

// keepReader keeps r: a file passed to it is handed over.
type decoder struct{ r io.Reader }

var current *decoder

func keepReader(r io.Reader) error {
	current = &decoder{r: r}
	return nil
}

func handedOver(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	return keepReader(f)
}

// Standard wrappers borrow what they wrap: closing a gzip.Reader does not
// close its file.
func gzipLeak(p string) ([]byte, error) {
	f, err := os.Open(p) // want `file from os.Open is not released \(Close\) on the path to the return at line 83`
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	defer f.Close()
	return io.ReadAll(zr)
}

func bufioLeak(p string) (string, error) {
	f, err := os.Open(p) // want `file from os.Open is not released \(Close\) on the path to the return at line 97`
	if err != nil {
		return "", err
	}
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		return "", err
	}
	return line, f.Close()
}

func limitClosed(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 1<<20))
}

// A wrapper that leaves the function takes what it wraps along.
func wrapperReturned(p string) (*bufio.Reader, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	return bufio.NewReader(f), nil
}

var readers []*bufio.Scanner

func wrapperStored(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	readers = append(readers, bufio.NewScanner(f))
	return parse(f)
}
