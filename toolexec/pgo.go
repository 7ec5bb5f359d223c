package toolexec

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Profile-guided builds compile every package, std included, with the
// profile; the runtime's std dependencies must be built with it too.

// usesPGO reports whether this compile or link belongs to a build with a
// profile: the compiler gets -pgoprofile, the link's build info (modinfo
// in its importcfg) records -pgo.
func (r *runner) usesPGO() bool {
	if r.cmd.Tool == ToolLink {
		_, ok := r.linkPGOSetting()
		return ok
	}
	for _, a := range r.cmd.Args {
		if a == "-pgoprofile" || strings.HasPrefix(a, "-pgoprofile=") {
			return true
		}
	}
	return false
}

// linkPGOFile returns the profile a link's build info names, when it is
// an absolute path (with -trimpath it is only the file name).
func (r *runner) linkPGOFile() string {
	if f, ok := r.linkPGOSetting(); ok && filepath.IsAbs(f) {
		return f
	}
	return ""
}

// linkPGOSetting returns the -pgo setting of the build info that the go
// command gives the link.
func (r *runner) linkPGOSetting() (string, bool) {
	if r.cmd.Tool != ToolLink {
		return "", false
	}
	l := ParseLink(r.cmd)
	if l.ImportCfg == "" {
		return "", false
	}
	icfg, err := ReadImportConfig(l.ImportCfg)
	if err != nil {
		return "", false
	}
	for _, line := range icfg.Extras {
		q, ok := strings.CutPrefix(strings.TrimSpace(line), "modinfo ")
		if !ok {
			continue
		}
		info, err := strconv.Unquote(q)
		if err != nil {
			continue
		}
		for _, setting := range strings.Split(info, "\n") {
			if f, ok := strings.CutPrefix(setting, "build\t-pgo="); ok {
				return f, true
			}
		}
	}
	return "", false
}
