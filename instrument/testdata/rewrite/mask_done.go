package m

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrStop is declared done by the policy (success_errors).
var ErrStop = errors.New("stop")

// errQuiet is declared done too: the package's own unexported value.
var errQuiet = errors.New("quiet")

type Stream struct {
	data []byte
	off  int
}

// Read is io.Reader's: its io.EOF means done, as any function's.
func (s *Stream) Read(p []byte) (n int, err error) {
	n = copy(p, s.data[s.off:])
	s.off += n
	if s.off == len(s.data) {
		return n, io.EOF
	}
	return n, nil
}

// ReadAt is io.ReaderAt's.
func (s *Stream) ReadAt(p []byte, off int64) (int, error) {
	n := copy(p, s.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// ReadByte is io.ByteReader's.
func (s *Stream) ReadByte() (byte, error) {
	if s.off == len(s.data) {
		return 0, io.EOF
	}
	s.off++
	return s.data[s.off-1], nil
}

// ReadRune is io.RuneReader's.
func (s *Stream) ReadRune() (rune, int, error) {
	b, err := s.ReadByte()
	return rune(b), 1, err
}

// ReadFrom is io.ReaderFrom's, which returns nil at io.EOF.
func (s *Stream) ReadFrom(r io.Reader) (int64, error) {
	b, err := io.ReadAll(r)
	s.data = append(s.data, b...)
	return int64(len(b)), err
}

// Line is not one of io's methods: its io.EOF means done all the same.
func (s *Stream) Line() ([]byte, error) {
	if s.off == len(s.data) {
		return nil, io.EOF
	}
	s.off = len(s.data)
	return s.data, nil
}

// Fill has the name of io.Reader's method but not its results.
type Fill struct{ n int }

func (f *Fill) Read(p []byte) error {
	f.n += len(p)
	return nil
}

// Walk's literal is a fs.WalkDirFunc (flag w), and visit a
// filepath.WalkFunc (flag w).
func (s *Stream) Walk(root string) error {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		s.off++
		if d.IsDir() {
			return filepath.SkipDir
		}
		return err
	})
	return err
}

func (s *Stream) visit(path string, info os.FileInfo, err error) error {
	s.off++
	return fs.SkipAll
}
