package instrument

import (
	"bytes"
	"fmt"
	"go/token"
	"go/types"
	"regexp"
	"strconv"
	"strings"

	"github.com/dave/dst"
	"github.com/dave/dst/decorator"
	"github.com/dave/dst/decorator/resolver/simple"
	"github.com/dave/dst/dstutil"
)

// The generated files are syntax trees (see the package notes): a genFile
// collects declarations as dst nodes, and the restorer prints them and
// writes the import block from the identifiers that name other packages.

// siteTable declares the site table, one rt.Site per site: as data, a
// string that rt.SiteTable reads when the package is initialized (see
// siteTableData), or, where the package's language version cannot convert
// the slice it returns to an array pointer, as composite literals, which
// cost the compiler several times more, followed by the call of
// rt.ResolveSites that SiteTable makes itself.
func (p *pkgRewriter) siteTable() []dst.Decl {
	rt := func(name string) dst.Expr { return &dst.Ident{Name: name, Path: p.opts.RuntimePath} }
	str := func(s string) dst.Expr { return &dst.BasicLit{Kind: token.STRING, Value: strconv.Quote(s)} }
	num := func(n int) dst.Expr { return &dst.BasicLit{Kind: token.INT, Value: strconv.Itoa(n)} }
	if lines, ok := p.siteTableData(); ok && p.langAtLeast(goSliceToArrayPointer) {
		// (*[n]rt.Site)(rt.SiteTable(n, "line\n" + ...)): the sites keep
		// constant addresses, as in an array.
		var data dst.Expr = str("")
		for i, l := range lines {
			lit := &dst.BasicLit{Kind: token.STRING, Value: strconv.Quote(l + "\n")}
			lit.Decs.Before = dst.NewLine
			if i == 0 {
				data = lit
			} else {
				data = &dst.BinaryExpr{X: data, Op: token.ADD, Y: lit}
			}
		}
		args := []dst.Expr{num(len(p.sites)), data}
		for _, s := range p.sites {
			if s.gate != "" {
				args = append(args, &dst.UnaryExpr{Op: token.AND, X: dst.NewIdent(s.gate)})
			}
		}
		table := &dst.CallExpr{
			Fun:  &dst.ParenExpr{X: &dst.StarExpr{X: &dst.ArrayType{Len: num(len(p.sites)), Elt: rt("Site")}}},
			Args: []dst.Expr{&dst.CallExpr{Fun: rt("SiteTable"), Args: args}},
		}
		spec := &dst.ValueSpec{Names: []*dst.Ident{dst.NewIdent(sitesName)}, Values: []dst.Expr{table}}
		return []dst.Decl{&dst.GenDecl{Tok: token.VAR, Specs: []dst.Spec{spec}}}
	}
	elts := make([]dst.Expr, len(p.sites))
	for i, s := range p.sites {
		var fields []dst.Expr
		field := func(key string, value dst.Expr) {
			fields = append(fields, &dst.KeyValueExpr{Key: dst.NewIdent(key), Value: value})
		}
		var faults []dst.Expr
		if s.canError {
			faults = append(faults, rt("FaultError"))
		}
		if p.opts.Panics && !s.call {
			faults = append(faults, rt("FaultPanic"))
		}
		if s.ignored || p.opts.Mask {
			faults = nil
		}
		fault := num(0)
		for i, x := range faults {
			if i == 0 {
				fault = x
			} else {
				fault = &dst.BinaryExpr{X: fault, Op: token.OR, Y: x}
			}
		}
		kind := "EntrySite"
		if s.call {
			kind = "CallSite"
		}
		field("ID", str(s.id))
		field("Func", str(s.fn))
		field("Pos", str(s.pos))
		field("Roots", str(s.roots))
		field("Kind", rt(kind))
		field("Faults", fault)
		field("Budget", num(p.opts.SnapshotBudget))
		field("Ignored", dst.NewIdent(strconv.FormatBool(s.ignored)))
		if s.noSnapshot != "" {
			field("NoSnapshot", str(s.noSnapshot))
		}
		if len(s.ends) > 0 {
			lines := make([]dst.Expr, len(s.ends))
			for i, l := range s.ends {
				lines[i] = num(int(l))
			}
			field("Ends", &dst.CompositeLit{Type: &dst.ArrayType{Elt: dst.NewIdent("int32")}, Elts: lines})
		}
		if len(p.opts.Scratch) > 0 && !s.call {
			field("Scratch", str(strings.Join(p.opts.Scratch, ",")))
		}
		if s.literal {
			field("Literal", dst.NewIdent("true"))
		}
		if s.in != "" {
			field("In", str(s.in))
		}
		if s.frame != "" {
			field("Frame", str(s.frame))
		}
		if s.leaf {
			field("Leaf", dst.NewIdent("true"))
		}
		if s.gate != "" {
			field("Gate", &dst.UnaryExpr{Op: token.AND, X: dst.NewIdent(s.gate)})
		}
		if s.done&doneSkip != 0 {
			field("Done", rt("DoneSkip"))
		}
		entry := &dst.CompositeLit{Elts: fields}
		entry.Decs.Before, entry.Decs.After = dst.NewLine, dst.NewLine
		elts[i] = entry
	}
	table := &dst.CompositeLit{Type: &dst.ArrayType{Len: num(len(p.sites)), Elt: rt("Site")}, Elts: elts}
	spec := &dst.ValueSpec{Names: []*dst.Ident{dst.NewIdent(sitesName)}, Values: []dst.Expr{table}}
	// var _ = rt.ResolveSites(_atx_sites[:])
	resolve := &dst.ValueSpec{Names: []*dst.Ident{dst.NewIdent("_")}, Values: []dst.Expr{&dst.CallExpr{
		Fun:  rt("ResolveSites"),
		Args: []dst.Expr{&dst.SliceExpr{X: dst.NewIdent(sitesName)}},
	}}}
	return []dst.Decl{
		&dst.GenDecl{Tok: token.VAR, Specs: []dst.Spec{spec}},
		&dst.GenDecl{Tok: token.VAR, Specs: []dst.Spec{resolve}},
	}
}

// gates declares the gates of the functions that have one (see
// rt.Site.Gate), set as rt.On is; nil when none has.
func (p *pkgRewriter) gates() dst.Decl {
	var specs []dst.Spec
	for _, s := range p.sites {
		if s.gate != "" {
			on := &dst.Ident{Name: "On", Path: p.opts.RuntimePath}
			specs = append(specs, &dst.ValueSpec{Names: []*dst.Ident{dst.NewIdent(s.gate)}, Values: []dst.Expr{on}})
		}
	}
	if specs == nil {
		return nil
	}
	return &dst.GenDecl{Tok: token.VAR, Lparen: len(specs) > 1, Specs: specs}
}

// siteTableData writes the site table as rt.SiteTable reads it, one line
// per site; false when a field holds a tab or a newline, which the lines
// cannot carry.
func (p *pkgRewriter) siteTableData() ([]string, bool) {
	lines := make([]string, len(p.sites))
	for i, s := range p.sites {
		var flags []byte
		if s.call {
			flags = append(flags, 'c')
		}
		if !s.ignored && !p.opts.Mask {
			if s.canError {
				flags = append(flags, 'e')
			}
			if p.opts.Panics && !s.call {
				flags = append(flags, 'p')
			}
		}
		if s.ignored {
			flags = append(flags, 'i')
		}
		if s.literal {
			flags = append(flags, 'l')
		}
		if s.leaf {
			flags = append(flags, 'f')
		}
		if s.gate != "" {
			flags = append(flags, 'g')
		}
		if s.done&doneSkip != 0 {
			flags = append(flags, 'w')
		}
		if len(flags) == 0 {
			flags = append(flags, '-')
		}
		ends := make([]string, len(s.ends))
		for i, l := range s.ends {
			ends[i] = strconv.Itoa(int(l))
		}
		scratch := ""
		if len(p.opts.Scratch) > 0 && !s.call {
			scratch = strings.Join(p.opts.Scratch, ",")
		}
		fields := []string{string(flags), s.id, s.fn, s.pos, s.roots, strconv.Itoa(p.opts.SnapshotBudget),
			s.noSnapshot, strings.Join(ends, ","), scratch, s.in, s.frame}
		for _, f := range fields {
			if strings.ContainsAny(f, "\t\n") {
				return nil, false
			}
		}
		lines[i] = strings.Join(fields, "\t")
	}
	return lines, true
}

// genFile is a generated file of the package under construction.
type genFile struct {
	p     *pkgRewriter
	decls []dst.Decl
	// types are the types that placeholders _atx_T<n> in parsed code
	// stand for, and pkgs the import paths of the packages that
	// selectors _atx_P<n>.X name (see parseDecls).
	types []types.Type
	pkgs  []string
}

// placeholder matches the identifiers that stand for a type of types,
// pkgPlaceholder those that stand for a package of pkgs.
var (
	placeholder    = regexp.MustCompile(`^_atx_T([0-9]+)$`)
	pkgPlaceholder = regexp.MustCompile(`^_atx_P([0-9]+)$`)
)

// add appends declarations to the file.
func (f *genFile) add(decls ...dst.Decl) { f.decls = append(f.decls, decls...) }

// parseDecls parses declarations written as Go text and appends them. In
// the text, rtName.X names X of the runtime, _atx_P<n>.X names X of the
// package f.pkgs[n] (the package's own, or one it imports) and _atx_T<n>
// the type f.types[n]: all become identifiers that carry their
// package's path, so that the restorer imports what they name.
func (f *genFile) parseDecls(src string) error {
	if strings.TrimSpace(src) == "" {
		return nil
	}
	file, err := decorator.Parse("package _\n" + src)
	if err != nil {
		return fmt.Errorf("generated code: %w", err)
	}
	rtPath := f.p.opts.RuntimePath
	var typeErr error
	dstutil.Apply(file, func(c *dstutil.Cursor) bool {
		switch n := c.Node().(type) {
		case *dst.SelectorExpr:
			x, ok := n.X.(*dst.Ident)
			if !ok || x.Path != "" {
				break
			}
			path := ""
			if x.Name == rtName {
				path = rtPath
			} else if m := pkgPlaceholder.FindStringSubmatch(x.Name); m != nil {
				i, _ := strconv.Atoi(m[1])
				path = f.pkgs[i]
			}
			if path != "" {
				c.Replace(&dst.Ident{Name: n.Sel.Name, Path: path, Decs: dst.IdentDecorations{NodeDecs: n.Decs.NodeDecs}})
				return false
			}
		case *dst.Ident:
			if m := placeholder.FindStringSubmatch(n.Name); m != nil {
				i, _ := strconv.Atoi(m[1])
				t, err := f.typeNode(f.types[i])
				if err != nil && typeErr == nil {
					typeErr = err
				}
				c.Replace(t)
			}
		}
		return true
	}, nil)
	if typeErr != nil {
		return typeErr
	}
	file.Decls[0].Decorations().Before = dst.EmptyLine
	f.add(file.Decls...)
	return nil
}

// typeNode spells t as a type expression: a named type is an identifier
// with its package's path, which the restorer qualifies.
func (f *genFile) typeNode(t types.Type) (dst.Expr, error) {
	switch t := t.(type) {
	case *types.Alias:
		if obj := t.Obj(); obj.Pkg() != nil && t.TypeArgs().Len() == 0 {
			return &dst.Ident{Name: obj.Name(), Path: obj.Pkg().Path()}, nil
		}
		return f.typeNode(types.Unalias(t))
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() == nil || t.TypeArgs().Len() > 0 {
			break // error, and the instantiations nameable excludes
		}
		return &dst.Ident{Name: obj.Name(), Path: obj.Pkg().Path()}, nil
	case *types.Basic:
		if t.Kind() != types.UnsafePointer && t.Kind() != types.Invalid {
			return &dst.Ident{Name: t.Name()}, nil
		}
	case *types.Pointer:
		elem, err := f.typeNode(t.Elem())
		return &dst.StarExpr{X: elem}, err
	case *types.Slice:
		elem, err := f.typeNode(t.Elem())
		return &dst.ArrayType{Elt: elem}, err
	case *types.Array:
		elem, err := f.typeNode(t.Elem())
		return &dst.ArrayType{Len: &dst.BasicLit{Kind: token.INT, Value: strconv.FormatInt(t.Len(), 10)}, Elt: elem}, err
	case *types.Map:
		key, err := f.typeNode(t.Key())
		if err != nil {
			return nil, err
		}
		val, err := f.typeNode(t.Elem())
		return &dst.MapType{Key: key, Value: val}, err
	case *types.Struct:
		fields := &dst.FieldList{Opening: true, Closing: true}
		for i := range t.NumFields() {
			v := t.Field(i)
			ft, err := f.typeNode(v.Type())
			if err != nil {
				return nil, err
			}
			field := &dst.Field{Type: ft}
			if !v.Embedded() {
				field.Names = []*dst.Ident{{Name: v.Name()}}
			}
			if tag := t.Tag(i); tag != "" {
				field.Tag = &dst.BasicLit{Kind: token.STRING, Value: strconv.Quote(tag)}
			}
			fields.List = append(fields.List, field)
		}
		return &dst.StructType{Fields: fields}, nil
	}
	return nil, fmt.Errorf("generated code cannot name type %s", t)
}

// print returns the text of the file: the restorer writes the imports
// that the identifiers need, the runtime as rtName and every other
// package under a name that nothing in the file or the package uses.
func (f *genFile) print() ([]byte, error) {
	file := &dst.File{Name: dst.NewIdent(f.p.pkg.Name()), Decls: f.decls}
	file.Decs.Start = dst.Decorations{"// Code generated by atomicx. DO NOT EDIT.", "\n"}
	names := map[string]string{f.p.opts.RuntimePath: "rt"}
	for _, imp := range f.p.pkg.Imports() {
		names[imp.Path()] = imp.Name()
	}
	r := decorator.NewRestorerWithImports(f.p.pkg.Path(), simple.New(names))
	fr := r.FileRestorer()
	for path, alias := range f.importNames(file, names) {
		fr.Alias[path] = alias
	}
	var b bytes.Buffer
	if err := fr.Fprint(&b, file); err != nil {
		return nil, fmt.Errorf("generated file: %w", err)
	}
	return b.Bytes(), nil
}

// importNames chooses the names of the imported packages, when one
// differs from the package's own: the runtime's is rtName, and a package
// whose name an identifier of the file or a package-level declaration
// uses (a local variable of generated code could shadow it, a declaration
// would clash with it) gets a fresh one.
func (f *genFile) importNames(file *dst.File, names map[string]string) map[string]string {
	taken, seen := map[string]bool{}, map[string]bool{}
	var paths []string
	dst.Inspect(file, func(n dst.Node) bool {
		if id, ok := n.(*dst.Ident); ok {
			if id.Path == "" {
				taken[id.Name] = true
			} else if id.Path != f.p.pkg.Path() && !seen[id.Path] {
				seen[id.Path] = true
				paths = append(paths, id.Path)
			}
		}
		return true
	})
	aliases := map[string]string{f.p.opts.RuntimePath: rtName}
	taken[rtName] = true
	for _, path := range paths {
		if path == f.p.opts.RuntimePath {
			continue
		}
		name := names[path]
		alias := name
		for i := 1; taken[alias] || f.p.pkg.Scope().Lookup(alias) != nil; i++ {
			alias = fmt.Sprintf("%s%d", name, i)
		}
		taken[alias] = true
		if alias != name {
			aliases[path] = alias
		}
	}
	return aliases
}
