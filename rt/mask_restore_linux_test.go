package rt

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"unsafe"
)

// mtPinned is a flat object with locks, placed in memory the test can
// make read-only.
type mtPinned struct {
	a, b int64
	mu   sync.Mutex
	arr  [3]int32
	hits atomic.Int64
	last atomic.Value
	cur  atomic.Pointer[int64]
}

// mtPinnedTarget is what the pinned object's atomic pointer holds: memory
// the collector keeps, as the pinned page is not scanned.
var mtPinnedTarget int64

// TestMaskRollbackWritesOnlyWhatChanged places the graph of a masked call
// in pages of its own: an object and the first half of a slice's elements
// in a page it then makes read-only, the rest of the elements in a page
// that stays writable. The call changes one element in the writable page
// only and fails. Its rollback must restore that element and write
// nothing in the read-only page, locks and atomics included; a write
// there is a fault, which the test turns into a panic.
func TestMaskRollbackWritesOnlyWhatChanged(t *testing.T) {
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("no anonymous mapping: %v", err)
	}
	defer syscall.Munmap(mem)
	readOnly := mem[:page]

	obj := (*mtPinned)(unsafe.Pointer(&readOnly[0]))
	obj.a, obj.b, obj.arr = 1, 2, [3]int32{3, 4, 5}
	obj.hits.Store(6)
	obj.last.Store("seven") // a constant: its box is static data
	obj.cur.Store(&mtPinnedTarget)
	// Four elements before the page boundary, four after it.
	elems := unsafe.Slice((*int64)(unsafe.Pointer(&mem[page-4*8])), 8)
	for i := range elems {
		elems[i] = int64(i)
	}

	mutate := func() {
		elems[6] = 60
		if err := syscall.Mprotect(readOnly, syscall.PROT_READ); err != nil {
			t.Fatalf("mprotect: %v", err)
		}
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	var err2 error
	r := mtRecover(func() { err2 = mtMaskedErr(mtFailError, mutate, obj, elems) })
	if err := syscall.Mprotect(readOnly, syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	if r != nil {
		t.Fatalf("the rollback wrote to memory the call did not change: %v", r)
	}
	if err2 != mtErr {
		t.Errorf("the call returned %v, want %v", err2, mtErr)
	}
	if elems[6] != 6 {
		t.Errorf("elems[6] = %d after the rollback, want 6", elems[6])
	}
	if obj.a != 1 || obj.b != 2 || obj.arr != [3]int32{3, 4, 5} || obj.hits.Load() != 6 ||
		obj.last.Load() != "seven" || obj.cur.Load() != &mtPinnedTarget {
		t.Errorf("object %+v changed", obj)
	}
}
