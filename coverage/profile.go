package coverage

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Block is one block of a coverage profile: a run of statements of a file
// that run together, from Start to End (line and column, End exclusive),
// and how many times they ran.
type Block struct {
	File       string // import-path form: "example.com/m/f.go"
	Start, End Position
	Statements int
	Count      int64
}

// Position is a line and column (1-based, in bytes).
type Position struct{ Line, Col int }

func (p Position) before(q Position) bool {
	return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col
}

// blockKey is what makes a block the same block in two profiles.
type blockKey struct {
	file       string
	start, end Position
}

func (b Block) key() blockKey { return blockKey{b.File, b.Start, b.End} }

// ParseProfile reads a coverage profile in the text format that
// go test -coverprofile and go tool covdata textfmt write. A block listed
// more than once (profiles concatenated) adds its counts.
func ParseProfile(r io.Reader) ([]Block, error) {
	var blocks []Block
	index := map[blockKey]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "mode:") {
			continue
		}
		b, err := parseBlock(text)
		if err != nil {
			return nil, fmt.Errorf("coverage profile line %d: %v", line, err)
		}
		if i, ok := index[b.key()]; ok {
			blocks[i].Count += b.Count
			continue
		}
		index[b.key()] = len(blocks)
		blocks = append(blocks, b)
	}
	return blocks, sc.Err()
}

// parseBlock parses "file:l0.c0,l1.c1 statements count".
func parseBlock(text string) (Block, error) {
	f := strings.Fields(text)
	colon := strings.LastIndex(text, ":")
	if len(f) < 3 || colon < 0 {
		return Block{}, fmt.Errorf("%q is not file:line.col,line.col statements count", text)
	}
	// The file name may hold spaces: the last two fields are numbers, and
	// the range follows the last colon.
	rest := strings.Fields(text[colon+1:])
	if len(rest) != 3 {
		return Block{}, fmt.Errorf("%q is not file:line.col,line.col statements count", text)
	}
	b := Block{File: text[:colon]}
	from, to, ok := strings.Cut(rest[0], ",")
	var err error
	if !ok {
		return Block{}, fmt.Errorf("range %q has no comma", rest[0])
	}
	if b.Start, err = parsePosition(from); err != nil {
		return Block{}, err
	}
	if b.End, err = parsePosition(to); err != nil {
		return Block{}, err
	}
	if b.Statements, err = strconv.Atoi(rest[1]); err != nil {
		return Block{}, fmt.Errorf("statements %q: %v", rest[1], err)
	}
	if b.Count, err = strconv.ParseInt(rest[2], 10, 64); err != nil {
		return Block{}, fmt.Errorf("count %q: %v", rest[2], err)
	}
	return b, nil
}

func parsePosition(s string) (Position, error) {
	l, c, ok := strings.Cut(s, ".")
	line, err1 := strconv.Atoi(l)
	col, err2 := strconv.Atoi(c)
	if !ok || err1 != nil || err2 != nil {
		return Position{}, fmt.Errorf("position %q is not line.col", s)
	}
	return Position{line, col}, nil
}

// ReadDirs merges the coverage counters in the directories (written by
// runs with GOCOVERDIR or -test.gocoverdir) into one profile, with
// go tool covdata run in dir (so that the module's toolchain reads them).
// Directories that hold no counters add nothing; none at all is an empty
// profile.
func ReadDirs(ctx context.Context, dir string, dirs ...string) ([]Block, error) {
	var inputs []string
	for _, d := range dirs {
		if has, err := hasCounters(d); err != nil {
			return nil, err
		} else if has {
			inputs = append(inputs, d)
		}
	}
	if len(inputs) == 0 {
		return nil, nil
	}
	tmp, err := os.MkdirTemp("", "atomicx-cover-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "profile.txt")
	cmd := exec.CommandContext(ctx, "go", "tool", "covdata", "textfmt", "-i="+strings.Join(inputs, ","), "-o="+out)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go tool covdata textfmt -i=%s: %v\n%s", strings.Join(inputs, ","), err, stderr.Bytes())
	}
	f, err := os.Open(out)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseProfile(f)
}

// hasCounters says whether a directory holds coverage counter files.
func hasCounters(dir string) (bool, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "covcounters.") {
			return true, nil
		}
	}
	return false, nil
}
