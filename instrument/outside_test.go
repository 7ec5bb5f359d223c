package instrument

import (
	"fmt"
	"strings"
	"testing"
)

// TestOutsideWritesStatic checks which functions a masking build finds
// writing outside memory: by a call of their own, in a function literal,
// or through a function of the package they call; not through an
// interface, a function value or a Sync. A comment beside each function
// says what it finds: "// writes CALLEE [via F, G]" or "// none".
func TestOutsideWritesStatic(t *testing.T) {
	const src = `package m

import (
	"io"
	"os"
	"os/exec"
)

type Log struct {
	f    *os.File
	w    io.Writer
	last int
}

func (l *Log) writeBatch(b []byte) error { // writes (*os.File).Write
	if _, err := l.f.Write(b); err != nil {
		return err
	}
	l.last++
	return l.f.Sync()
}

func (l *Log) Write(b []byte) error { // writes (*os.File).Write via (*Log).writeBatch
	l.last = 0
	return l.writeBatch(b)
}

func (l *Log) Sync() error { // none
	l.last++
	return l.f.Sync()
}

func (l *Log) viaInterface(b []byte) error { // none
	_, err := l.w.Write(b)
	l.last++
	return err
}

func (l *Log) deferred() error { // writes os.Remove
	defer func() { os.Remove("x") }()
	l.last++
	return nil
}

func Open(name string) (*os.File, error) { // none
	return os.OpenFile(name, os.O_RDONLY, 0)
}

func Create(name string) (*os.File, error) { // writes os.OpenFile
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o666)
}

func run(c *exec.Cmd) error { // writes (*exec.Cmd).Run
	return c.Run()
}

func even(n int) error { // writes (*exec.Cmd).Run via odd, run
	if n == 0 {
		return nil
	}
	return odd(n - 1)
}

func odd(n int) error { // writes (*exec.Cmd).Run via run
	if n == 0 {
		return run(nil)
	}
	return even(n - 1)
}
`
	opts := testOptions()
	opts.Mask = true
	res, err := Package([]File{{Name: "/src/example.com/m/log.go", Src: []byte(src)}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkOutsideWrites(t, src, res.OutsideWrites, func(w OutsideWrite) {
		if w.CallPos.Line == 0 || !strings.HasSuffix(w.CallPos.Filename, "log.go") {
			t.Errorf("%s: the call's position is %v", w.Name, w.CallPos)
		}
	})
}

// declName names the function a "func ..." line declares, as the
// runtime names it relative to its package.
func declName(line string) string {
	line = strings.TrimPrefix(line, "func ")
	if strings.HasPrefix(line, "(") {
		recv, rest, _ := strings.Cut(line[1:], ") ")
		_, typ, _ := strings.Cut(recv, " ")
		name, _, _ := strings.Cut(rest, "(")
		if strings.HasPrefix(typ, "*") {
			return fmt.Sprintf("(%s).%s", typ, name)
		}
		return typ + "." + name
	}
	name, _, _ := strings.Cut(line, "(")
	return name
}

// TestOutsideWritesUndone checks which writes outside memory the undo of
// undo_files reaches in the functions it lists (their names end in
// "Undone"): the file writes that rt.FileWriting can precede, in the
// function and in the functions it calls; not a write in a return or a
// defer, one whose receiver is a call, nor a rename. A comment beside
// each function says what is left: "// writes CALLEE [via F]" or
// "// none".
func TestOutsideWritesUndone(t *testing.T) {
	const src = `package m

import "os"

type Log struct {
	f    *os.File
	path string
	last int
}

func (l *Log) file() *os.File { return l.f }

func (l *Log) appendUndone(b []byte) error { // none
	if _, err := l.f.Write(b); err != nil {
		return err
	}
	n, err := l.f.WriteAt(b, 0)
	l.last += n
	l.f.Truncate(int64(l.last))
	l.helper(b)
	return err
}

func (l *Log) helper(b []byte) { // writes (*os.File).WriteString
	for i := range 2 {
		switch i {
		case 0:
			l.f.WriteString("x")
		}
	}
}

func (l *Log) returnedUndone(b []byte) (int, error) { // writes (*os.File).Write
	return l.f.Write(b)
}

func (l *Log) deferredUndone(b []byte) error { // writes (*os.File).Write
	defer l.f.Write(b)
	return nil
}

func (l *Log) callReceiverUndone(b []byte) error { // writes (*os.File).Write
	_, err := l.file().Write(b)
	return err
}

func (l *Log) viaNosplitUndone(b []byte) error { // writes (*os.File).Write via (*Log).nosplit
	return l.nosplit(b)
}

// Left as written: not masked, and nothing precedes its write.
//go:nosplit
func (l *Log) nosplit(b []byte) error { // none
	_, err := l.f.Write(b)
	return err
}

func (l *Log) renameUndone() error { // writes os.Rename via (*Log).rename
	l.f.WriteString("x")
	return l.rename()
}

func (l *Log) rename() error { // writes os.Rename
	return os.Rename(l.path, l.path+".old")
}
`
	opts := testOptions()
	opts.Mask = true
	opts.UndoFiles = func(name string) bool { return strings.HasSuffix(name, "Undone") }
	res, err := Package([]File{{Name: "/src/example.com/m/log.go", Src: []byte(src)}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkOutsideWrites(t, src, res.OutsideWrites, func(w OutsideWrite) {
		if w.Undo != strings.HasSuffix(w.Name, "Undone") {
			t.Errorf("%s: Undo = %t", w.Name, w.Undo)
		}
	})
}

// checkOutsideWrites checks the writes found in src against its
// declarations' comments ("func F() { // writes os.Rename via g", or
// "none"), calling check on each write for what a test looks at besides.
func checkOutsideWrites(t *testing.T, src string, writes []OutsideWrite, check func(OutsideWrite)) {
	t.Helper()
	got := map[string]string{}
	for _, w := range writes {
		s := "writes " + w.Call
		if len(w.Via) > 0 {
			s += " via " + strings.Join(w.Via, ", ")
		}
		got[w.Name] = s
		check(w)
	}
	for i, line := range strings.Split(src, "\n") {
		fn, want, ok := strings.Cut(line, "{ // ")
		if !ok || !strings.HasPrefix(fn, "func ") {
			continue
		}
		name := declName(fn)
		if want == "none" {
			want = ""
		}
		if got[name] != want {
			t.Errorf("line %d: %s: %q, want %q", i+1, name, got[name], want)
		}
	}
}
