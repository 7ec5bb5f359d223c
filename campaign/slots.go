package campaign

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
)

// workDirName is the directory, in a campaign's directory, of the scratch
// of the runs in progress: each run's own directory (its TMPDIR, event
// log and output) and each job slot's copies of the module. Nothing in it
// is journal content, and it is removed when the campaign step ends.
const workDirName = "work"

// A jobSlot is one of the runs that a campaign runs at once. It owns a
// copy of each module whose tests it ran (treeCopy), made when it first
// runs one and reset before each run after that: a run sees the module's
// files as they are in the user's tree, and no other run's files.
type jobSlot struct {
	dir    string               // the slot's directory, under workDirName; "" until needed
	copies map[string]*treeCopy // by the module's root
}

// jobSlots are the slots of a campaign step. A worker takes one for as
// long as it runs; a later pool of workers reuses the copies.
type jobSlots struct {
	mu   sync.Mutex
	free []*jobSlot
	all  []*jobSlot
	// roots caches the module root of each package directory.
	roots map[string]string
}

func (s *jobSlots) take() *jobSlot {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.free); n > 0 {
		slot := s.free[n-1]
		s.free = s.free[:n-1]
		return slot
	}
	slot := &jobSlot{copies: map[string]*treeCopy{}}
	s.all = append(s.all, slot)
	return slot
}

func (s *jobSlots) put(slot *jobSlot) {
	s.mu.Lock()
	s.free = append(s.free, slot)
	s.mu.Unlock()
}

// moduleRoot is the directory at or above dir that holds a go.mod: the
// tree a test of dir's package may read (../testdata), whose copy it runs
// in. dir itself when there is none.
func (s *jobSlots) moduleRoot(dir string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.roots[dir]; ok {
		return r
	}
	root := dir
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			root = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if s.roots == nil {
		s.roots = map[string]string{}
	}
	s.roots[dir] = root
	return root
}

// workDir is the campaign's scratch directory (workDirName).
func (c *runner) workDir() string { return filepath.Join(c.cfg.Journal, workDirName) }

// privateDir returns the directory in the slot's copy of the module of
// pkgDir's package that stands for dir (the package's directory, or where
// a program workload runs), and the copy, made or reset for the run about
// to start. A dir outside the module is returned as it is, with no copy.
func (c *runner) privateDir(slot *jobSlot, pkgDir, dir string) (string, *treeCopy, error) {
	root := c.slots.moduleRoot(pkgDir)
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator) {
		return dir, nil, nil
	}
	cp, err := c.moduleCopy(slot, root)
	if err != nil {
		return "", nil, err
	}
	private := filepath.Join(cp.dst, rel)
	// A directory the copy leaves out (the campaign's own, a nested
	// module) still has to exist for the run to start in it.
	return private, cp, os.MkdirAll(private, 0o777)
}

// moduleCopy returns the slot's copy of the module at root, made or reset.
func (c *runner) moduleCopy(slot *jobSlot, root string) (*treeCopy, error) {
	if cp := slot.copies[root]; cp != nil {
		err := cp.reset()
		if err == nil {
			return cp, nil
		}
		// What a run left may be beyond a reset (a directory it cannot
		// list, whatever its mode): copy again.
		c.logf("%s%v; copying the module again", c.label, err)
		delete(slot.copies, root)
		if err := removeTree(filepath.Dir(cp.dst)); err != nil {
			return nil, err
		}
	}
	if slot.dir == "" {
		if err := os.MkdirAll(c.workDir(), 0o777); err != nil {
			return nil, err
		}
		dir, err := os.MkdirTemp(c.workDir(), "slot-")
		if err != nil {
			return nil, err
		}
		slot.dir = dir
	}
	// The copy keeps the root's name, under a directory of its own in
	// the slot: a module's tests may look at either.
	var dst string
	for n := len(slot.copies); ; n++ {
		dst = filepath.Join(slot.dir, strconv.Itoa(n), filepath.Base(root))
		if _, err := os.Lstat(filepath.Dir(dst)); errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	cp, err := newTreeCopy(root, dst, c.leftOutOfCopies())
	if err != nil {
		return nil, err
	}
	slot.copies[root] = cp
	return cp, nil
}

// leftOutOfCopies are the campaign's own paths, which a copy of a module
// that holds them (-journal inside the module) leaves out.
func (c *runner) leftOutOfCopies() []string {
	var paths []string
	for _, p := range []string{c.cfg.Journal, c.workDir(), c.journalPath()} {
		if p == "" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			paths = append(paths, abs)
		}
	}
	return paths
}

func (c *runner) journalPath() string {
	if c.journal == nil {
		return ""
	}
	return c.journal.path
}

// removeSlots removes the slots' copies, and the scratch directory if
// nothing else is in it (another shard's runs may be, in the same plan
// directory). What it cannot remove it says, and leaves.
func (c *runner) removeSlots() {
	c.slots.mu.Lock()
	defer c.slots.mu.Unlock()
	for _, slot := range c.slots.all {
		if slot.dir == "" {
			continue
		}
		if err := removeTree(slot.dir); err != nil {
			c.logf("%sremoving a copy of the module: %v", c.label, err)
		}
		slot.dir, slot.copies = "", map[string]*treeCopy{}
	}
	os.Remove(c.workDir())
}

// runPaths match the paths a run sees in its own directories: its TMPDIR
// (work/run-*) and its slot's copy of the module (work/slot-*/N/ROOT).
var runPaths = regexp.MustCompile(`(?:^|/)` + workDirName + `/(?:(run-[^/]+)|slot-[^/]+/[0-9]+/[^/]+)(?:/|$)`)

// RunPath is how a report shows a path that a run saw: one in the run's
// own TMPDIR as $TMPDIR/…, one in its slot's copy of the module relative
// to the module's root, and any other path as it is. The private
// directories are gone once the campaign ends, and their names would
// differ between two runs of the same experiment.
func RunPath(p string) string {
	loc := runPaths.FindStringSubmatchIndex(filepath.ToSlash(p))
	if loc == nil {
		return p
	}
	rest := filepath.ToSlash(p)[loc[1]:]
	if loc[2] >= 0 {
		return path.Join("$TMPDIR", rest)
	}
	if rest == "" {
		return "."
	}
	return rest
}
