package policy

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/atomicx/atomicx/internal/funcname"
)

// LeakResource is one [[leak.resource]] table: an acquire/release policy
// that the errleak analysis checks on top of its standard library set.
type LeakResource struct {
	Pos  Position // of the [[leak.resource]] header
	Name string   // what the resource is, for messages ("pool connection")
	// Acquire lists functions and methods, as go/types names them
	// ("example.com/pool.Get", "(*example.com/pool.Pool).Get"): a name
	// written as the runtime spells it ("example.com/pool.(*Pool).Get")
	// is read into that form.
	Acquire []string
	// Release lists "Close", "Field.Close", "()", or a function or method
	// the resource is passed to as an argument ("example.com/pool.Put",
	// "(*example.com/pool.Pool).Put"), in either spelling as Acquire.
	Release []string
	// OnRollback lets a failing masked call release the resource it
	// acquired and kept (on_rollback = true). It is for releases that
	// are safe to repeat: the function, or a helper it calls, may have
	// released the resource already through another name.
	OnRollback bool
	// IsClosed is a method of the resource, func() bool, that tells
	// without an effect whether it is released (is_closed = "IsClosed"):
	// atomicx vet -confirm calls it to probe the resource at the return
	// of a confirmed path. "" when the table names none.
	IsClosed string
}

var (
	leakKeys         = []string{"resource"}
	leakResourceKeys = []string{"name", "acquire", "release", "on_rollback", "is_closed"}

	// The names' expressions are compiled on first use, not when the
	// program starts: every tool run of a build starts atomicx, and
	// compiling them costs more than the rest of its start.

	// acquireName is a function ("path/pkg.F") or a method, in the
	// go/types spelling ("(*path/pkg.T).M", "(path/pkg.T).M") or the
	// runtime's ("path/pkg.(*T).M", "path/pkg.T.M").
	acquireName = lazyRegexp(`^(\(\*?[^()*\s]+\.[\pL_][\pL\pN_]*\)|[^()*\s]+\.\(\*[\pL_][\pL\pN_]*\)|[^()*\s]+)\.[\pL_][\pL\pN_]*$`)
	// releaseName is "()", a method, a method of a field, or a function
	// or method the resource is passed to, as acquireName.
	// methodName is a method's name.
	methodName  = lazyRegexp(`^[\pL_][\pL\pN_]*$`)
	releaseName = lazyRegexp(`^(\(\)|[\pL_][\pL\pN_]*|[\pL_][\pL\pN_]*\.[\pL_][\pL\pN_]*|(\(\*?[^()*\s]+\.[\pL_][\pL\pN_]*\)|[^()*\s]+\.\(\*[\pL_][\pL\pN_]*\)|[^()*\s]+)\.[\pL_][\pL\pN_]*)$`)
)

// lazyRegexp returns a function that compiles expr the first time it is
// called.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// leak reads the [leak] table.
func (ps *parser) leak(v any) {
	at := tomlPath{"leak"}
	t, ok := v.(map[string]any)
	if !ok {
		ps.errorf(ps.src.valuePos(at), "leak must be a table ([[leak.resource]]), not %s", typeName(v))
		return
	}
	ps.unknownKeys(t, at, leakKeys, "in [leak]")
	v, ok = t["resource"]
	if !ok {
		return
	}
	at = at.child("resource")
	var tables []any
	switch v := v.(type) {
	case []map[string]any:
		for _, t := range v {
			tables = append(tables, t)
		}
	case []any:
		tables = v
	default:
		ps.errorf(ps.src.keyPos(at), "leak.resource must be an array of tables: write [[leak.resource]], with two brackets, before each resource")
		return
	}
	for i, t := range tables {
		elem := at.child(indexSeg(i))
		m, ok := t.(map[string]any)
		if !ok {
			ps.errorf(ps.src.keyPos(elem), "each leak.resource must be a table, not %s", typeName(t))
			continue
		}
		ps.leakResource(m, elem)
	}
}

func (ps *parser) leakResource(t map[string]any, at tomlPath) {
	r := LeakResource{Pos: ps.src.keyPos(at)}
	ps.unknownKeys(t, at, leakResourceKeys, "in [[leak.resource]]")
	if v, ok := t["name"]; !ok {
		ps.errorf(r.Pos, `[[leak.resource]] has no name: add name = "..." saying what the resource is`)
	} else if s, ok := v.(string); !ok || s == "" {
		ps.errorf(ps.src.valuePos(at.child("name")), "name must be a non-empty string, not %s", typeName(v))
	} else {
		r.Name = s
	}
	r.Acquire = ps.leakNames(t, at, "acquire", acquireName(), `"path/pkg.Func", "(*path/pkg.Type).Method" or "path/pkg.(*Type).Method"`)
	r.Release = ps.leakNames(t, at, "release", releaseName(), `"Method", "Field.Method", "()", "path/pkg.Func" or "(*path/pkg.Type).Method" (called with the resource as an argument)`)
	if v, ok := t["on_rollback"]; ok {
		if b, ok := v.(bool); ok {
			r.OnRollback = b
		} else {
			ps.errorf(ps.src.valuePos(at.child("on_rollback")), "on_rollback must be true or false, not %s", typeName(v))
		}
	}
	if v, ok := t["is_closed"]; ok {
		what := typeName(v)
		if s, ok := v.(string); ok {
			what = strconv.Quote(s)
		}
		if s, ok := v.(string); ok && methodName().MatchString(s) {
			r.IsClosed = s
		} else {
			ps.errorf(ps.src.valuePos(at.child("is_closed")), `is_closed must name a method of the resource, of type func() bool, true once it is released (is_closed = "IsClosed"), not %s`, what)
		}
	}
	ps.policy.Leaks = append(ps.policy.Leaks, r)
}

// leakNames reads the list key of a [[leak.resource]], each element
// matching re.
func (ps *parser) leakNames(t map[string]any, at tomlPath, key string, re *regexp.Regexp, forms string) []string {
	v, ok := t[key]
	if !ok {
		ps.errorf(ps.src.keyPos(at), "[[leak.resource]] has no %s: add %s = [...] with names of the form %s", key, key, forms)
		return nil
	}
	list, ok := ps.stringList(v, at.child(key))
	if !ok {
		return nil
	}
	if len(list) == 0 {
		ps.errorf(ps.src.valuePos(at.child(key)), "%s is empty: list at least one name of the form %s", key, forms)
	}
	var names []string
	for i, s := range list {
		if !re.MatchString(s) {
			ps.errorf(ps.src.elemPos(at.child(key), i), "%s: %q is not a name of the form %s", key, s, forms)
			continue
		}
		names = append(names, TypesFuncName(s))
	}
	return names
}

// TypesFuncName writes a function or method named as the runtime names it
// ("example.com/p.(*Pool).Get", "example.com/p.Pool.Get",
// "gopkg.in/yaml%2ev3.(*Decoder).Decode") as go/types does
// ("(*example.com/p.Pool).Get", "(example.com/p.Pool).Get",
// "(*gopkg.in/yaml.v3.Decoder).Decode"); any other name is returned as it
// is. A runtime name of a method with a value receiver, "path/pkg.T.M",
// is told from a function only when the last element of the package path
// has no dot of its own (or escapes it as %2e, as the runtime does): a
// name such as "gopkg.in/ini.v1.Load", whose middle part is a version, is
// a function; write "(gopkg.in/ini.v1.File).Save" for such a package's
// methods.
func TypesFuncName(name string) string {
	if strings.HasPrefix(name, "(") {
		return name
	}
	slash := strings.LastIndex(name, "/")
	if i := strings.Index(name, ".("); i > slash {
		pkg, rest := name[:i], name[i+1:] // rest: "(*T).M"
		end := strings.Index(rest, ")")
		if end < 0 || !strings.HasPrefix(rest, "(*") {
			return name
		}
		return "(*" + unescapePath(pkg) + "." + rest[2:end] + rest[end:]
	}
	parts := strings.Split(name[slash+1:], ".")
	if len(parts) != 3 || parts[0] == "" || isVersion(parts[1]) {
		return name
	}
	pkg := name[:slash+1] + parts[0]
	return "(" + unescapePath(pkg) + "." + parts[1] + ")." + parts[2]
}

// isVersion reports whether s is a major version suffix ("v1", "v2").
func isVersion(s string) bool {
	if len(s) < 2 || s[0] != 'v' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// unescapePath undoes the runtime's %xx escapes of a package path.
func unescapePath(prefix string) string {
	path, err := funcname.PathOf(prefix)
	if err != nil {
		return prefix
	}
	return path
}

// Leaks returns, for a package masked, the [[leak.resource]] tables:
// its failing masked calls release the resources they acquired, and
// the instrumentation depends on which.
func (m Match) Leaks() []LeakResource {
	if m.leaks == nil {
		return nil
	}
	return *m.leaks
}

// writeLeaks writes the meaning of [[leak.resource]] tables to a hash;
// nothing when there are none, so that other policies keep their hash.
func writeLeaks(w io.Writer, leaks []LeakResource) {
	for i, r := range leaks {
		fmt.Fprintf(w, "leak %d %q\n", i, r.Name)
		writeList(w, "acquire", r.Acquire)
		writeList(w, "release", r.Release)
		if r.OnRollback {
			fmt.Fprintf(w, "on_rollback\n")
		}
	}
}
