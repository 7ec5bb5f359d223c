package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that no input makes Parse panic, and that every error
// line starts with the file name, as the go command prints it.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*", "*.toml"))
	more, _ := filepath.Glob(filepath.Join("testdata", "*.toml"))
	for _, path := range append(seeds, more...) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("rule = [{packages = ['a'], mode = 'mask', functions = ['(*T[...]).*']}]"))
	f.Add([]byte("[[rule]]\n\"packages\" = [\"\\u0061\"]\nmode = \"off\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const file = "fuzz.toml"
		p, err := Parse(file, data)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, file+":") {
					t.Fatalf("error line %q does not start with %q", line, file+":")
				}
			}
			return
		}
		// Exercise the parsed policy too: none of it may panic.
		_ = p.Hash()
		m := p.ForPackage("example.com/a", false)
		_ = m.Selects("(*T).M")
		_ = m.Ignores("F")
		_ = p.Unused(map[string][]string{"example.com/a": {"F", "(*T[...]).M"}})
	})
}
