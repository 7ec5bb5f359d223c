package rt

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

var fuSite = &Site{ID: "p.F#entry", Func: "p.F", Kind: EntrySite}

// fuMasked is a masked call as a masking build writes it for a function
// of undo_files: it runs body, whose writes journal through FileWriting,
// and fails with errFull when fail is set.
func fuMasked(fail bool, body func()) (err error) {
	var done bool
	u := UndoFiles()
	defer u.End(fuSite, &done, &err)
	body()
	if fail {
		err = errFull
	}
	done = true
	return err
}

// fuWrite is an instrumented call site of (*os.File).Write.
func fuWrite(t *testing.T, f *os.File, s string) {
	FileWriting(f, -1, int64(len(s)))
	if _, err := f.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

func fuWriteAt(t *testing.T, f *os.File, s string, at int64) {
	FileWriting(f, at, int64(len(s)))
	if _, err := f.WriteAt([]byte(s), at); err != nil {
		t.Fatal(err)
	}
}

func fuTruncate(t *testing.T, f *os.File, size int64) {
	FileWriting(f, size, -1)
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// TestFileUndo checks that a failed masked call's writes to a regular
// file are undone: appends truncated, overwritten bytes written back, the
// offset reset; and that a successful one keeps them.
func TestFileUndo(t *testing.T) {
	tests := []struct {
		name    string
		flag    int
		seek    int64 // the offset before the call
		writes  func(t *testing.T, f *os.File)
		fail    bool
		want    string // the file's contents after the call
		wantOff int64
	}{
		{
			name: "appends at the end", flag: os.O_RDWR, seek: 4, fail: true,
			writes: func(t *testing.T, f *os.File) { fuWrite(t, f, "five\n"); fuWrite(t, f, "six\n") },
			want:   "one\n", wantOff: 4,
		},
		{
			name: "a successful call keeps its writes", flag: os.O_RDWR, seek: 4,
			writes: func(t *testing.T, f *os.File) { fuWrite(t, f, "two\n") },
			want:   "one\ntwo\n", wantOff: 8,
		},
		{
			name: "overwrites at the offset, then past the end", flag: os.O_RDWR, seek: 1, fail: true,
			writes: func(t *testing.T, f *os.File) { fuWrite(t, f, "NE\nTWO\n") },
			want:   "one\n", wantOff: 1,
		},
		{
			name: "overwrites at an offset, twice", flag: os.O_RDWR, fail: true,
			writes: func(t *testing.T, f *os.File) { fuWriteAt(t, f, "xx", 1); fuWriteAt(t, f, "yyy", 0) },
			want:   "one\n", wantOff: 0,
		},
		{
			name: "truncates, then writes", flag: os.O_RDWR, seek: 4, fail: true,
			writes: func(t *testing.T, f *os.File) { fuTruncate(t, f, 1); fuWriteAt(t, f, "zz", 3) },
			want:   "one\n", wantOff: 4,
		},
		{
			name: "a write-only file, appended to", flag: os.O_WRONLY, seek: 4, fail: true,
			writes: func(t *testing.T, f *os.File) { fuWrite(t, f, "two\n") },
			want:   "one\n", wantOff: 4,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if runtime.GOOS != "linux" {
				t.Skip("files are undone on Linux only")
			}
			path := filepath.Join(t.TempDir(), "segment")
			if err := os.WriteFile(path, []byte("one\n"), 0o666); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, tt.flag, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Seek(tt.seek, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			err = fuMasked(tt.fail, func() { tt.writes(t, f) })
			if (err != nil) != tt.fail {
				t.Fatalf("call = %v, want failure %v", err, tt.fail)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
			if off, _ := f.Seek(0, io.SeekCurrent); off != tt.wantOff {
				t.Errorf("offset = %d, want %d", off, tt.wantOff)
			}
			if n := fileJournals.open.Load(); n != 0 {
				t.Errorf("%d undo frames left open", n)
			}
		})
	}
}

// TestFileUndoNested checks that a masked call's failure undoes what the
// masked calls inside it wrote and kept, and only a failed inner call's
// writes otherwise.
func TestFileUndoNested(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are undone on Linux only")
	}
	tests := []struct {
		name                   string
		innerFails, outerFails bool
		want                   string
	}{
		{"inner kept, outer failed", false, true, "a"},
		{"inner failed, outer kept", true, false, "abd"},
		{"both kept", false, false, "abcd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := os.Create(filepath.Join(t.TempDir(), "segment"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fuWrite(t, f, "a") // outside any masked call: not journaled
			fuMasked(tt.outerFails, func() {
				fuWrite(t, f, "b")
				fuMasked(tt.innerFails, func() { fuWrite(t, f, "c") })
				fuWrite(t, f, "d")
			})
			if got, _ := os.ReadFile(f.Name()); string(got) != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestJournalWriteRefuses checks the writes that are not undone, and why.
func TestJournalWriteRefuses(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are undone on Linux only")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	if err := os.WriteFile(path, []byte("one\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	appendFile, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer appendFile.Close()
	writeOnly, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer writeOnly.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	closed, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	tests := []struct {
		name    string
		f       *os.File
		at, n   int64
		problem string // a part of it; "" for a write that is undone
	}{
		{"O_APPEND", appendFile, -1, 4, "is open with O_APPEND"},
		{"a pipe", w, -1, 4, "is not a regular file (p---------)"},
		{"a closed file", closed, -1, 4, "cannot stat"},
		{"an overwrite of a file it cannot read", writeOnly, 0, 2, "cannot read back the 2 bytes"},
		{"an append to a file it cannot read", writeOnly, 4, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := journalWrite(tt.f, tt.at, tt.n).problem
			if tt.problem == "" && got != "" || !strings.Contains(got, tt.problem) {
				t.Errorf("problem = %q, want %q", got, tt.problem)
			}
		})
	}
	// The undo gives the first problem, and undoes the rest.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ws := []fileWrite{journalWrite(f, 4, 3), journalWrite(w, -1, 1)}
	f.WriteAt([]byte("two"), 4)
	if p := undoWrites(ws); !strings.Contains(p, "not a regular file") {
		t.Errorf("undoWrites = %q, want the pipe's problem", p)
	}
	if got, _ := os.ReadFile(path); string(got) != "one\n" {
		t.Errorf("file = %q, want the append undone", got)
	}
}

// fuDetected is fuMasked as a detection build instruments it: its write
// goes through WroteFile.
func fuDetected(f *os.File, data string) (_atx_r0 error) {
	var _atx_done int32
	defer Enter(&fuSites[0], f).Exit(&_atx_done, &_atx_r0)
	WroteFile(&fuSites[1], f, -1, int64(len(data)))
	f.WriteString(data)
	_atx_r0 = errFull
	_atx_done = 1
	return
}

var fuSites = [...]Site{
	{ID: "github.com/atomicx/atomicx/rt.fuDetected#entry", Func: "github.com/atomicx/atomicx/rt.fuDetected", Pos: "rt/fileundo_test.go:1:1", Roots: "f", Kind: EntrySite, Faults: FaultError, Ends: []int32{101}},
	{ID: "github.com/atomicx/atomicx/rt.fuDetected#call:(*os.File).WriteString#1", Func: "github.com/atomicx/atomicx/rt.fuDetected", Pos: "rt/fileundo_test.go:2:9", Kind: CallSite, Faults: FaultError},
}

// TestFileUndoDetection checks a detection run's rollback of a masked
// call that wrote to a file: with ATOMICX_UNDO_FILES naming it, the write
// is undone and counted; without, the verdict says the file was not.
func TestFileUndoDetection(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are undone on Linux only")
	}
	id := fuSites[0].ID
	tests := []struct {
		name      string
		undo      string
		want      string
		wantEvent string
	}{
		{"undone", id, "one\n", `"undone_writes":1`},
		{"not named", "", "one\ntwo\n", `"not_undone":"memory rolled back, ` + "%s" + ` not: ATOMICX_UNDO_FILES does not name the function ((*os.File).WriteString at rt/fileundo_test.go:2:9)"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logPath := useRun(t, "", [5]string{"", "", "all", "", id})
			campaign.undoFiles = siteIDs(tt.undo)
			path := filepath.Join(t.TempDir(), "segment")
			if err := os.WriteFile(path, []byte("one\n"), 0o666); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			f.Seek(0, io.SeekEnd)
			if err := fuDetected(f, "two\n"); err != errFull {
				t.Fatalf("call = %v, want errFull", err)
			}
			resetEventLog()
			if got, _ := os.ReadFile(path); string(got) != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
			log, _ := os.ReadFile(logPath)
			want := tt.wantEvent
			if strings.Contains(want, "%s") {
				want = strings.Replace(want, "%s", path, 1)
			}
			if !strings.Contains(string(log), `"masked":true`) || !strings.Contains(string(log), want) {
				t.Errorf("log = %s\nwant %s", log, want)
			}
		})
	}
}
