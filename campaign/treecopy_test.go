//go:build unix

package campaign

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeTree makes the files of a tree: a name ending in "/" is a
// directory, "-> target" a symbolic link, anything else a file's
// contents.
func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case strings.HasSuffix(name, "/"):
			err = os.MkdirAll(path, 0o777)
		case strings.HasPrefix(content, "-> "):
			err = os.Symlink(strings.TrimPrefix(content, "-> "), path)
		default:
			err = os.WriteFile(path, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// readTree describes a tree as writeTree takes it, with each file's mode.
func readTree(t testing.TB, root string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if rel == "." {
			return nil
		}
		name := filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			tree[name+"/"] = ""
		case d.Type() == fs.ModeSymlink:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			tree[name] = "-> " + link
		case !d.Type().IsRegular():
			tree[name] = info.Mode().Type().String()
		default:
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			tree[name] = info.Mode().String() + " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// module is the tree that TestTreeCopyReset copies.
var module = map[string]string{
	"go.mod":                     "module example.com/m\n",
	"a.go":                       "package a\n",
	"data.txt":                   "0123456789",
	"pkg/b.go":                   "package pkg\n",
	"pkg/testdata/in.txt":        "input",
	"pkg/testdata/deep/x.txt":    "x",
	"pkg/link":                   "-> testdata/in.txt",
	"pkg/dirlink":                "-> testdata",
	"empty/":                     "",
	"testdata/mod/go.mod":        "module fixture\n",
	"testdata/mod/f.go":          "package fixture\n",
	".git/HEAD":                  "ref: refs/heads/main\n",
	"nested/go.mod":              "module example.com/m/nested\n",
	"nested/n.go":                "package nested\n",
	"tools/.atomicx/journal.txt": "the campaign's own",
	"tools/":                     "",
}

// copied is module as its copy holds it: without .git, the nested
// module and the campaign's directory (tools/.atomicx).
func copied() map[string]string {
	want := map[string]string{}
	for name, content := range module {
		if strings.HasPrefix(name, ".git/") || strings.HasPrefix(name, "nested/") || strings.HasPrefix(name, "tools/.atomicx/") {
			continue
		}
		for dir := name; ; {
			dir = filepath.ToSlash(filepath.Dir(strings.TrimSuffix(dir, "/")))
			if dir == "." {
				break
			}
			want[dir+"/"] = ""
		}
		if !strings.HasSuffix(name, "/") && !strings.HasPrefix(content, "-> ") {
			content = "-rw-r--r-- " + content
		}
		want[name] = content
	}
	return want
}

func TestTreeCopyReset(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, dst string) // what a run does in the copy
	}{
		{"nothing", func(t *testing.T, dst string) {}},
		{"a file changed in place, same size", func(t *testing.T, dst string) {
			must(t, os.WriteFile(filepath.Join(dst, "data.txt"), []byte("abcdefghij"), 0o644))
		}},
		{"a file changed, its time set back", func(t *testing.T, dst string) {
			path := filepath.Join(dst, "data.txt")
			info, err := os.Stat(path)
			must(t, err)
			must(t, os.WriteFile(path, []byte("abcdefghij"), 0o644))
			must(t, os.Chtimes(path, info.ModTime(), info.ModTime()))
		}},
		{"a file appended to", func(t *testing.T, dst string) {
			f, err := os.OpenFile(filepath.Join(dst, "pkg/testdata/in.txt"), os.O_APPEND|os.O_WRONLY, 0)
			must(t, err)
			f.WriteString(" and more")
			must(t, f.Close())
		}},
		{"files and directories added", func(t *testing.T, dst string) {
			writeTree(t, dst, map[string]string{"test.db": "db", "pkg/testdata/out/log/000001.log": "wal", "pkg/tmp/": ""})
		}},
		{"files removed", func(t *testing.T, dst string) {
			must(t, os.Remove(filepath.Join(dst, "a.go")))
			must(t, os.Remove(filepath.Join(dst, "pkg/link")))
		}},
		{"a directory removed", func(t *testing.T, dst string) {
			must(t, os.RemoveAll(filepath.Join(dst, "pkg/testdata")))
		}},
		{"a file renamed over another", func(t *testing.T, dst string) {
			must(t, os.Rename(filepath.Join(dst, "pkg/testdata/in.txt"), filepath.Join(dst, "data.txt")))
		}},
		{"a directory renamed", func(t *testing.T, dst string) {
			must(t, os.Rename(filepath.Join(dst, "pkg/testdata"), filepath.Join(dst, "pkg/testdata.old")))
		}},
		{"a file made a directory, a directory made a file", func(t *testing.T, dst string) {
			must(t, os.Remove(filepath.Join(dst, "data.txt")))
			writeTree(t, dst, map[string]string{"data.txt/inner": "x"})
			must(t, os.RemoveAll(filepath.Join(dst, "empty")))
			must(t, os.WriteFile(filepath.Join(dst, "empty"), []byte("now a file"), 0o644))
		}},
		{"symbolic links retargeted and replaced", func(t *testing.T, dst string) {
			must(t, os.Remove(filepath.Join(dst, "pkg/link")))
			must(t, os.Symlink("../a.go", filepath.Join(dst, "pkg/link")))
			must(t, os.Remove(filepath.Join(dst, "pkg/dirlink")))
			must(t, os.WriteFile(filepath.Join(dst, "pkg/dirlink"), []byte("a file"), 0o644))
		}},
		{"modes changed", func(t *testing.T, dst string) {
			must(t, os.Chmod(filepath.Join(dst, "a.go"), 0o400))
			writeTree(t, dst, map[string]string{"pkg/testdata/deep/new.txt": "new"})
			must(t, os.Chmod(filepath.Join(dst, "pkg/testdata/deep"), 0))
			must(t, os.Chmod(filepath.Join(dst, "pkg"), 0o500))
		}},
		{"an added directory that cannot be changed", func(t *testing.T, dst string) {
			writeTree(t, dst, map[string]string{"locked/inside/f": "f"})
			must(t, os.Chmod(filepath.Join(dst, "locked/inside"), 0o500))
			must(t, os.Chmod(filepath.Join(dst, "locked"), 0))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "m")
			writeTree(t, src, module)
			// Not a file the copy can hold: left out.
			must(t, syscall.Mkfifo(filepath.Join(src, "pkg", "fifo"), 0o600))
			before := readTree(t, src)
			dst := filepath.Join(t.TempDir(), "slot", "0", "m")
			cp, err := newTreeCopy(src, dst, []string{filepath.Join(src, "tools", ".atomicx")})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(copied(), readTree(t, dst)); diff != "" {
				t.Fatalf("the copy (-want +got):\n%s", diff)
			}
			untouched, err := os.Lstat(filepath.Join(dst, "pkg", "b.go"))
			must(t, err)
			for round := range 2 {
				tc.run(t, dst)
				if err := cp.reset(); err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				if diff := cmp.Diff(copied(), readTree(t, dst)); diff != "" {
					t.Fatalf("round %d: after the reset (-want +got):\n%s", round, diff)
				}
			}
			// A file no run touched is not copied again.
			if now, err := os.Lstat(filepath.Join(dst, "pkg", "b.go")); err != nil || !os.SameFile(untouched, now) {
				t.Errorf("pkg/b.go was copied again (%v)", err)
			}
			if diff := cmp.Diff(before, readTree(t, src)); diff != "" {
				t.Errorf("the source changed (-before +after):\n%s", diff)
			}
			if got := diskUsage(dst); got != cp.size {
				t.Errorf("after the reset the copy holds %d bytes, want %d", got, cp.size)
			}
		})
	}
}

// TestTreeCopyJournalIsRoot checks that a campaign directory that is the
// module's root itself leaves the copy whole but for the work directory.
func TestTreeCopyJournalIsRoot(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src, map[string]string{"go.mod": "module m\n", "work/slot-1/m/go.mod": "module m\n", "x.go": "package m\n"})
	c := &runner{cfg: Config{Journal: src}}
	slot := c.slots.take()
	dir, cp, err := c.privateDir(slot, src, src)
	must(t, err)
	defer c.removeSlots()
	if dir != cp.dst {
		t.Errorf("runs in %s, want the copy's root %s", dir, cp.dst)
	}
	want := map[string]string{"go.mod": "-rw-r--r-- module m\n", "x.go": "-rw-r--r-- package m\n"}
	if diff := cmp.Diff(want, readTree(t, cp.dst)); diff != "" {
		t.Errorf("the copy (-want +got):\n%s", diff)
	}
}

// TestPrivateDir checks where runs run: in the slot's copy of the
// package's module, each slot in its own, the copy made once and then
// reset; a directory outside the module as it is.
func TestPrivateDir(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"go.mod": "module m\n", "pkg/p.go": "package pkg\n", "pkg/testdata/in": "in"})
	journal := t.TempDir()
	c := &runner{cfg: Config{Journal: journal}}
	pkg := filepath.Join(root, "pkg")
	one, two := c.slots.take(), c.slots.take()
	dir1, cp1, err := c.privateDir(one, pkg, pkg)
	must(t, err)
	dir2, _, err := c.privateDir(two, pkg, pkg)
	must(t, err)
	if dir1 == dir2 || !strings.HasPrefix(dir1, filepath.Join(journal, workDirName)+string(filepath.Separator)) {
		t.Fatalf("slots run in %s and %s, want two directories under the journal's %s", dir1, dir2, workDirName)
	}
	if filepath.Base(dir1) != "pkg" || filepath.Base(filepath.Dir(dir1)) != filepath.Base(root) {
		t.Errorf("runs in %s, want the copy of %s", dir1, pkg)
	}
	must(t, os.WriteFile(filepath.Join(dir1, "test.db"), []byte("db"), 0o644))
	again, cp, err := c.privateDir(one, pkg, pkg)
	must(t, err)
	if again != dir1 || cp != cp1 {
		t.Errorf("the slot's second run runs in %s (%p), want the same copy %s (%p)", again, cp, dir1, cp1)
	}
	if _, err := os.Stat(filepath.Join(dir1, "test.db")); err == nil {
		t.Errorf("the last run's test.db is still in the copy")
	}
	outside := t.TempDir()
	if dir, cp, err := c.privateDir(one, pkg, outside); dir != outside || cp != nil || err != nil {
		t.Errorf("a directory outside the module: %s, %v, %v", dir, cp, err)
	}
	c.removeSlots()
	if _, err := os.Stat(filepath.Join(journal, workDirName)); err == nil {
		t.Errorf("the work directory is left after the slots are removed")
	}
	if _, err := os.Stat(filepath.Join(root, "pkg", "test.db")); err == nil {
		t.Errorf("a run wrote into the module")
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var benchTree = flag.String("tree", "", "the module tree that BenchmarkTreeCopy copies (default: this module)")

// BenchmarkTreeCopy times making a copy of a module and resetting it
// after a run that wrote a file and changed another, on this module or
// the one -tree names.
func BenchmarkTreeCopy(b *testing.B) {
	src := *benchTree
	if src == "" {
		src = ".."
	}
	src, err := filepath.Abs(src)
	must(b, err)
	b.Run("copy", func(b *testing.B) {
		for i := range b.N {
			dst := filepath.Join(b.TempDir(), "m")
			if _, err := newTreeCopy(src, dst, nil); err != nil {
				b.Fatal(i, err)
			}
		}
	})
	b.Run("reset", func(b *testing.B) {
		dst := filepath.Join(b.TempDir(), "m")
		cp, err := newTreeCopy(src, dst, nil)
		must(b, err)
		var changed string
		for rel, e := range cp.entries {
			if e.mode.IsRegular() {
				changed = filepath.Join(dst, rel)
				break
			}
		}
		b.ResetTimer()
		for range b.N {
			must(b, os.WriteFile(filepath.Join(dst, "test.db"), []byte("db"), 0o644))
			must(b, os.Chtimes(changed, time.Now(), time.Now()))
			must(b, cp.reset())
		}
		b.ReportMetric(float64(len(cp.entries)), "entries")
	})
}

func TestRunPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/home/u/.cache/atomicx/campaigns/ab12/work/run-2456029892/go-cache.dat", "$TMPDIR/go-cache.dat"},
		{"/j/work/run-1/a/b.txt", "$TMPDIR/a/b.txt"},
		{"/j/work/run-1", "$TMPDIR"},
		{"/j/work/slot-77/0/wal/testlog/00000001", "testlog/00000001"},
		{"/j/work/slot-77/3/m/data.db", "data.db"},
		{"/j/work/slot-77/3/m", "."},
		{"/srv/data/log.txt", "/srv/data/log.txt"},
		{"/srv/work/runner/x", "/srv/work/runner/x"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := RunPath(tt.in); got != tt.want {
			t.Errorf("RunPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
