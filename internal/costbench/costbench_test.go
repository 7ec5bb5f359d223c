package costbench

import "testing"

var sink int

func BenchmarkGet(b *testing.B) {
	c := &Counter{n: 1}
	for range b.N {
		sink += c.Get()
	}
}

func BenchmarkSet(b *testing.B) {
	c := &Counter{}
	for i := range b.N {
		c.Set(i)
	}
}

func BenchmarkAdd(b *testing.B) {
	c := &Counter{max: 1 << 62}
	for range b.N {
		if c.Add(1) != nil {
			b.Fatal("full")
		}
	}
}

func BenchmarkCheck(b *testing.B) {
	c := &Counter{max: 1}
	for range b.N {
		if c.Check() != nil {
			b.Fatal("past the bound")
		}
	}
}

func BenchmarkAddTwice(b *testing.B) {
	c := &Counter{max: 1 << 62}
	for range b.N {
		if c.AddTwice(1) != nil {
			b.Fatal("full")
		}
	}
}

func BenchmarkLockedAdd(b *testing.B) {
	s := &SafeCounter{c: Counter{max: 1 << 62}}
	for range b.N {
		if s.Add(1) != nil {
			b.Fatal("full")
		}
	}
}

// TestNoAllocs holds in plain builds and, with nothing armed, in detect
// builds.
func TestNoAllocs(t *testing.T) {
	c := &Counter{max: 1 << 62}
	s := &SafeCounter{c: Counter{max: 1 << 62}}
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Get", func() { sink += c.Get() }},
		{"Set", func() { c.Set(3) }},
		{"Add", func() { _ = c.Add(1) }},
		{"Check", func() { _ = c.Check() }},
		{"AddTwice", func() { _ = c.AddTwice(1) }},
		{"LockedAdd", func() { _ = s.Add(1) }},
	} {
		if n := testing.AllocsPerRun(100, tc.f); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", tc.name, n)
		}
	}
}
