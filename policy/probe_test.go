package policy

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestProbeAcquires(t *testing.T) {
	tests := []struct {
		name    string
		rule    string
		errs    []string            // the errors Parse gives, position and message
		matches map[string][]string // package -> ProbeAcquires
	}{
		{"per package", `mode = "detect"
probe_acquires = ["example.com/a/a.go:12:19", "example.com/a/b/b.go:3:9", "example.com/a/a.go:20:4"]`, nil,
			map[string][]string{
				"example.com/a":   {"example.com/a/a.go:12:19", "example.com/a/a.go:20:4"},
				"example.com/a/b": {"example.com/a/b/b.go:3:9"},
				"example.com/c":   nil,
			}},
		{"not a position", `mode = "detect"
probe_acquires = ["a.go:1:2", "example.com/a/a.go:12", "example.com/a/a.go:x:1", "example.com/a/a.txt:1:1", "example.com/a/a.go:0:3"]`,
			[]string{
				`4:19: probe_acquires entry "a.go:1:2" is not a position: write import/path/file.go:line:col`,
				`4:31: probe_acquires entry "example.com/a/a.go:12" is not a position: write import/path/file.go:line:col`,
				`4:56: probe_acquires entry "example.com/a/a.go:x:1" is not a position: write import/path/file.go:line:col`,
				`4:82: probe_acquires entry "example.com/a/a.txt:1:1" is not a position: write import/path/file.go:line:col`,
				`4:109: probe_acquires entry "example.com/a/a.go:0:3" is not a position: write import/path/file.go:line:col`,
			}, nil},
		{"with the method that tells", `mode = "detect"
probe_acquires = ["example.com/a/a.go:12:19 IsClosed", "example.com/a/a.go:13:2 Is Closed", "example.com/a/a.go:14:2 "]`,
			[]string{
				`4:56: probe_acquires entry "example.com/a/a.go:13:2 Is Closed": after the position, write the name of the method that tells whether the resource is closed`,
				`4:93: probe_acquires entry "example.com/a/a.go:14:2 ": after the position, write the name of the method that tells whether the resource is closed`,
			}, nil},
		{"a method", `mode = "detect"
probe_acquires = ["example.com/a/a.go:12:19 IsClosed"]`, nil,
			map[string][]string{"example.com/a": {"example.com/a/a.go:12:19 IsClosed"}}},
		{"not a list", `mode = "detect"
probe_acquires = "example.com/a/a.go:1:2"`,
			[]string{`4:18: probe_acquires must be an array of strings, e.g. probe_acquires = ["..."], not a string`}, nil},
		{"mask rule", `mode = "mask"
probe_acquires = ["example.com/a/a.go:1:2"]`,
			[]string{`4:1: probe_acquires has no effect in a rule with mode = "mask": only detect builds probe resources`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "[[rule]]\npackages = [\"example.com/...\"]\n" + tt.rule + "\n"
			p, err := Parse(filepath.Join("testdata", "hash", "x.toml"), []byte(src))
			var got []string
			if el, ok := err.(ErrorList); ok {
				for _, e := range el {
					got = append(got, strings.TrimPrefix(e.Error(), filepath.Join("testdata", "hash", "x.toml")+":"))
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.errs) {
				t.Fatalf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.errs, "\n"))
			}
			for pkg, want := range tt.matches {
				if got := p.ForPackage(pkg, false).ProbeAcquires(); !slices.Equal(got, want) {
					t.Errorf("ForPackage(%s).ProbeAcquires() = %q, want %q", pkg, got, want)
				}
			}
		})
	}
}

// probe_acquires is internal: a misspelt key is not offered it.
func TestProbeAcquiresNotOffered(t *testing.T) {
	_, err := Parse(filepath.Join("testdata", "hash", "x.toml"), []byte("[[rule]]\npackages = [\"./...\"]\nmode = \"detect\"\nprobe_acquire = []\n"))
	if err == nil || strings.Contains(err.Error(), "probe_acquires") {
		t.Errorf("Parse: %v, want an unknown key error that lists no probe_acquires", err)
	}
}

// The acquisitions probed change the hash of their package's build, and
// of no other package.
func TestProbeAcquiresHash(t *testing.T) {
	const base = "[[rule]]\npackages = [\"example.com/...\"]\nmode = \"detect\"\n"
	parse := func(src string) *Policy {
		t.Helper()
		p, err := Parse(filepath.Join("testdata", "hash", "x.toml"), []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p0 := parse(base)
	for _, tt := range []struct {
		name         string
		src          string
		aSame, bSame bool
	}{
		{"a's acquisition", base + "probe_acquires = [\"example.com/a/a.go:1:2\"]\n", false, true},
		{"empty", base + "probe_acquires = []\n", true, true},
	} {
		p := parse(tt.src)
		for _, c := range []struct {
			pkg  string
			same bool
		}{{"example.com/a", tt.aSame}, {"example.com/b", tt.bSame}} {
			if same := p.ForPackage(c.pkg, false).Hash() == p0.ForPackage(c.pkg, false).Hash(); same != c.same {
				t.Errorf("%s: %s's hash unchanged = %t, want %t", tt.name, c.pkg, same, c.same)
			}
		}
		if same := p.Hash() == p0.Hash(); same != (tt.aSame && tt.bSame) {
			t.Errorf("%s: the policy's hash unchanged = %t", tt.name, same)
		}
	}
}
