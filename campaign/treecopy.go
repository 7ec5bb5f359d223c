package campaign

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// A treeCopy is a private copy of a module's directory tree: the runs of
// one job slot run their tests in it, not in the user's tree. Tests write
// fixed relative paths (test.db, testdata/out, a write-ahead log's
// directory); two runs at once in one directory would rename and remove
// each other's files, and every run would write into the user's source
// tree. A run's leftovers must not reach the next run either: reset puts
// the copy back as it was made.
//
// The copy leaves out .git, the directories given to newTreeCopy (the
// campaign's own, when it lies inside the module) and nested modules
// (directories with a go.mod of their own, other than under testdata,
// where a go.mod is a test's input). Symbolic links are copied as links,
// with their targets unchanged; files other than regular files,
// directories and links (sockets, devices) are left out.
type treeCopy struct {
	src, dst string
	skip     map[string]bool // source paths left out, cleaned
	// entries are what the copy holds after a reset, by path relative to
	// its root ("." for the root), as Lstat saw them once made.
	entries map[string]copiedEntry
	size    int64 // of the regular files among entries
}

// copiedEntry is how an entry of the copy looked once made: a run that
// changed it leaves a difference here, a run that only read it none.
type copiedEntry struct {
	mode  fs.FileMode
	size  int64
	mtime time.Time
	stamp fileStamp
	link  string // a symbolic link's target
}

// fileStamp is what the system says of a file beyond fs.FileInfo: an
// inode and a change time, which a write or a rename over the file
// changes even when the size and the modification time (which a test
// may set back) stay. The zero value where the system does not say.
type fileStamp struct {
	ino   uint64
	ctime int64
}

func entryOf(info fs.FileInfo, link string) copiedEntry {
	return copiedEntry{mode: info.Mode(), size: info.Size(), mtime: info.ModTime(), stamp: stampOf(info), link: link}
}

// unchanged says whether a file or link of the copy still is as made.
func (e copiedEntry) unchanged(info fs.FileInfo) bool {
	return info.Mode() == e.mode && info.Size() == e.size && info.ModTime().Equal(e.mtime) && stampOf(info) == e.stamp
}

// newTreeCopy copies the tree at src into dst, which must not exist,
// leaving out the paths in skip.
func newTreeCopy(src, dst string, skip []string) (*treeCopy, error) {
	t := &treeCopy{src: filepath.Clean(src), dst: dst, skip: map[string]bool{}, entries: map[string]copiedEntry{}}
	for _, s := range skip {
		t.skip[filepath.Clean(s)] = true
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
		return nil, err
	}
	err := filepath.WalkDir(t.src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(t.src, path)
		if err != nil {
			return err
		}
		if rel != "." && t.leftOut(path, rel, d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		return t.restore(rel, d.Type())
	})
	if err != nil {
		os.RemoveAll(dst)
		return nil, fmt.Errorf("copying %s: %w", t.src, err)
	}
	t.sumSize()
	return t, nil
}

// leftOut says whether the entry at path (rel in the tree) is not copied.
func (t *treeCopy) leftOut(path, rel string, d fs.DirEntry) bool {
	if d.Name() == ".git" || t.skip[path] {
		return true
	}
	switch d.Type() {
	case 0, fs.ModeDir, fs.ModeSymlink:
	default:
		return true
	}
	if !d.IsDir() {
		return false
	}
	if _, err := os.Lstat(filepath.Join(path, "go.mod")); err != nil {
		return false
	}
	for _, elem := range strings.Split(rel, string(filepath.Separator)) {
		if elem == "testdata" {
			return false
		}
	}
	return true
}

// restore makes the entry rel of the copy from the source: a directory
// (its files are entries of their own), a symbolic link or a regular
// file, whichever typ says the source was when first copied, and records
// it as made. A source entry that is gone or changed type is dropped.
func (t *treeCopy) restore(rel string, typ fs.FileMode) error {
	from, to := filepath.Join(t.src, rel), filepath.Join(t.dst, rel)
	info, err := os.Lstat(from)
	if err != nil || info.Mode().Type() != typ {
		delete(t.entries, rel)
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return err
		}
		return nil
	}
	var link string
	switch typ {
	case fs.ModeDir:
		// The owner may always enter, list and change a directory of
		// the copy, whatever the source's mode: reset must.
		if err := os.Mkdir(to, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		err = os.Chmod(to, info.Mode().Perm()|0o700)
	case fs.ModeSymlink:
		if link, err = os.Readlink(from); err == nil {
			err = os.Symlink(link, to)
		}
	default:
		err = copyFile(from, to, info)
	}
	if err != nil {
		return err
	}
	made, err := os.Lstat(to)
	if err != nil {
		return err
	}
	t.entries[rel] = entryOf(made, link)
	return nil
}

// copyFile copies a regular file, whose source is as info says, with its
// mode and modification time. io.Copy between two files uses the
// system's in-kernel copy where there is one (copy_file_range on Linux),
// which file systems that share blocks between files (Btrfs, XFS) make a
// clone. The source's modification time, in the past, is what makes a
// write into the copy show: a write in the same tick of the file
// system's clock as the copy would leave a copy's own time as it was.
func copyFile(from, to string, info fs.FileInfo) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	if err := os.Chmod(to, info.Mode().Perm()); err != nil {
		return err
	}
	return os.Chtimes(to, info.ModTime(), info.ModTime())
}

// reset puts the copy back as it was made: what a run added goes, what
// it changed, removed or renamed comes back from the source. Files that
// runs only read are not copied again: a reset costs a walk of the copy.
func (t *treeCopy) reset() error {
	seen := map[string]bool{".": true}
	if err := t.resetDir(".", seen); err != nil {
		return fmt.Errorf("resetting the copy of %s: %w", t.src, err)
	}
	var missing []string
	for rel := range t.entries {
		if !seen[rel] {
			missing = append(missing, rel)
		}
	}
	// A directory before what it holds.
	sort.Strings(missing)
	for _, rel := range missing {
		e, ok := t.entries[rel]
		if !ok {
			continue // in a directory that is gone from the source
		}
		if err := t.restore(rel, e.mode.Type()); err != nil {
			return fmt.Errorf("resetting the copy of %s: %w", t.src, err)
		}
	}
	t.sumSize()
	return nil
}

// resetDir resets the directory rel of the copy, which is one of its
// entries, marking in seen the entries found as made.
func (t *treeCopy) resetDir(rel string, seen map[string]bool) error {
	dir := filepath.Join(t.dst, rel)
	info, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	// A run may have taken the right to list or change it away.
	if want := t.entries[rel].mode; info.Mode() != want {
		if err := os.Chmod(dir, want.Perm()); err != nil {
			return err
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, d := range ents {
		r := filepath.Join(rel, d.Name())
		path := filepath.Join(dir, d.Name())
		want, ok := t.entries[r]
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		switch {
		case !ok || info.Mode().Type() != want.mode.Type():
		case info.IsDir():
			seen[r] = true
			if err := t.resetDir(r, seen); err != nil {
				return err
			}
			continue
		case want.unchanged(info):
			if link, err := os.Readlink(path); want.link == "" || err == nil && link == want.link {
				seen[r] = true
				continue
			}
		}
		if err := removeTree(path); err != nil {
			return err
		}
	}
	return nil
}

// sumSize sets t.size from the entries.
func (t *treeCopy) sumSize() {
	t.size = 0
	for _, e := range t.entries {
		if e.mode.IsRegular() {
			t.size += e.size
		}
	}
}

// removeTree removes path and what it holds, also when a run took the
// right to change a directory in it away.
func removeTree(path string) error {
	if err := os.RemoveAll(path); err == nil {
		return nil
	}
	filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(path)
}
