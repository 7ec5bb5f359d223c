package gobuild

import (
	"slices"
	"strings"
	"testing"
)

func TestBuildFlags(t *testing.T) {
	tests := []struct {
		name string
		args string // the go command's arguments after the program name
		want []string
		bug  string // known bug: the case is skipped with this text
	}{
		{
			name: "go build with -race -tags -gcflags",
			args: "build -race -tags x -gcflags=all=-N ./...",
			want: []string{"-race", "-tags=x", "-gcflags=all=-N"},
		},
		{
			name: "go test with test flags and -args",
			args: "test -run X -count 1 -v -trimpath ./pkg -args -foo -race",
			want: []string{"-trimpath"},
		},
		{
			name: "separate values and = values",
			args: "build -tags=a,b -gcflags all=-N -asmflags=-I=x -buildmode pie -installsuffix race -pgo=off -compiler gc .",
			want: []string{"-tags=a,b", "-gcflags=all=-N", "-asmflags=-I=x", "-buildmode=pie", "-installsuffix=race", "-pgo=off", "-compiler=gc"},
		},
		{
			name: "bool flags with values",
			args: "build -race=false -msan=true -asan=0 -trimpath=1 -linkshared=garbage .",
			want: []string{"-msan", "-trimpath"},
		},
		{
			name: "build keys are not mirrored",
			args: "build -toolexec=atomicx -gcflags=all=-N -gcflags=example.com/m/a=-atomicx=0123 .",
			want: []string{"-gcflags=all=-N"},
		},
		{
			name: "double dash flags",
			args: "test --race --tags=y --gcflags -l ./...",
			want: []string{"-race", "-tags=y", "-gcflags=-l"},
		},
		{
			name: "values that look like mirrored flags are skipped",
			args: "test -run -race -ldflags -trimpath -o -msan -toolexec atomicx -exec -asan -count 2 ./...",
			want: nil,
		},
		{
			name: "-- stops",
			args: "run -race -- -trimpath -tags z",
			want: []string{"-race"},
		},
		{
			name: "-args stops",
			args: "test -tags t -args -race",
			want: []string{"-tags=t"},
		},
		{
			name: "go test flags after the packages",
			args: "test ./a ./b -race -v -tags=integration",
			want: []string{"-race", "-tags=integration"},
		},
		{
			name: "GOFLAGS form",
			args: "-mod=mod -tags=netgo -race -trimpath",
			want: []string{"-tags=netgo", "-race", "-trimpath"},
		},
		{
			name: "-C and -modfile values are not packages or flags",
			args: "-C /src/m build -modfile alt.mod -overlay o.json -tags x .",
			want: []string{"-tags=x"},
		},
		{
			name: "go test --args stops, like -args",
			args: "test ./pkg --args -race",
			want: nil,
		},
		{
			name: "go run: arguments after the package belong to the program",
			args: "run . -race -tags x",
			want: nil,
		},
		{
			name: "go run with files: arguments after the files belong to the program",
			args: "run -tags x main.go util.go -race",
			want: []string{"-tags=x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.bug != "" {
				t.Skip(tt.bug)
			}
			got := BuildFlags(strings.Fields(tt.args))
			if !slices.Equal(got, tt.want) {
				t.Errorf("BuildFlags(%q):\n got %q\nwant %q", tt.args, got, tt.want)
			}
		})
	}
}
