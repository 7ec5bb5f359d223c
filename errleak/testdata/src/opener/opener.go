package opener

import "os"

// Open returns an open file, or an error.
func Open(p string) (*os.File, error) { // want Open:`returns an open file \(result 0; release: Close\)`
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Discard closes f: a call of it releases the file it is given.
func Discard(f *os.File) { // want Discard:`releases Close of param 0`
	f.Close()
}
