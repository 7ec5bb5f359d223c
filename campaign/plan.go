package campaign

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/atomicx/atomicx/gocmd"
)

// PlanVersion is the version of plan.json's format. A shard refuses a
// plan of another version: its runs would not mean the same.
const PlanVersion = 1

// PlanFile is the name of the plan in its directory.
const PlanFile = "plan.json"

// A Plan is a campaign made ready to run anywhere: the test binaries
// (in the plan's directory, bin/), the profile runs, and every run to do,
// as data. Shards run shares of it (RunShard) and their journals are
// combined into one (Merge). It is written as plan.json in its
// directory; shipping the directory is enough to run a shard on another
// machine that has the module checked out.
type Plan struct {
	Version int    `json:"version"`
	ID      string `json:"id"` // a hash of everything else in the plan
	// Planner names the question the runs ask (see Planner): it plans the
	// runs that a shard's finished runs call for (rechecks).
	Planner  string         `json:"planner"`
	Header   *Header        `json:"campaign"`
	Packages []*PlanPackage `json:"packages"`
	Options  Options        `json:"options"`
	Profiles []*Record      `json:"profiles"` // the profile runs the runs were planned from; the report needs them
	Runs     []*PlannedRun  `json:"runs"`

	// planner is the question that Planner names, as the plan's maker
	// (Config.Planner) or reader (ReadPlan) was given it.
	planner *Planner
}

// Question is the planner of the plan's runs.
func (p *Plan) Question() *Planner { return p.planner }

// PlanPackage is a package of the workload, with paths relative to
// the module's root and to the plan's directory.
type PlanPackage struct {
	ImportPath string   `json:"import_path"`
	Dir        string   `json:"dir"`    // relative to the module's root, slash-separated
	Binary     string   `json:"binary"` // relative to the plan's directory, slash-separated
	SHA256     string   `json:"sha256"` // of the binary
	Tests      []string `json:"tests"`
}

// Options are what every shard of a plan runs with. Their JSON form is
// one object: its fields, then the keys of QuestionData.
type Options struct {
	TimeoutMs int64 `json:"timeout_ms"` // per run
	MaxOccur  int   `json:"max_occurrences"`
	EarlyStop bool  `json:"early_stop"`
	AllSnaps  bool  `json:"all_snapshots"`
	// QuestionData are the question's own options, a JSON object that
	// the question encodes and decodes (Config.QuestionData).
	QuestionData json.RawMessage `json:"-"`
}

// optionsLine is Options as a plan has them, the question's aside.
type optionsLine Options

var optionsKeys = jsonKeys[optionsLine]()

// MarshalJSON writes the options as one object, the question's last.
func (o Options) MarshalJSON() ([]byte, error) {
	return marshalWithQuestion(optionsLine(o), o.QuestionData, optionsKeys)
}

// UnmarshalJSON reads options written by MarshalJSON.
func (o *Options) UnmarshalJSON(b []byte) error {
	var line optionsLine
	data, err := unmarshalWithQuestion(b, &line, optionsKeys)
	if err != nil {
		return err
	}
	*o = Options(line)
	o.QuestionData = data
	return nil
}

// Timeout is the time limit of one run.
func (o Options) Timeout() time.Duration {
	if o.TimeoutMs <= 0 {
		return time.Minute
	}
	return time.Duration(o.TimeoutMs) * time.Millisecond
}

// A PlannedRun is one run of a plan: the record its journal line starts
// from (kind, package, test and what the planner armed), the environment
// that arms it, and its estimated cost, the time its test's profile run
// took.
type PlannedRun struct {
	Key    string   `json:"key"`
	CostMs int64    `json:"cost_ms"`
	Env    []string `json:"env,omitempty"`
	Run    *Record  `json:"run"`
}

// planID is the hash of a plan's contents, its ID left empty.
func planID(p *Plan) (string, error) {
	q := *p
	q.ID = ""
	b, err := json.Marshal(&q)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), nil
}

// WritePlan sets the plan's ID and writes it as plan.json into dir.
func WritePlan(dir string, p *Plan) error {
	p.Version = PlanVersion
	id, err := planID(p)
	if err != nil {
		return err
	}
	p.ID = id
	b, err := json.MarshalIndent(p, "", "\t")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, PlanFile+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the plan: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the plan: %w", err)
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, PlanFile))
}

// ReadPlan reads the plan in dir and checks that it is one this atomicx
// runs and that it is whole: its ID is the hash of its contents. named
// returns the question of a name, nil when there is none: the engine
// knows no question by name.
func ReadPlan(dir string, named func(name string) *Planner) (*Plan, error) {
	path := filepath.Join(dir, PlanFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s holds no plan (%s): make one with atomicx plan -o %s", dir, PlanFile, dir)
	}
	if err != nil {
		return nil, err
	}
	var p Plan
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("reading %s: %v", path, err)
	}
	if p.Version != PlanVersion {
		return nil, fmt.Errorf("%s is a plan of format version %d; this atomicx reads version %d: make the plan again with this atomicx", path, p.Version, PlanVersion)
	}
	id, err := planID(&p)
	if err != nil {
		return nil, err
	}
	if id != p.ID {
		return nil, fmt.Errorf("%s was changed after it was made: its ID is %s, its contents hash to %s; make the plan again", path, p.ID, id)
	}
	if p.Header == nil {
		return nil, fmt.Errorf("%s has no campaign header", path)
	}
	if p.planner = named(p.Planner); p.planner == nil {
		return nil, fmt.Errorf("%s asks the question %q, which this atomicx does not know", path, p.Planner)
	}
	for _, r := range p.Runs {
		if r.Run == nil || r.Run.Key() != r.Key {
			return nil, fmt.Errorf("%s: run %q does not have the key of its record", path, r.Key)
		}
	}
	return &p, nil
}

// fileSHA256 is the hex SHA-256 of a file's contents.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// MissingBinaryError is a plan's test binary that is not in its
// directory (a plan directory shipped without bin/).
type MissingBinaryError struct{ Package, Path string }

func (e *MissingBinaryError) Error() string {
	return fmt.Sprintf("the test binary of %s is missing (%s): ship the plan directory whole, or give -rebuild to build it again here", e.Package, e.Path)
}

// Resolve returns the plan's packages with their directories under
// moduleRoot (where the module is checked out on this machine) and
// their binaries under planDir, each checked against the plan's hash.
func (p *Plan) Resolve(planDir, moduleRoot string) ([]*Package, error) {
	var pkgs []*Package
	for _, pp := range p.Packages {
		bin := filepath.Join(planDir, filepath.FromSlash(pp.Binary))
		sum, err := fileSHA256(bin)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &MissingBinaryError{Package: pp.ImportPath, Path: bin}
		}
		if err != nil {
			return nil, err
		}
		if sum != pp.SHA256 {
			return nil, fmt.Errorf("the test binary %s is not the plan's: SHA-256 %s, the plan has %s; make the plan again", bin, sum, pp.SHA256)
		}
		pkgs = append(pkgs, &Package{ImportPath: pp.ImportPath, Dir: filepath.Join(moduleRoot, filepath.FromSlash(pp.Dir)),
			Binary: bin, Tests: pp.Tests})
	}
	return pkgs, nil
}

// relSlash is path relative to root, slash-separated; path itself
// when it is not inside root.
func relSlash(root, path string) string {
	r, err := filepath.Rel(root, path)
	if err != nil || r == ".." || len(r) > 2 && r[:3] == ".."+string(filepath.Separator) {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(r)
}

// Rebuild builds again, into planDir, the plan's test binaries that are
// missing there, as the plan built them: its build flags, its policy and
// atomicx (cfg.Atomicx, cfg.Identity), in the module checked out at
// cfg.Dir's root. cfg.Policy is the plan's policy as found here. Whether
// the result is the plan's binary is for Resolve to check.
func (p *Plan) Rebuild(ctx context.Context, planDir string, cfg Config) error {
	h := p.Header
	cfg.Journal, cfg.BuildArgs, cfg.Exec, cfg.Patterns, cfg.Cover = planDir, h.BuildArgs, h.Exec, h.Patterns, h.Cover
	c := &runner{cfg: cfg, res: &Result{}}
	var pkgs []*Package
	for _, pp := range p.Packages {
		if _, err := os.Stat(filepath.Join(planDir, filepath.FromSlash(pp.Binary))); err == nil {
			continue
		}
		pkgs = append(pkgs, &Package{ImportPath: pp.ImportPath})
	}
	if len(pkgs) == 0 {
		return nil
	}
	if cfg.Identity != nil {
		gc := gocmd.Config{Atomicx: cfg.Atomicx, Identity: cfg.Identity, Dir: cfg.Dir, Env: c.buildEnv()}
		var err error
		if c.keys, err = gocmd.KeysFor(ctx, gc, cfg.Policy, c.goArgs(cfg.Patterns...)); err != nil {
			return err
		}
	}
	for _, pkg := range pkgs {
		c.logf("rebuilding %s", pkg.ImportPath)
		if err := c.compile(ctx, pkg); err != nil {
			return err
		}
	}
	return nil
}
