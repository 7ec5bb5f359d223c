package instrument

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"testing"
)

// TestPlainTypeOpaque checks that a type standing for something outside
// the heap is never a plain value, even with a layout of plain fields: its
// checkpoint must be the runtime's, which never writes it back.
func TestPlainTypeOpaque(t *testing.T) {
	plainStruct := types.NewStruct([]*types.Var{
		types.NewField(0, nil, "fd", types.Typ[types.Int], false),
	}, nil)
	named := func(path, name string) types.Type {
		pkg := types.NewPackage(path, "p")
		return types.NewNamed(types.NewTypeName(0, pkg, name, nil), plainStruct, nil)
	}
	tests := []struct {
		t         types.Type
		wantPlain bool
	}{
		{named("os", "File"), false},
		{named("time", "Timer"), false},
		{named("net/http", "Transport"), false},
		{named("example.com/m", "File"), true},
		{named("time", "Time"), true},
		{types.NewArray(named("os", "Process"), 2), false},
	}
	for _, tt := range tests {
		if plain, _ := plainType(tt.t); plain != tt.wantPlain {
			t.Errorf("plainType(%v) = %v, want %v", tt.t, plain, tt.wantPlain)
		}
	}
}

// graphFixture is a package whose types the graph checkpoints support or
// not; each type's comment says which, and which reference nodes keep a
// visited set when a method of *T is masked.
const graphFixture = `package m

import (
	"image"
	"os"
	"sync"
	"sync/atomic"
)

type List struct{ head *node }         // supported; visited: node
type node struct{ v int; next *node }  // supported
type Pair struct{ a, b *leaf }          // supported; visited: leaf (two fields lead to it)
type leaf struct{ n int }
type ByName struct{ m map[string]*leaf } // supported; visited: none
type Boxes struct{ r []image.Rectangle } // supported; visited: none
type File struct{ f *os.File; mu sync.Mutex; n int } // supported; visited: none
type Hook struct{ f func() }             // unsupported: a func
type Named struct{ err error }           // unsupported: an interface
type Chan struct{ c chan int }           // unsupported: a channel
type Gen[T any] struct{ v T }
type HoldsGen struct{ g *Gen[int] }      // unsupported: a generic type
type Time struct{ t image.Uniform }      // unsupported: an interface field of another package
type Floats struct{ m map[float64]int }  // unsupported: a float key
type Hits struct{ n atomic.Int64; all []atomic.Uint32; p *atomic.Bool } // supported; visited: none
type Cur struct{ p atomic.Pointer[leaf] } // unsupported: what it holds is the runtime's to follow
type Cfg struct{ v atomic.Value }         // unsupported: an interface
type Reg struct{ m sync.Map; mu sync.Mutex } // unsupported: entries of interfaces
`

// typeCheck parses and type-checks src as the single file of package
// example.com/m.
func typeCheck(t *testing.T, src string) (*token.FileSet, *types.Package) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "m.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("example.com/m", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fset, pkg
}

func TestGraphSupports(t *testing.T) {
	fset, pkg := typeCheck(t, graphFixture)
	tests := []struct {
		name    string
		ok      bool
		visited []string // the types whose objects, slices or maps keep a visited set
	}{
		{"List", true, []string{"node"}},
		{"Pair", true, []string{"leaf"}},
		{"ByName", true, nil},
		{"Boxes", true, nil},
		{"File", true, nil},
		{"Hook", false, nil},
		{"Named", false, nil},
		{"Chan", false, nil},
		{"HoldsGen", false, nil},
		{"Time", false, nil},
		{"Floats", false, nil},
		{"Hits", true, nil},
		{"Cur", false, nil},
		{"Cfg", false, nil},
		{"Reg", false, nil},
	}
	for _, tt := range tests {
		p := &pkgRewriter{pkg: pkg, fset: fset}
		root := types.NewPointer(pkg.Scope().Lookup(tt.name).Type())
		g := p.graph()
		if got := g.supports(root); got != tt.ok {
			t.Errorf("%s: supported = %v, want %v", tt.name, got, tt.ok)
			continue
		}
		if !tt.ok {
			continue
		}
		g.addRoots([]types.Type{root}, []string{"x"})
		var visited []string
		for n := range g.visitedNodes() {
			visited = append(visited, types.TypeString(g.types[n.id], types.RelativeTo(pkg)))
		}
		sort.Strings(visited)
		if !slices.Equal(visited, tt.visited) {
			t.Errorf("%s: visited sets for %v, want %v", tt.name, visited, tt.visited)
		}
	}
}

// TestRootKindConcurrent checks how roots holding concurrent data are
// checkpointed: atomic scalars beside plain fields by generated field
// copies, what holds references by the runtime, locks left out.
func TestRootKindConcurrent(t *testing.T) {
	fset, pkg := typeCheck(t, `package m

import (
	"sync"
	"sync/atomic"
)

type Plain struct{ n int; mu sync.Mutex; once sync.Once }
type Counter struct{ mu sync.Mutex; hits atomic.Int64; ok atomic.Bool; n int }
type Slots struct{ s [2]atomic.Int32 }
type Reg struct{ m sync.Map }
type Cfg struct{ v atomic.Value; n int }
type Cur struct{ p atomic.Pointer[Plain] }
`)
	tests := []struct {
		name string
		want rootKind
	}{
		{"Plain", rootFields},
		{"Counter", rootFields},
		{"Slots", rootGraph},
		{"Reg", rootReflected},
		{"Cfg", rootReflected},
		{"Cur", rootReflected},
	}
	for _, tt := range tests {
		p := &pkgRewriter{pkg: pkg, fset: fset}
		root := types.NewPointer(pkg.Scope().Lookup(tt.name).Type())
		if got := p.classifyRoot(root); got != tt.want {
			t.Errorf("%s: root kind %d, want %d", tt.name, got, tt.want)
		}
	}
	atomicPkg := pkg.Imports()[1]
	syncPkg := pkg.Imports()[0]
	if atomicPkg.Path() != "sync/atomic" {
		atomicPkg, syncPkg = syncPkg, atomicPkg
	}
	for _, tt := range []struct {
		pkg        *types.Package
		name       string
		lock, conc bool
	}{
		{syncPkg, "Mutex", true, false},
		{syncPkg, "RWMutex", true, false},
		{syncPkg, "Once", true, false},
		{syncPkg, "WaitGroup", true, false},
		{syncPkg, "Cond", true, false},
		{syncPkg, "Pool", true, false},
		{syncPkg, "Map", false, true},
		{atomicPkg, "Bool", false, true},
		{atomicPkg, "Int32", false, true},
		{atomicPkg, "Int64", false, true},
		{atomicPkg, "Uint32", false, true},
		{atomicPkg, "Uint64", false, true},
		{atomicPkg, "Uintptr", false, true},
		{atomicPkg, "Value", false, true},
		{atomicPkg, "Pointer", false, true},
	} {
		typ := tt.pkg.Scope().Lookup(tt.name).Type()
		if isLockType(typ) != tt.lock || (concKindOf(typ) != concNone) != tt.conc {
			t.Errorf("%s.%s: lock %v, conc %v; want %v, %v", tt.pkg.Path(), tt.name, isLockType(typ), concKindOf(typ), tt.lock, tt.conc)
		}
	}
}
