package instrument

import (
	"go/types"
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
