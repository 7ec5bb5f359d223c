package rt

import "testing"

// TestVisited checks that a set reports each object, array part and map
// new exactly once, however many it holds, and tells apart slices of one
// array with other lengths.
func TestVisited(t *testing.T) {
	type node struct {
		n    int
		next *node
	}
	nodes := make([]node, 1000)
	arr := make([]int, 8)
	m1, m2 := map[string]int{}, map[string]int{}
	tests := []struct {
		name  string
		visit func(v *Visited) bool
		want  bool
	}{
		{"first node", func(v *Visited) bool { return VisitPtr(v, &nodes[0]) }, true},
		{"first node again", func(v *Visited) bool { return VisitPtr(v, &nodes[0]) }, false},
		{"second node", func(v *Visited) bool { return VisitPtr(v, &nodes[1]) }, true},
		{"slice of 8", func(v *Visited) bool { return VisitSlice(v, arr) }, true},
		{"slice of 8 again", func(v *Visited) bool { return VisitSlice(v, arr[:8]) }, false},
		{"slice of 4 of the same array", func(v *Visited) bool { return VisitSlice(v, arr[:4]) }, true},
		{"slice from the second element", func(v *Visited) bool { return VisitSlice(v, arr[1:]) }, true},
		{"map", func(v *Visited) bool { return VisitMap(v, m1) }, true},
		{"another map", func(v *Visited) bool { return VisitMap(v, m2) }, true},
		{"map again", func(v *Visited) bool { return VisitMap(v, m1) }, false},
	}
	var v Visited
	for _, tt := range tests {
		if got := tt.visit(&v); got != tt.want {
			t.Errorf("%s: new = %v, want %v", tt.name, got, tt.want)
		}
	}

	// Growing keeps every key: all nodes are new once, then none is.
	var big Visited
	for round, want := range []bool{true, false} {
		for i := range nodes {
			if got := VisitPtr(&big, &nodes[i]); got != want {
				t.Fatalf("round %d, node %d: new = %v, want %v", round, i, got, want)
			}
		}
	}
	if big.n != len(nodes) {
		t.Errorf("the set holds %d keys, want %d", big.n, len(nodes))
	}

	// After a reset, everything is new again.
	big.Reset()
	v.Reset()
	if !VisitPtr(&big, &nodes[7]) || !VisitSlice(&v, arr) || !VisitMap(&v, m1) {
		t.Error("a key is still in the set after Reset")
	}
}

// TestPool checks that a pool hands out a checkpoint, new or put back.
func TestPool(t *testing.T) {
	var p Pool[[4]int]
	x := p.Get()
	if x == nil || *x != [4]int{} {
		t.Fatalf("Get = %v, want a new zero value", x)
	}
	p.Put(x)
	if y := p.Get(); y == nil {
		t.Fatal("Get after Put = nil")
	}
}

// BenchmarkVisitPtr is the cost of adding the nodes of a list of 1000.
func BenchmarkVisitPtr(b *testing.B) {
	type node struct{ next *node }
	nodes := make([]node, 1000)
	for b.Loop() {
		var v Visited
		for i := range nodes {
			VisitPtr(&v, &nodes[i])
		}
	}
}

func BenchmarkVisitGoMap(b *testing.B) {
	type node struct{ next *node }
	nodes := make([]node, 1000)
	for b.Loop() {
		v := map[*node]struct{}{}
		for i := range nodes {
			v[&nodes[i]] = struct{}{}
		}
	}
}
