package maskbench

import (
	"fmt"
	"reflect"
	"testing"
)

// object is what every ObjN offers.
type object interface {
	PlainFixed(bool) error
	MaskedFixed(bool) error
	ReflectFixed(bool) error
	SwapFixed(bool) error
	PlainScan(bool) error
	MaskedScan(bool) error
	ReflectScan(bool) error
	SwapScan(bool) error
}

var objects = []struct {
	size string
	new  func() object
}{
	{"8B", func() object { return new(Obj8) }},
	{"64B", func() object { return new(Obj64) }},
	{"512B", func() object { return new(Obj512) }},
	{"4KiB", func() object { return new(Obj4K) }},
	{"64KiB", func() object { return new(Obj64K) }},
}

type variant struct {
	name        string
	fixed, scan func(object, bool) error
}

var variants = []variant{
	{"plain", object.PlainFixed, object.PlainScan},
	{"masked", object.MaskedFixed, object.MaskedScan},
	{"reflect", object.ReflectFixed, object.ReflectScan},
	{"swap", object.SwapFixed, object.SwapScan},
}

// masked reports whether this build masks the Masked* methods.
func masked() bool {
	o := new(Obj8)
	o.MaskedFixed(true)
	return o.w[0] == 0
}

// TestVariants checks that every failure-atomic variant leaves the object
// as it was when it fails, and changes it as the plain method does when it
// succeeds.
func TestVariants(t *testing.T) {
	t.Logf("Masked* methods masked in this build: %v", masked())
	for _, obj := range objects {
		for _, v := range variants {
			for _, m := range []struct {
				name string
				call func(object, bool) error
			}{{"fixed", v.fixed}, {"scan", v.scan}} {
				t.Run(fmt.Sprintf("%s/%s/%s", obj.size, v.name, m.name), func(t *testing.T) {
					want, got := obj.new(), obj.new()
					if err := v.fixed(got, false); err != nil {
						t.Fatal(err)
					}
					want.PlainFixed(false)
					if !reflect.DeepEqual(got, want) {
						t.Fatal("a successful call differs from the plain method's")
					}
					before := reflect.ValueOf(got).Elem().Interface()
					if err := m.call(got, true); err != errFailed {
						t.Fatalf("error = %v, want the method's own", err)
					}
					after := reflect.ValueOf(got).Elem().Interface()
					atomic := reflect.DeepEqual(before, after)
					wantAtomic := v.name == "reflect" || v.name == "swap" || v.name == "masked" && masked()
					if atomic != wantAtomic {
						t.Errorf("after a failure the object is unchanged: %v, want %v", atomic, wantAtomic)
					}
				})
			}
		}
	}
}

// BenchmarkFixed is the paper's Fig. 13 set-up: the fixed cost of a
// successful call of a method that does a fixed amount of work.
func BenchmarkFixed(b *testing.B) {
	for _, obj := range objects {
		for _, v := range variants {
			b.Run(obj.size+"/"+v.name, func(b *testing.B) {
				o := obj.new()
				for b.Loop() {
					v.fixed(o, false)
				}
			})
		}
	}
}

// BenchmarkScan is the Fig. 14 set-up: a method whose work grows with
// the size of its object.
func BenchmarkScan(b *testing.B) {
	for _, obj := range objects {
		for _, v := range variants {
			b.Run(obj.size+"/"+v.name, func(b *testing.B) {
				o := obj.new()
				for b.Loop() {
					v.scan(o, false)
				}
			})
		}
	}
}

// BenchmarkShare varies the share of calls that go to the masked method
// (64-byte object, fixed work): 0 % is the plain method only.
func BenchmarkShare(b *testing.B) {
	for _, pct := range []int{0, 25, 50, 75, 100} {
		for _, v := range variants[1:] {
			b.Run(fmt.Sprintf("%d%%/%s", pct, v.name), func(b *testing.B) {
				o := new(Obj64)
				i := 0
				for b.Loop() {
					if i%100 < pct {
						v.fixed(o, false)
					} else {
						o.PlainFixed(false)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkRollback is the cost of a failing call: checkpoint and
// rollback both run.
func BenchmarkRollback(b *testing.B) {
	for _, obj := range objects {
		for _, v := range variants {
			b.Run(obj.size+"/"+v.name, func(b *testing.B) {
				o := obj.new()
				for b.Loop() {
					v.fixed(o, true)
				}
			})
		}
	}
}

// linkedObject is what every Linked* structure offers.
type linkedObject interface {
	PlainFixed(bool) error
	MaskedFixed(bool) error
	ReflectFixed(bool) error
	UndoFixed(bool) error
	PlainScan(bool) error
	MaskedScan(bool) error
	ReflectScan(bool) error
	UndoScan(bool) error
	values() (vs []int64, nodes []any)
}

var linkedStructs = []struct {
	name string
	new  func(n int) linkedObject
}{
	{"list", func(n int) linkedObject { return newLinkedList(n) }},
	{"tree", func(n int) linkedObject { return newLinkedTree(n) }},
	{"map", func(n int) linkedObject { return newLinkedMap(n) }},
}

var linkedSizes = []int{1, 64, 1024}

var linkedVariants = []struct {
	name        string
	fixed, scan func(linkedObject, bool) error
}{
	{"plain", linkedObject.PlainFixed, linkedObject.PlainScan},
	{"masked", linkedObject.MaskedFixed, linkedObject.MaskedScan},
	{"reflect", linkedObject.ReflectFixed, linkedObject.ReflectScan},
	{"undo", linkedObject.UndoFixed, linkedObject.UndoScan},
}

// TestLinkedVariants checks that every failure-atomic variant gives every
// node its contents back when it fails, the same nodes, and changes the
// structure as the plain method does when it succeeds.
func TestLinkedVariants(t *testing.T) {
	for _, st := range linkedStructs {
		for _, n := range linkedSizes {
			for _, v := range linkedVariants {
				for _, m := range []struct {
					name        string
					call, plain func(linkedObject, bool) error
				}{{"fixed", v.fixed, linkedObject.PlainFixed}, {"scan", v.scan, linkedObject.PlainScan}} {
					t.Run(fmt.Sprintf("%s/%d/%s/%s", st.name, n, v.name, m.name), func(t *testing.T) {
						want, got := st.new(n), st.new(n)
						if err := m.call(got, false); err != nil {
							t.Fatal(err)
						}
						m.plain(want, false)
						wv, _ := want.values()
						gv, _ := got.values()
						if !reflect.DeepEqual(gv, wv) {
							t.Fatalf("a successful call gives %v, the plain method %v", gv, wv)
						}
						before, nodes := got.values()
						if err := m.call(got, true); err != errFailed {
							t.Fatalf("error = %v, want the method's own", err)
						}
						after, afterNodes := got.values()
						atomic := reflect.DeepEqual(before, after)
						wantAtomic := v.name == "reflect" || v.name == "undo" || v.name == "masked" && masked()
						if atomic != wantAtomic {
							t.Errorf("after a failure the values are unchanged: %v, want %v", atomic, wantAtomic)
						}
						if len(nodes) != len(afterNodes) {
							t.Fatalf("%d nodes after the failure, %d before", len(afterNodes), len(nodes))
						}
						for i := range nodes {
							if nodes[i] != afterNodes[i] {
								t.Fatalf("node %d is another object after the failure", i)
							}
						}
					})
				}
			}
		}
	}
}

// BenchmarkLinkedFixed is Fig. 13 on linked structures: a successful call
// of a method that does a fixed amount of work (a path's for the tree),
// on structures of 1 to 1024 nodes, which the checkpoints save whole.
func BenchmarkLinkedFixed(b *testing.B) {
	benchLinked(b, func(v int) func(linkedObject, bool) error { return linkedVariants[v].fixed }, false)
}

// BenchmarkLinkedScan is Fig. 14 on linked structures: a method whose
// work grows with the structure.
func BenchmarkLinkedScan(b *testing.B) {
	benchLinked(b, func(v int) func(linkedObject, bool) error { return linkedVariants[v].scan }, false)
}

// BenchmarkLinkedRollback is the cost of a failing call of the
// fixed-work method: checkpoint and rollback both run.
func BenchmarkLinkedRollback(b *testing.B) {
	benchLinked(b, func(v int) func(linkedObject, bool) error { return linkedVariants[v].fixed }, true)
}

func benchLinked(b *testing.B, method func(v int) func(linkedObject, bool) error, fail bool) {
	for _, st := range linkedStructs {
		for _, n := range linkedSizes {
			for i, v := range linkedVariants {
				b.Run(fmt.Sprintf("%s/%d/%s", st.name, n, v.name), func(b *testing.B) {
					o, call := st.new(n), method(i)
					for b.Loop() {
						call(o, fail)
					}
				})
			}
		}
	}
}

// BenchmarkLinkedShare varies the share of calls that go to the masked
// method (fixed work, 64 nodes): 0 % is the plain method only.
func BenchmarkLinkedShare(b *testing.B) {
	for _, st := range linkedStructs {
		for _, pct := range []int{0, 25, 50, 75, 100} {
			for _, v := range linkedVariants[1:] {
				b.Run(fmt.Sprintf("%s/%d%%/%s", st.name, pct, v.name), func(b *testing.B) {
					o := st.new(64)
					i := 0
					for b.Loop() {
						if i%100 < pct {
							v.fixed(o, false)
						} else {
							o.PlainFixed(false)
						}
						i++
					}
				})
			}
		}
	}
}

// TestBigMap checks that the masked method of an object holding a large
// map rolls back a failed call, entry and counter, and keeps a
// successful one.
func TestBigMap(t *testing.T) {
	got, want := newBigMap(1000), newBigMap(1000)
	for range 3 {
		got.MaskedSet(false)
		want.PlainSet(false)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("a successful call differs from the plain method's")
	}
	got.MaskedSet(true)
	if masked() != reflect.DeepEqual(got, want) {
		t.Errorf("after a failure the object is unchanged: %v, want %v", !masked(), masked())
	}
}

// BenchmarkBigMap is a successful call that changes one entry of a
// 100,000-entry map: masked, it costs what it writes, not the map.
func BenchmarkBigMap(b *testing.B) {
	for _, v := range []struct {
		name string
		set  func(*BigMap, bool) error
	}{{"plain", (*BigMap).PlainSet}, {"masked", (*BigMap).MaskedSet}} {
		b.Run(v.name, func(b *testing.B) {
			o := newBigMap(100_000)
			for b.Loop() {
				v.set(o, false)
			}
		})
	}
}
