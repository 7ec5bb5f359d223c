package policy

import "testing"

func TestFuncPattern(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"Transfer", "Transfer", true},
		{"Transfer", "Transfer.func1", false},
		{"Transfer*", "Transfer.func1", true},
		{"Vector.Len", "Vector.Len", true},
		{"Vector.Len", "(*Vector).Len", false},
		{"(*Vector).Alloc", "(*Vector).Alloc", true},
		{"(*Vector).Alloc", "Vector.Alloc", false},
		// The star of "(*" is the pointer, never a wildcard.
		{"(*Vector).*", "(*Vector).Alloc", true},
		{"(*Vector).*", "(*Vector).Alloc.func2", true},
		{"(*Vector).*", "Vector.Len", false},
		{"(*Vector).*", "(*VectorSet).Add", false},
		{"(*Vector).*", "(Vector).Len", false},
		{"(*Vec*).Len", "(*Vector).Len", true},
		{"(*Vec*).Len", "Vector.Len", false},
		// Everywhere else "*" is a wildcard, and may match "(*".
		{"*", "(*Vector).Alloc", true},
		{"*", "Transfer", true},
		{"*.Len", "Vector.Len", true},
		{"*.Len", "(*Vector).Len", true},
		{"*Len", "Len", true},
		{"Test*", "TestAlloc", true},
		{"Test*", "Tester.Run", true},
		{"Test*", "MyTest", false},
		{"*Test*", "MyTestX", true},
		{"V*.L*n", "Vector.Len", true},
		// Type parameters are dropped on both sides.
		{"(*Stack[...]).Push", "(*Stack[...]).Push", true},
		{"(*Stack[...]).Push", "(*Stack).Push", true},
		{"(*Stack).Push", "(*Stack[...]).Push", true},
		{"(*Stack[T]).Push", "(*Stack[...]).Push", true},
		{"Stack[...].Len", "Stack.Len", true},
		{"Stack.Len", "Stack[...].Len", true},
		{"Stack.Len", "Stack[go.shape.struct { a [2]int }].Len", true},
		{"Map[...]", "Map[...]", true},
		{"Map", "Map[...]", true},
		{"Map[...]", "Map", true},
		{"Map[...]", "MapKeys", false},
		{"Pair[...].*", "Pair[...].Swap", true},
	}
	for _, tt := range tests {
		if msg := checkFuncPattern(tt.pattern); msg != "" {
			t.Errorf("checkFuncPattern(%q) = %s", tt.pattern, msg)
			continue
		}
		p := compileFuncPattern(tt.pattern, Position{})
		if got := p.matches(normalizeFuncName(tt.name)); got != tt.want {
			t.Errorf("%q matches %q = %t, want %t", tt.pattern, tt.name, got, tt.want)
		}
	}
}

// The malformed patterns and their messages are in TestParseErrors
// (function_patterns.toml); these must be accepted.
func TestFuncPatternWellFormed(t *testing.T) {
	for _, s := range []string{
		"*", "F", "T.M", "(*T).M", "(*T).M.func1", "(*T[...]).M", "T[...].M", "F[...]",
		"(*T).*", "*.M", "(*T*).M", "(*T[K, V]).M", "F[...].func1", "T.M-fm", "init.0",
	} {
		if msg := checkFuncPattern(s); msg != "" {
			t.Errorf("checkFuncPattern(%q) = %s, want ok", s, msg)
		}
	}
}
