package policy

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSuccessErrorsParseErrors(t *testing.T) {
	const rule = "[[rule]]\npackages = [\"example.com/...\"]\nmode = \"mask\"\n"
	tests := []struct {
		name, src string
		want      []string
	}{
		{"not a list", rule + `success_errors = "io.EOF"`, []string{
			`4:18: success_errors must be an array of strings, e.g. success_errors = ["..."], not a string`,
		}},
		{"not strings", rule + `success_errors = ["io.EOF", 3]`, []string{
			`4:29: success_errors must hold only strings, not an integer`,
		}},
		{"malformed", rule + `success_errors = ["EOF", "io.", "io.Err Stop", "(*m.T).Err", "./iter.Done", ".EOF"]`, []string{
			`4:19: success_errors: "EOF" is not a variable with its package path, of the form "path/pkg.Name" (e.g. "io.EOF")`,
			`4:26: success_errors: "io.": "" is not the name of a variable, of the form "path/pkg.Name" (e.g. "io.EOF")`,
			`4:33: success_errors: "io.Err Stop": "Err Stop" is not the name of a variable, of the form "path/pkg.Name" (e.g. "io.EOF")`,
			`4:48: success_errors: "(*m.T).Err" is not a variable with its package path, of the form "path/pkg.Name" (e.g. "io.EOF")`,
			`4:62: success_errors: "./iter.Done" is relative: write the package's full import path, of the form "path/pkg.Name" (e.g. "io.EOF")`,
			`4:77: success_errors: ".EOF" is not a variable with its package path, of the form "path/pkg.Name" (e.g. "io.EOF")`,
		}},
		{"misspelt", rule + `succes_errors = ["io.EOF"]`, []string{
			`4:1: unknown key "succes_errors" in [[rule]] (known keys: packages, mode, functions, from_report, exclude, ignore, success_errors, scratch, oblivious, oblivious_atomic, mask_outside_locks, callbacks_write_arguments, outside_writes, undo_files, panics, globals, snapshot_budget, on_type_check_failure); did you mean "success_errors"?`,
		}},
		{"at top level", `success_errors = ["io.EOF"]` + "\n" + rule, []string{
			`1:1: unknown key "success_errors" at top level: it belongs in a [[rule]] table`,
		}},
		{"in [defaults]", "[defaults]\nsuccess_errors = [\"io.EOF\"]\n" + rule, []string{
			`2:1: unknown key "success_errors" in [defaults]: it belongs in a [[rule]] table`,
		}},
		{"in an off rule", "[[rule]]\npackages = [\"example.com/...\"]\nmode = \"off\"\nsuccess_errors = [\"io.EOF\"]", []string{
			`4:1: success_errors has no effect in a rule with mode = "off": remove it, or move it to the package's detect or mask rule`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseErrorLines(t, "success.toml", tt.src)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSuccessErrorsMatch(t *testing.T) {
	p, err := Parse(filepath.Join("testdata", "success.toml"), []byte(`
[[rule]]
packages = ["example.com/m/..."]
mode = "mask"
success_errors = ["io.EOF", "gopkg.in/yaml.v3.ErrDone", "example.com/m/iter.Done", "io.EOF"]

[[rule]]
packages = ["example.com/d/..."]
mode = "detect"
success_errors = ["example.com/d.ErrStop"]

[[rule]]
packages = ["example.com/..."]
mode = "detect"
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pkg  string
		want []string
	}{
		{"example.com/m/iter", []string{"example.com/m/iter.Done", "gopkg.in/yaml.v3.ErrDone", "io.EOF"}},
		{"example.com/d", []string{"example.com/d.ErrStop"}},
		{"example.com/other", nil},
		{"other.org/x", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, p.ForPackage(tt.pkg, false).SuccessErrors()); diff != "" {
			t.Errorf("SuccessErrors of %s (-want +got):\n%s", tt.pkg, diff)
		}
	}
	if diff := cmp.Diff([]string{"example.com/d", "example.com/m/iter", "gopkg.in/yaml.v3", "io"}, p.SuccessErrorPackages()); diff != "" {
		t.Errorf("SuccessErrorPackages (-want +got):\n%s", diff)
	}
}

func TestSuccessErrorsHash(t *testing.T) {
	const rule = "[[rule]]\npackages = [\"example.com/...\"]\nmode = \"mask\"\n"
	parse := func(src string) *Policy {
		t.Helper()
		p, err := Parse(filepath.Join("testdata", "success.toml"), []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := parse(rule)
	eof := parse(rule + `success_errors = ["io.EOF"]`)
	stop := parse(rule + `success_errors = ["example.com/m.ErrStop", "io.EOF"]`)
	reordered := parse(rule + `success_errors = ["io.EOF", "example.com/m.ErrStop"]`)
	hashes := map[string]string{}
	for name, p := range map[string]*Policy{"base": base, "eof": eof, "stop": stop} {
		for _, h := range []string{p.Hash(), p.ForPackage("example.com/m", false).Hash()} {
			if prev, dup := hashes[h]; dup {
				t.Errorf("%s and %s hash alike", prev, name)
			}
			hashes[h] = name
		}
	}
	if stop.Hash() != reordered.Hash() || stop.ForPackage("example.com/m", false).Hash() != reordered.ForPackage("example.com/m", false).Hash() {
		t.Error("the order of success_errors changes the hash")
	}
	// Which functions the package instruments does not change: the
	// packages that call them keep their build.
	if base.ForPackage("example.com/m", false).SelectionHash() != eof.ForPackage("example.com/m", false).SelectionHash() {
		t.Error("success_errors changes the selection hash")
	}
	if base.ForPackage("other.org/x", false).Hash() != eof.ForPackage("other.org/x", false).Hash() {
		t.Error("success_errors changes the hash of a package the policy leaves off")
	}
}

func TestUnusedSuccessErrors(t *testing.T) {
	p, err := Parse(filepath.Join("testdata", "success.toml"), []byte(`[[rule]]
packages = ["example.com/..."]
mode = "mask"
success_errors = [
  "io.EOF",
  "io.EFO",
  "example.com/gone.ErrDone",
  "example.com/m/iter.Done",
  "example.com/m/iter.Finished",
]
`))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string][]string{
		"io":                 {"EOF", "ErrClosedPipe", "ErrShortWrite"},
		"example.com/m/iter": {"Done", "errInternal"},
	}
	path := filepath.Join("testdata", "success.toml")
	want := []string{
		path + `:6:3: success_errors value "io.EFO" matches no variable of package io; did you mean "io.EOF"?`,
		path + `:7:3: success_errors value "example.com/gone.ErrDone" matches no variable: its package is not among the packages built`,
		path + `:9:3: success_errors value "example.com/m/iter.Finished" matches no variable of package example.com/m/iter`,
	}
	if diff := cmp.Diff(want, p.UnusedSuccessErrors(vars)); diff != "" {
		t.Errorf("UnusedSuccessErrors (-want +got):\n%s", diff)
	}
}
