package toolexec

import (
	"reflect"
	"strings"
	"testing"
)

// A compile importcfg and a link importcfg as the go command writes them
// (go build -x), with a vendored import and a modinfo line.
const (
	compileImportCfg = `# import config
importmap golang.org/x/text/unicode=example.com/m/vendor/golang.org/x/text/unicode
packagefile errors=/tmp/go-build1270371456/b002/_pkg_.a
packagefile example.com/cmdl/asmp=/tmp/go-build1270371456/b035/_pkg_.a
packagefile example.com/m/vendor/golang.org/x/text/unicode=/tmp/go-build1270371456/b040/_pkg_.a
packagefile fmt=/tmp/go-build1270371456/b056/_pkg_.a
packagefile runtime=/tmp/go-build1270371456/b008/_pkg_.a
`
	linkImportCfg = `packagefile example.com/cmdl=/tmp/go-build1270371456/b001/_pkg_.a
packagefile errors=/tmp/go-build1270371456/b002/_pkg_.a
packagefile runtime=/tmp/go-build1270371456/b008/_pkg_.a
modinfo "0w\xaf\f\x92t\b\x02A\xe1\xc1\a\xe6\xd6\x18\xe6path\texample.com/cmdl\nmod\texample.com/cmdl\t(devel)\t\nbuild\t-buildmode=exe\nbuild\tCGO_ENABLED=1\n\xf92C1\x86\x18 r\x00\x82B\x10A\x16\xd8\xf2"
`
)

func TestParseImportConfig(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    *ImportConfig
		wantErr string // substring of the error; "" means no error
	}{
		{
			name: "compile config with importmap",
			in:   compileImportCfg,
			want: &ImportConfig{
				PackageFile: map[string]string{
					"errors":                "/tmp/go-build1270371456/b002/_pkg_.a",
					"example.com/cmdl/asmp": "/tmp/go-build1270371456/b035/_pkg_.a",
					"example.com/m/vendor/golang.org/x/text/unicode": "/tmp/go-build1270371456/b040/_pkg_.a",
					"fmt":     "/tmp/go-build1270371456/b056/_pkg_.a",
					"runtime": "/tmp/go-build1270371456/b008/_pkg_.a",
				},
				ImportMap: map[string]string{
					"golang.org/x/text/unicode": "example.com/m/vendor/golang.org/x/text/unicode",
				},
				Extras: []string{"# import config"},
			},
		},
		{
			name: "link config with modinfo",
			in:   linkImportCfg,
			want: &ImportConfig{
				PackageFile: map[string]string{
					"example.com/cmdl": "/tmp/go-build1270371456/b001/_pkg_.a",
					"errors":           "/tmp/go-build1270371456/b002/_pkg_.a",
					"runtime":          "/tmp/go-build1270371456/b008/_pkg_.a",
				},
				ImportMap: map[string]string{},
				Extras:    []string{strings.Split(linkImportCfg, "\n")[3]},
			},
		},
		{
			name: "unknown directive and blank lines",
			in:   "\npackagefile a=/a.a\n\nfuturedirective x y=z\n   \n",
			want: &ImportConfig{
				PackageFile: map[string]string{"a": "/a.a"},
				ImportMap:   map[string]string{},
				Extras:      []string{"futuredirective x y=z"},
			},
		},
		{
			name: "value containing '='",
			in:   "packagefile a=/x=y/a.a\n",
			want: &ImportConfig{
				PackageFile: map[string]string{"a": "/x=y/a.a"},
				ImportMap:   map[string]string{},
			},
		},
		{
			name: "later duplicate wins, as in the compiler",
			in:   "packagefile a=/1.a\npackagefile a=/2.a\n",
			want: &ImportConfig{
				PackageFile: map[string]string{"a": "/2.a"},
				ImportMap:   map[string]string{},
			},
		},
		{
			name: "CRLF line ends",
			in:   "packagefile a=/a.a\r\nimportmap b=c\r\n",
			want: &ImportConfig{
				PackageFile: map[string]string{"a": "/a.a"},
				ImportMap:   map[string]string{"b": "c"},
			},
		},
		{name: "packagefile without '='", in: "# import config\npackagefile fmt\n", wantErr: "line 2:"},
		{name: "packagefile without path", in: "packagefile =/a.a\n", wantErr: "line 1:"},
		{name: "packagefile without file", in: "packagefile a=/a.a\n\npackagefile b=\n", wantErr: "line 3:"},
		{name: "importmap without target", in: "importmap a=\n", wantErr: "line 1:"},
		{name: "importmap without '='", in: "packagefile a=/a.a\nimportmap a\n", wantErr: "line 2:"},
		{name: "bare verb", in: "packagefile\n", wantErr: "line 1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseImportConfig([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("ParseImportConfig succeeded, want an error containing %q", tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %q does not contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseImportConfig:\n got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

// TestImportConfigRoundTrip checks that rendering a parsed configuration
// and parsing it again gives the same configuration, that every directive
// other than packagefile and importmap survives verbatim, and that the
// output does not depend on map order.
func TestImportConfigRoundTrip(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		verbatim []string // lines that must appear as they are in the output
	}{
		{name: "compile", in: compileImportCfg},
		{name: "link with modinfo", in: linkImportCfg, verbatim: []string{strings.Split(linkImportCfg, "\n")[3]}},
		{
			name:     "unknown lines",
			in:       "futuredirective a b\npackagefile z=/z.a\nother=thing\n# a comment\n",
			verbatim: []string{"futuredirective a b", "other=thing"},
		},
		{name: "empty", in: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, err := ParseImportConfig([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			out := first.Bytes()
			second, err := ParseImportConfig(out)
			if err != nil {
				t.Fatalf("parsing the output of Bytes: %v\n%s", err, out)
			}
			if !reflect.DeepEqual(first.PackageFile, second.PackageFile) {
				t.Errorf("packagefile entries changed:\n got %v\nwant %v", second.PackageFile, first.PackageFile)
			}
			if !reflect.DeepEqual(first.ImportMap, second.ImportMap) {
				t.Errorf("importmap entries changed:\n got %v\nwant %v", second.ImportMap, first.ImportMap)
			}
			if !reflect.DeepEqual(directives(first.Extras), directives(second.Extras)) {
				t.Errorf("other directives changed:\n got %q\nwant %q", second.Extras, first.Extras)
			}
			lines := strings.Split(string(out), "\n")
			for _, v := range tt.verbatim {
				if !contains(lines, v) {
					t.Errorf("line %q is not in the output verbatim:\n%s", v, out)
				}
			}
			if !strings.HasSuffix(string(out), "\n") {
				t.Errorf("output does not end with a newline: %q", out)
			}
			for i := 0; i < 5; i++ {
				again, _ := ParseImportConfig([]byte(tt.in))
				if got := again.Bytes(); string(got) != string(out) {
					t.Fatalf("Bytes is not deterministic:\n%s\n---\n%s", out, got)
				}
			}
			if string(second.Bytes()) != string(out) {
				t.Errorf("Bytes of the reparsed configuration differs:\n%s\n---\n%s", out, second.Bytes())
			}
		})
	}
}

// directives returns the lines that are not comments: those are the ones
// the compiler and linker act on.
func directives(lines []string) []string {
	var out []string
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			out = append(out, l)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestImportConfigAddMissing(t *testing.T) {
	tests := []struct {
		name      string
		have      map[string]string
		add       map[string]string
		want      map[string]string
		wantAdded int
	}{
		{
			name:      "existing entries win",
			have:      map[string]string{"errors": "/user/errors.a", "runtime": "/user/runtime.a"},
			add:       map[string]string{"errors": "/rt/errors.a", "runtime": "/rt/runtime.a", "atomicx/rt": "/rt/rt.a"},
			want:      map[string]string{"errors": "/user/errors.a", "runtime": "/user/runtime.a", "atomicx/rt": "/rt/rt.a"},
			wantAdded: 1,
		},
		{
			name:      "all new",
			have:      map[string]string{},
			add:       map[string]string{"a": "/a.a", "b": "/b.a"},
			want:      map[string]string{"a": "/a.a", "b": "/b.a"},
			wantAdded: 2,
		},
		{
			name:      "nothing new",
			have:      map[string]string{"a": "/a.a"},
			add:       map[string]string{"a": "/other.a"},
			want:      map[string]string{"a": "/a.a"},
			wantAdded: 0,
		},
		{
			name:      "nil",
			have:      map[string]string{"a": "/a.a"},
			want:      map[string]string{"a": "/a.a"},
			wantAdded: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &ImportConfig{PackageFile: tt.have, ImportMap: map[string]string{"x": "y"}}
			added := cfg.AddMissing(tt.add)
			if added != tt.wantAdded {
				t.Errorf("AddMissing returned %d, want %d", added, tt.wantAdded)
			}
			if !reflect.DeepEqual(cfg.PackageFile, tt.want) {
				t.Errorf("packagefile entries:\n got %v\nwant %v", cfg.PackageFile, tt.want)
			}
			if !reflect.DeepEqual(cfg.ImportMap, map[string]string{"x": "y"}) {
				t.Errorf("AddMissing changed the importmap: %v", cfg.ImportMap)
			}
		})
	}
}
