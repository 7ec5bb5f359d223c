package rt

import (
	"runtime"
	"sync"
	"unsafe"
)

// goroutineID returns the current goroutine's number. Calls, locks,
// failure chains and callbacks key their per-goroutine state by it, so an
// experiment asks for it at many calls.
//
// The number is a field of the runtime's descriptor of the goroutine (its
// g), at an offset that differs between Go releases. Where the g can be
// read (see currentG), goidOffset finds that offset once, by comparing
// the words of a few goroutines' descriptors with their numbers as their
// stack traces print them, and the number is then one load. Elsewhere,
// or when no single offset fits, the number is read from the trace.
func goroutineID() uint64 {
	if off := goidOffset(); off != noGoidOffset {
		return *(*uint64)(unsafe.Add(currentG(), off))
	}
	return tracedGoroutineID()
}

// goidOffset is the offset of the goroutine number in a g, or
// noGoidOffset. It is found the first time a number is asked for: a
// program that never arms nor logs anything never asks.
var goidOffset = sync.OnceValue(findGoidOffset)

const noGoidOffset = ^uintptr(0)

// gScanLimit bounds the words of a g that findGoidOffset reads: the
// number comes early in the struct (after the stack bounds, the panic and
// defer chains, the scheduling registers), and every g is larger.
const gScanLimit = 256

// goidSamples is how many goroutines findGoidOffset compares: each has a
// number of its own, so a word that matches all of them by chance is
// ruled out.
const goidSamples = 4

func findGoidOffset() uintptr {
	if !haveCurrentG {
		return noGoidOffset
	}
	type sample struct {
		g  unsafe.Pointer
		id uint64
	}
	samples := make([]sample, goidSamples)
	// The goroutines live until their descriptors are read: the runtime
	// reuses the descriptor of one that ended, with another number.
	var ready, read sync.WaitGroup
	read.Add(1)
	defer read.Done()
	for i := range samples {
		ready.Add(1)
		go func() {
			samples[i] = sample{currentG(), tracedGoroutineID()}
			ready.Done()
			read.Wait()
		}()
	}
	ready.Wait()
	found := noGoidOffset
	for off := uintptr(0); off+8 <= gScanLimit; off += 8 {
		matches := true
		for _, s := range samples {
			if s.id == 0 || *(*uint64)(unsafe.Add(s.g, off)) != s.id {
				matches = false
				break
			}
		}
		if matches {
			if found != noGoidOffset {
				return noGoidOffset // two candidates: trust neither
			}
			found = off
		}
	}
	return found
}

// tracedGoroutineID reads the goroutine's number from its stack trace.
//
// The number is in the header of the trace ("goroutine 18 [running]:"),
// but runtime.Stack walks the whole stack to print its outermost frames:
// on a deep stack, an error that goes up through every level of a
// recursion would pay a walk at each level, a cost quadratic in the
// depth. There, a goroutine started for the purpose reads the number
// from the last line of its own, shallow trace ("created by … in
// goroutine 18").
func tracedGoroutineID() uint64 {
	var pcs [shallowStack]uintptr
	if runtime.Callers(1, pcs[:]) < len(pcs) {
		return ownGoroutineID()
	}
	if id := parentGoroutineID(); id != 0 {
		return id
	}
	return ownGoroutineID()
}
