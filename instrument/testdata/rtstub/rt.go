// Package rt declares the API of the atomicx runtime that instrumented
// code uses, without its implementation, so that rewritten files can be
// type-checked without building the runtime. TestRuntimeStub checks that
// these declarations match the real package.
package rt

import (
	"os"
	"reflect"
)

type SiteKind uint8

const (
	EntrySite SiteKind = iota + 1
	CallSite
)

type Faults uint8

const (
	FaultError Faults = 1 << iota
	FaultPanic
)

type Site struct {
	ID      string
	Func    string
	Pos     string
	Roots   string
	Kind    SiteKind
	Faults  Faults
	Budget  int
	Ignored bool
	Globals *Globals

	NoSnapshot string
	Ends       []int32
	Literal    bool
	In         string
	Frame      string
	Leaf       bool
	Gate       *bool
	Done       DoneErrors
	DoneValues []error
}

type DoneErrors uint8

const (
	DoneSkip DoneErrors = 1 << iota
)

func (s *Site) Fails(err error) bool { return err != nil }

type Globals struct {
	Names string
	Addrs func() []any
}

type Call struct{}

func Enabled() bool { return false }

func (s *Site) Traced() bool { return false }

var On bool

func Inject(s *Site) error { return nil }

func Enter(s *Site, roots ...any) Call { return Call{} }

func EnterHolding(s *Site, lock any, roots ...any) Call { return Call{} }

func (c *Call) Holding(lock any) {}

func Took(lock any) {}

type Regions struct{}

func (c *Call) SnapRegions(own []any, roots ...any) *Regions { return nil }

func (h *Regions) Acquired(lock any) {}

func (h *Regions) ReadAcquired(lock any) {}

func (h *Regions) Tried(lock any, ok bool) bool { return ok }

func (h *Regions) TriedRead(lock any, ok bool) bool { return ok }

func (h *Regions) Releasing(lock any) {}

func CallbackBegin(name string) {}

func CallbackEnd() {}

func AsWritten(table string) struct{} { return struct{}{} }

func Begin(s *Site) Call { return Call{} }

func (c *Call) Wants() bool { return false }

func (c *Call) Snap(roots ...any) {}

func (c Call) Exit(done *int32, errp *error) {}

type Checkpoint struct{}

func Mask(s *Site, roots ...any) *Checkpoint { return nil }

func (c *Checkpoint) Rollback(done *bool, errp *error) {}

func Swallow(s *Site, errp *error) {}

type Undo struct{}

func NewUndo(s *Site) Undo { return Undo{} }

func (u *Undo) End(done *bool, errp *error) {}

type Savepoint struct{}

func (u *Undo) Mark() Savepoint { return Savepoint{} }

func (sp Savepoint) End(s *Site, done *bool, errp *error) {}

func SaveBits[T any](u *Undo, p *T) {}

func Save[T any](u *Undo, p *T) {}

func SaveEntry[M ~map[K]V, K comparable, V any](u *Undo, m M, k K)     {}
func SaveEntryBits[M ~map[K]V, K comparable, V any](u *Undo, m M, k K) {}
func SaveReach(u *Undo, roots ...any)                                  {}

func SaveEntryKey[M ~map[K]V, K comparable, V any](u *Undo, m M, k K) K     { return k }
func SaveEntryBitsKey[M ~map[K]V, K comparable, V any](u *Undo, m M, k K) K { return k }

func SaveReachWith[T any](u *Undo, v T, roots ...any) T  { return v }
func SaveReachAfter[T any](u *Undo, v T, roots ...any) T { return v }
func SaveArg[T any](u *Undo, v T) T                      { return v }

func SaveElems[S ~[]E, E any](u *Undo, s S) {}

func SaveCopy[S ~[]E, E any](u *Undo, dst S, n int) {}

func SaveAppend[S ~[]E, E any](u *Undo, s S, n int) {}

func SaveAppendSpread[S ~[]E, E any, X ~[]E | ~string](u *Undo, s S, xs X) X { return xs }

func SaveSet(u *Undo, v reflect.Value) {}

func SaveMapIndex(u *Undo, m, k reflect.Value)                        {}
func SaveReflectAppend(u *Undo, s reflect.Value, n int) reflect.Value { return s }
func SaveMapIndexKey(u *Undo, m, k reflect.Value) reflect.Value       { return k }

type Oblivious struct{}

func (o *Oblivious) Masked(c *Checkpoint) *Checkpoint { return c }

func (o *Oblivious) Swallow(s *Site, done *bool, errp *error) {}

type Releases struct{}

func (r *Releases) Add(res any, release any, roots ...any) {}

func (r *Releases) OnFailure(s *Site, done *bool, errp *error) {}

type Probes struct{}

func (p *Probes) Add(acquire string, res any) {}

func (p *Probes) AddClosed(acquire string, res any, isClosed func() bool) {}

func (p *Probes) AtExit(s *Site, done *int32, errp *error) {}

func Unwinding(fn string) bool { return false }

func SameBits[T any](a, b *T) bool { return false }

type Visited struct{}

func VisitPtr[T any](v *Visited, p *T) bool { return false }

func VisitSlice[S ~[]E, E any](v *Visited, s S) bool { return false }

func VisitMap[M ~map[K]E, K comparable, E any](v *Visited, m M) bool { return false }

func (v *Visited) Reset() {}

type Pool[T any] struct{}

func (p *Pool[T]) Get() *T { return nil }

func (p *Pool[T]) Put(x *T) {}

type Handler struct {
	ID            string
	Func          string
	Pos           string
	Region        string
	Kind          string
	Predicate     string
	NotInjectable string
	Widened       string
	NotWidenable  string
	Route         string
	RouteResults  string
	NotRoutable   string
}

func Arm(h *Handler, err error, held bool) bool                              { return held }
func Region(arms []Handler, injected error, fault func(arm int) error) error { return injected }
func HandlerError(h *Handler) error                                          { return nil }
func HandlerWrap(h *Handler, target error) error                             { return nil }
func HandlerAs(h *Handler, target error) error                               { return nil }
func HandlerValue(h *Handler, target error) error                            { return nil }
func ArmRecover(h *Handler, r any, held bool) bool                           { return held }
func RecoverRegion(h *Handler)                                               {}
func RecoverRegionWith(h *Handler, value func() any)                         {}
func ArmCase(h *Handler, err, x error) error                                 { return x }
func ArmCases(h *Handler, err, x error, held bool) error                     { return x }

func WidenSwitch(arms []Handler, err error, earlier func(err error, arm int) bool, fault func(arm int) error) error {
	return err
}

func SiteTable(n int, table string, gates ...*bool) []Site { return make([]Site, n) }

func ResolveSites(sites []Site) bool { return true }

func WroteOutside(s *Site, f *os.File, name string) {}
func WroteFile(s *Site, f *os.File, at, n int64)    {}
func FileWriting(f *os.File, at, n int64)           {}

type FileUndo struct{}

func UndoFiles() FileUndo                             { return FileUndo{} }
func (FileUndo) End(s *Site, done *bool, errp *error) {}
