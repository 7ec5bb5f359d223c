package policy

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/atomicx/atomicx/internal/funcname"
)

// reportSchema is the schema of the JSON reports that from_report reads
// (written by atomicx detect -format json and atomicx report -format json).
const reportSchema = "atomicx.report/v1"

// pureVerdict is the verdict of the functions a mask rule takes from a
// report. Dependent ones need no mask: they become atomic once their
// non-atomic callees are.
const pureVerdict = "pure non-atomic"

// fromReport reads the report named by a rule's from_report key and keeps
// its pure non-atomic functions.
func (ps *parser) fromReport(r *Rule, v any, at tomlPath) {
	pos := ps.src.valuePos(at)
	name, ok := v.(string)
	if !ok {
		ps.errorf(pos, "from_report must be a string (the path of a JSON report of atomicx detect), not %s", typeName(v))
		return
	}
	if r.Mode != Mask {
		ps.errorf(pos, `from_report selects functions to mask: it needs mode = "mask"`)
		return
	}
	if name == "" {
		ps.errorf(pos, "from_report is empty: name a JSON report written by atomicx detect -format json -o FILE")
		return
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(ps.file), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		ps.errorf(pos, "from_report %q: cannot read %s: %v", name, path, err)
		return
	}
	var doc struct {
		Schema    string `json:"schema"`
		Functions map[string]struct {
			Verdict      string          `json:"verdict"`
			WroteOutside json.RawMessage `json:"wrote_outside"`
		} `json:"functions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Schema != reportSchema {
		ps.errorf(pos, "from_report %q: not a JSON report of atomicx detect (schema %s): write one with atomicx report -format json -o %s", name, reportSchema, name)
		return
	}
	r.FromReport = name
	r.reported = map[string]map[string]bool{}
	for fn, f := range doc.Functions {
		if f.Verdict != pureVerdict {
			continue
		}
		pkg, rel := splitFuncName(fn)
		if r.reported[pkg] == nil {
			r.reported[pkg] = map[string]bool{}
		}
		// A function that wrote outside memory before failing is
		// masked only where outside_writes lists it, as policy suggest
		// proposes (see Match.Selects).
		r.reported[pkg][normalizeFuncName(rel)] = f.WroteOutside == nil
	}
}

// splitFuncName splits a runtime.Func.Name() into the package path and
// the name relative to it: "example.com/m/store.(*Store).Add" gives
// "example.com/m/store" and "(*Store).Add", "gopkg.in/ini%2ev1.(*File).Append"
// gives "gopkg.in/ini.v1" and "(*File).Append": the import path, as
// package patterns and Match.Package have it.
func splitFuncName(fn string) (pkg, rel string) {
	pkg, rel, ok := funcname.Split(fn)
	if !ok {
		return "", fn
	}
	return pkg, rel
}

// reportedNames lists the rule's reported functions, for the hash.
func (r *Rule) reportedNames() []string {
	var names []string
	for pkg, fns := range r.reported {
		for fn, plain := range fns {
			names = append(names, reportedName(pkg+"."+fn, plain))
		}
	}
	sort.Strings(names)
	return names
}

// reportedName is a reported function's name as the hashes write it: a
// function that wrote outside memory is told apart, since outside_writes
// decides whether the rule selects it.
func reportedName(name string, plain bool) string {
	if plain {
		return name
	}
	return name + " (wrote outside memory)"
}
