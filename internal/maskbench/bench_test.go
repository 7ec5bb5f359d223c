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
