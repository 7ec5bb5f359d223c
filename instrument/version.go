package instrument

import "go/version"

// Language versions that the generated code needs, each for the features
// it uses.
const (
	goSliceToArrayPointer = "go1.17" // the site table's (*[n]rt.Site)(slice)
	goGenerics            = "go1.18" // generic helpers, any, comparable
	goClear               = "go1.21" // the clear builtin
)

// langAtLeast reports whether the package's language version (compile
// -lang) is v or later, so that generated code may use what v brought.
// An empty or unreadable version is taken as the newest: the compiler
// would have refused a version it does not know.
func (p *pkgRewriter) langAtLeast(v string) bool {
	lang := p.opts.GoVersion
	if lang == "" || !version.IsValid(lang) {
		return true
	}
	return version.Compare(version.Lang(lang), v) >= 0
}
