package instrument

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDoneErrors: which functions' fs.SkipDir means done, as the site
// table's flag says (w), in a detect build as in a masking one. io.EOF
// needs no flag: it means done from any function.
func TestDoneErrors(t *testing.T) {
	src := `package m

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

type R struct{ off int }
type Bytes []uint8
type Str string

func (r *R) Read(p []byte) (int, error)                { r.off++; return 0, io.EOF }
func (r R) ReadAt(p []uint8, off int64) (n int, err error) { return 0, io.EOF }
func (r *R) ReadByte() (byte, error)                   { r.off++; return 0, io.EOF }
func (r *R) ReadRune() (ch rune, size int, err error)  { r.off++; return 0, 0, io.EOF }
func (r *R) ReadFrom(src io.Reader) (int64, error)     { r.off++; return 0, nil }
func (r *R) WriteTo(w io.Writer) (int64, error)        { r.off++; return 0, nil }
func (r *R) ReadString(delim byte) (string, error)     { r.off++; return "", io.EOF }
func (r *R) Next() error                               { r.off++; return io.EOF }
func Read(p []byte) (int, error)                       { return 0, io.EOF }
func (r *R) Readb(p Bytes) (int, error)                { r.off++; return 0, io.EOF }

type S struct{ r *R }

func (s *S) Read(p Bytes) (int, error)        { return 0, io.EOF }
func (s *S) ReadAt(p []byte) (int, error)     { return 0, io.EOF }
func (s *S) ReadByte() (int32, error)         { return 0, io.EOF }

func walkDir(path string, d fs.DirEntry, err error) error  { return filepath.SkipDir }
func walk(path string, info os.FileInfo, err error) error  { return filepath.SkipAll }
func walkFS(path string, info fs.FileInfo, err error) error { return nil }
func notWalk(path Str, d fs.DirEntry, err error) error      { return nil }
func notWalk2(path string, d fs.DirEntry) error             { return nil }

func Use(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error { return fs.SkipDir })
}
`
	want := map[string]string{
		"(*R).Read": "", "R.ReadAt": "", "(*R).ReadByte": "", "(*R).ReadRune": "",
		"(*R).ReadFrom": "", "(*R).WriteTo": "", "(*R).ReadString": "", "(*R).Next": "", "Read": "", "(*R).Readb": "",
		"(*S).Read": "", "(*S).ReadAt": "", "(*S).ReadByte": "",
		"walkDir": "w", "walk": "w", "walkFS": "w", "notWalk": "", "notWalk2": "",
		"Use": "", "Use.func1": "w",
	}
	line := regexp.MustCompile(`"([a-z-]*)\\texample.com/m.([^#]+)#entry`)
	for _, mask := range []bool{false, true} {
		opts := testOptions()
		opts.Mask = mask
		res, err := Package([]File{{Name: "/src/example.com/m/m.go", Src: []byte(src)}}, opts)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, m := range line.FindAllStringSubmatch(string(res.Generated.Src), -1) {
			flags := ""
			for _, f := range "w" {
				if strings.ContainsRune(m[1], f) {
					flags += string(f)
				}
			}
			got[m[2]] = flags
		}
		for name, w := range want {
			if g, ok := got[name]; !ok {
				t.Errorf("mask=%t: no entry site for %s", mask, name)
			} else if g != w {
				t.Errorf("mask=%t: %s: done flags %q, want %q", mask, name, g, w)
			}
		}
	}
}

// TestDoneValues: the policy's done values that the package can name go
// to its sites from the generated init function; the others are left out.
func TestDoneValues(t *testing.T) {
	src := `package m

import (
	"errors"
	"io"
	"io/fs"
)

var ErrStop = errors.New("stop")
var errQuiet = errors.New("quiet")
var NotAnError = 3
const Limit = 3

func Next(r io.Reader) error {
	_, err := r.Read(nil)
	if err == nil {
		return ErrStop
	}
	_ = fs.SkipDir
	return err
}
`
	tests := []struct {
		name     string
		declared []string
		want     []string // the init's values, in order; nil: no init
	}{
		{"none", nil, nil},
		{"own and imported", []string{"io.EOF", "example.com/m.ErrStop", "example.com/m.errQuiet", "io/fs.SkipDir", "io.EOF"},
			[]string{"ErrStop", "errQuiet", "io.EOF", "fs.SkipDir"}},
		{"not imported, unexported elsewhere, not an error, not a variable", []string{"bufio.ErrTooLong", "io.errWhence",
			"example.com/m.NotAnError", "example.com/m.Limit", "example.com/m.Missing"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptions()
			opts.Mask = true
			opts.DoneValues = tt.declared
			res, err := Package([]File{{Name: "/src/example.com/m/m.go", Src: []byte(src)}}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if res.GeneratedInit != nil {
					t.Errorf("an init file:\n%s", res.GeneratedInit.Src)
				}
				return
			}
			if res.GeneratedInit == nil {
				t.Fatalf("no init file")
			}
			m := regexp.MustCompile(`d := \[\]error\{(.*)\}`).FindSubmatch(res.GeneratedInit.Src)
			if m == nil {
				t.Fatalf("no done values in\n%s", res.GeneratedInit.Src)
			}
			if got := strings.Split(string(m[1]), ", "); !slices.Equal(got, tt.want) {
				t.Errorf("done values %q, want %q\n%s", got, tt.want, res.GeneratedInit.Src)
			}
		})
	}
}
