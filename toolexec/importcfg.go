package toolexec

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"
)

// ImportConfig is the content of an importcfg file, the way the go command
// tells compile and link where each package's archive is. Lines that are
// neither packagefile nor importmap (modinfo, comments, future directives)
// are kept verbatim so that a rewritten file says everything the original
// said.
type ImportConfig struct {
	PackageFile map[string]string // import path -> archive
	ImportMap   map[string]string // source import path -> actual path (vendoring)
	Extras      []string          // every other line, in order
}

// ParseImportConfig parses the text of an importcfg file.
func ParseImportConfig(data []byte) (*ImportConfig, error) {
	cfg := &ImportConfig{PackageFile: map[string]string{}, ImportMap: map[string]string{}}
	for i, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		verb, rest, _ := strings.Cut(trimmed, " ")
		switch verb {
		case "packagefile", "importmap":
			k, v, ok := strings.Cut(rest, "=")
			if !ok || k == "" || v == "" {
				return nil, fmt.Errorf("line %d: malformed %s directive %q", i+1, verb, trimmed)
			}
			if verb == "packagefile" {
				cfg.PackageFile[k] = v
			} else {
				cfg.ImportMap[k] = v
			}
		case "":
		default:
			cfg.Extras = append(cfg.Extras, line)
		}
	}
	return cfg, nil
}

// ReadImportConfig reads and parses an importcfg file.
func ReadImportConfig(path string) (*ImportConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	cfg, err := ParseImportConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// Bytes renders the configuration in the importcfg format, sorted so that
// the same configuration always gives the same bytes.
func (c *ImportConfig) Bytes() []byte {
	var b bytes.Buffer
	b.WriteString("# import config\n")
	for _, k := range sortedKeys(c.ImportMap) {
		fmt.Fprintf(&b, "importmap %s=%s\n", k, c.ImportMap[k])
	}
	for _, k := range sortedKeys(c.PackageFile) {
		fmt.Fprintf(&b, "packagefile %s=%s\n", k, c.PackageFile[k])
	}
	for _, l := range c.Extras {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue // the header comment is written above
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// AddMissing adds the packages of files that the configuration does not
// name yet. Existing entries win: they are what the go command built for
// this very build, and replacing them would break the link.
func (c *ImportConfig) AddMissing(files map[string]string) (added int) {
	for path, file := range files {
		if _, ok := c.PackageFile[path]; !ok {
			c.PackageFile[path] = file
			added++
		}
	}
	return added
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
