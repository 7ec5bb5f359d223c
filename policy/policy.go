package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

// Mode says what atomicx does with the functions of a package.
type Mode uint8

const (
	// Off leaves the package exactly as written.
	Off Mode = iota
	// Detect instruments the package so that a campaign can inject failures
	// and find the functions that are not failure atomic.
	Detect
	// Mask wraps the selected functions so that a failing call rolls its
	// object graph back to the state it had at entry.
	Mask
)

// modeNames is indexed by Mode; parse.go uses it to read the mode key.
var modeNames = [...]string{Off: "off", Detect: "detect", Mask: "mask"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// Position is a place in a policy file. Line and Col count from 1; Col
// counts bytes, as the go command and the TOML decoder do.
type Position struct {
	File      string
	Line, Col int
}

func (p Position) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Options are the per-rule settings that [defaults] provides for every rule
// that does not set them itself.
type Options struct {
	Panics         bool // inject panics as well as errors
	Globals        bool // also snapshot the package-level variables of the function's package
	SnapshotBudget int  // maximum number of values copied per call snapshot
	// OnTypeCheckFailure says whether a package atomicx cannot type-check
	// stops the build (see Match.FailsOnTypeCheckFailure).
	OnTypeCheckFailure TypeCheckFailure
}

// builtinDefaults apply when neither [defaults] nor the rule sets an option.
var builtinDefaults = Options{Panics: false, Globals: false, SnapshotBudget: 1_000_000}

// Policy is a parsed, validated atomicheck.toml. It does not change after
// Parse, so its methods are safe for concurrent use.
type Policy struct {
	Path       string // the file it was read from ("" for the empty policy)
	ModulePath string // module path used for ./ patterns ("" if none)
	Rules      []Rule // in file order

	// Leaks are the [[leak.resource]] tables, in file order.
	Leaks []LeakResource

	// NeverFail and ErrorConstructors are the never_fail and
	// error_constructors lists, as written (see nonpoints.go).
	NeverFail, ErrorConstructors []string
	declared                     *declared

	defaults Options // builtinDefaults with [defaults] applied
}

// Rule is one [[rule]] table.
type Rule struct {
	Pos      Position // of the [[rule]] header
	Packages []string // as written
	Mode     Mode

	Functions, Exclude, Ignore []string // as written
	// FromReport is the detection report whose pure non-atomic functions
	// the rule masks, as written (relative to the policy's directory).
	FromReport string
	// Scratch lists the fields whose changes by a failed call are scratch,
	// not caller-visible, as written (see scratchPath).
	Scratch []string
	// SuccessErrors lists, as written, the package-level error values
	// that mean "done", not "failed", when the rule's functions return
	// them (see success.go).
	SuccessErrors []string
	// Oblivious and ObliviousAtomic list, in a mask rule, the functions
	// whose failures are swallowed (failure-oblivious functions): a
	// failed call returns a nil error, and a panic through it is
	// recovered. An ObliviousAtomic function is rolled back first, as
	// masking does, whether the rule masks it or not; an Oblivious one
	// only when the rule masks it.
	Oblivious, ObliviousAtomic []string
	// MaskOutsideLocks lists, in a mask rule, the functions that are
	// masked although they take a lock other than by opening with the
	// lock idiom, or call one that does: their checkpoint and rollback run
	// without that lock. Without it, such functions are not masked.
	MaskOutsideLocks []string
	// CallbacksWriteArguments lists, in a mask rule, the functions whose
	// calls of function values (a comparator, a visitor) are taken to
	// write only what their arguments reach, not what the values
	// captured: such a call is recorded in the undo log as a call of a
	// function outside the build is, instead of making the function
	// keep the checkpoint of its whole graph.
	CallbacksWriteArguments []string
	// OutsideWrites lists, in a mask rule, the functions that are masked
	// although they write outside memory (see outside.go).
	OutsideWrites []string
	// UndoFiles lists, in a mask rule, the functions whose writes to
	// regular files are undone with their memory when they fail.
	UndoFiles []string
	// ProbeAcquires are the acquisitions whose resources a detect build
	// probes (internal to atomicx vet -confirm: see probeKey).
	ProbeAcquires []string

	Options Options // after applying [defaults]

	index     int          // position in Policy.Rules
	packages  []pkgPattern // Packages, resolved and compiled, same order
	functions []funcPattern
	exclude   []funcPattern
	ignore    []funcPattern
	scratch   []scratchPath
	// successErrors is SuccessErrors, parsed.
	successErrors []successValue
	// oblivious and obliviousAtomic are Oblivious and ObliviousAtomic,
	// compiled.
	oblivious, obliviousAtomic []funcPattern
	maskOutsideLocks           []funcPattern
	callbacksWriteArguments    []funcPattern
	outsideWrites              []funcPattern
	undoFiles                  []funcPattern
	// reported holds FromReport's pure non-atomic functions: by package
	// path, their normalized names relative to it.
	reported map[string]map[string]bool
}

// Empty returns the policy that applies when there is no policy file:
// every package is Off.
func Empty() *Policy {
	return &Policy{defaults: builtinDefaults}
}

// Load reads and parses the policy file at path.
func Load(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		// The *fs.PathError already names the path and the operation; keep
		// its cause only so that the path is not printed twice.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: cannot read policy file: %w", path, err)
	}
	return Parse(path, data)
}
