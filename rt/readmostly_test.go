package rt

import (
	"sync"
	"testing"
)

// TestReadMostly: every goroutine that asks for a key gets the value
// stored first, and what storeAll adds joins what was there.
func TestReadMostly(t *testing.T) {
	var m readMostly[int, *int]
	if _, ok := m.load(1); ok {
		t.Fatal("load on an empty map found a value")
	}
	const goroutines, keys = 8, 50
	got := make([][keys]*int, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range keys {
				got[g][k] = m.loadOrStore(k, new(int))
			}
		}()
	}
	wg.Wait()
	for k := range keys {
		want, ok := m.load(k)
		if !ok {
			t.Fatalf("key %d: not stored", k)
		}
		for g := range goroutines {
			if got[g][k] != want {
				t.Errorf("key %d: goroutine %d got another value than the one stored", k, g)
			}
		}
	}
	a, b := new(int), new(int)
	m.storeAll(map[int]*int{keys: a, keys + 1: b})
	if v, _ := m.load(keys); v != a {
		t.Error("storeAll: first key not stored")
	}
	if v, _ := m.load(keys + 1); v != b {
		t.Error("storeAll: second key not stored")
	}
	if v, _ := m.load(0); v != got[0][0] {
		t.Error("storeAll lost an older key")
	}
}
