package toolexec

import (
	"reflect"
	"strings"
	"testing"
)

const toolDir = "/usr/local/go/pkg/tool/linux_amd64"

func TestParseCommand(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		want   Command
		wantOK bool
	}{
		{
			name:   "compile",
			args:   []string{toolDir + "/compile", "-o", "x.a", "a.go"},
			want:   Command{ToolPath: toolDir + "/compile", Tool: "compile", Args: []string{"-o", "x.a", "a.go"}},
			wantOK: true,
		},
		{
			name:   "windows-style .exe suffix",
			args:   []string{toolDir + "/link.exe", "-V=full"},
			want:   Command{ToolPath: toolDir + "/link.exe", Tool: "link", Args: []string{"-V=full"}},
			wantOK: true,
		},
		{
			name:   "tool without arguments",
			args:   []string{toolDir + "/asm"},
			want:   Command{ToolPath: toolDir + "/asm", Tool: "asm", Args: []string{}},
			wantOK: true,
		},
		{
			name:   "the C compiler's identity, by the name $CC gives",
			args:   []string{"gcc", "-###", "-x", "c", "-c", "-"},
			want:   Command{ToolPath: "gcc", Tool: "gcc", Args: []string{"-###", "-x", "c", "-c", "-"}},
			wantOK: true,
		},
		{
			name:   "custom vet tool anywhere",
			args:   []string{"/home/u/bin/myvet", "-V=full"},
			want:   Command{ToolPath: "/home/u/bin/myvet", Tool: "myvet", Args: []string{"-V=full"}},
			wantOK: true,
		},
		{name: "subcommand", args: []string{"detect", "./..."}},
		{name: "relative tool path", args: []string{"pkg/tool/linux_amd64/compile", "-V=full"}},
		{name: "flag", args: []string{"-h"}},
		{name: "no arguments", args: nil},
		{name: "empty first argument", args: []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseCommand(tt.args)
			if ok != tt.wantOK {
				t.Fatalf("ParseCommand(%q) ok = %v, want %v", tt.args, ok, tt.wantOK)
			}
			if !ok {
				if !reflect.DeepEqual(got, Command{}) {
					t.Errorf("ParseCommand(%q) = %#v with ok false, want the zero Command", tt.args, got)
				}
				return
			}
			if got.ToolPath != tt.want.ToolPath || got.Tool != tt.want.Tool || !equalStrings(got.Args, tt.want.Args) {
				t.Errorf("ParseCommand(%q) = %#v, want %#v", tt.args, got, tt.want)
			}
		})
	}
}

func TestCommandGOROOT(t *testing.T) {
	c, _ := ParseCommand([]string{toolDir + "/compile"})
	if got := c.GOROOT(); got != "/usr/local/go" {
		t.Errorf("GOROOT() = %q, want /usr/local/go", got)
	}
}

func TestIsVersionQuery(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"-V=full"}, true},
		{[]string{"--V=full"}, true},
		{[]string{"-S", "-V=full"}, true},
		{[]string{"-V"}, false},
		{[]string{"-V=goexperiment"}, false},
		{[]string{"-o", "x.a", "-p", "main", "./main.go"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		c := Command{ToolPath: toolDir + "/compile", Tool: "compile", Args: tt.args}
		if got := c.IsVersionQuery(); got != tt.want {
			t.Errorf("IsVersionQuery(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// Compile command lines printed by go build -x -a (go1.26, linux/amd64)
// for a small module: std packages, a package with assembly, a cgo
// package, a package with //go:embed, and the main package.
const (
	compileErrors   = `/usr/local/go/pkg/tool/linux_amd64/compile -o $WORK/b002/_pkg_.a -trimpath "$WORK/b002=>" -p errors -lang=go1.26 -std -complete -buildid 9Plks4lG0XM20RZetzfb/9Plks4lG0XM20RZetzfb -goversion go1.26.8 -c=2 -nolocalimports -importcfg $WORK/b002/importcfg -pack /usr/local/go/src/errors/errors.go /usr/local/go/src/errors/join.go /usr/local/go/src/errors/wrap.go`
	compileInternal = `/usr/local/go/pkg/tool/linux_amd64/compile -o $WORK/b004/_pkg_.a -trimpath "$WORK/b004=>" -p internal/abi -lang=go1.26 -std -buildid iuusBeK1JNXUdD3JjIr9/iuusBeK1JNXUdD3JjIr9 -goversion go1.26.8 -symabis $WORK/b004/symabis -c=2 -nolocalimports -importcfg $WORK/b004/importcfg -pack -asmhdr $WORK/b004/go_asm.h /usr/local/go/src/internal/abi/abi.go /usr/local/go/src/internal/abi/abi_amd64.go`
	compileAsm      = `/usr/local/go/pkg/tool/linux_amd64/compile -o $WORK/b035/_pkg_.a -trimpath "$WORK/b035=>" -p example.com/cmdl/asmp -lang=go1.22 -buildid c0HTHd20vOxOhJSG9_4J/c0HTHd20vOxOhJSG9_4J -goversion go1.26.8 -symabis $WORK/b035/symabis -c=2 -nolocalimports -importcfg $WORK/b035/importcfg -pack -asmhdr $WORK/b035/go_asm.h ./asmp/asmp.go`
	compileCgo      = `/usr/local/go/pkg/tool/linux_amd64/compile -o $WORK/b036/_pkg_.a -trimpath "$WORK/b036=>" -p example.com/cmdl/cg -lang=go1.22 -buildid 09CzxdIZ1A7T2x8-o1yW/09CzxdIZ1A7T2x8-o1yW -goversion go1.26.8 -c=2 -nolocalimports -importcfg $WORK/b036/importcfg -pack $WORK/b036/_cgo_gotypes.go $WORK/b036/cg.cgo1.go $WORK/b036/_cgo_import.go`
	compileEmbed    = `/usr/local/go/pkg/tool/linux_amd64/compile -o $WORK/b047/_pkg_.a -trimpath "$WORK/b047=>" -p example.com/cmdl/emb -lang=go1.22 -complete -buildid TSCOvneIvDqFtopfZ0bt/TSCOvneIvDqFtopfZ0bt -goversion go1.26.8 -c=2 -nolocalimports -importcfg $WORK/b047/importcfg -embedcfg $WORK/b047/embedcfg -pack ./emb/emb.go`
	compileMain     = `/usr/local/go/pkg/tool/linux_amd64/compile -o $WORK/b001/_pkg_.a -trimpath "$WORK/b001=>" -p main -lang=go1.22 -complete -buildid pJH8X39kkvrJRuGc0GJw/pJH8X39kkvrJRuGc0GJw -goversion go1.26.8 -c=2 -nolocalimports -importcfg $WORK/b001/importcfg -pack ./main.go`
	// The same main package built with -race -trimpath -gcflags=all=-N.
	compileMainRace = `/usr/local/go/pkg/tool/linux_amd64/compile -o $WORK/b001/_pkg_.a -trimpath "$WORK/b001=>;/src/cmdl=>example.com/cmdl" -N -p main -lang=go1.22 -race -complete -buildid pJH8X39kkvrJRuGc0GJw/pJH8X39kkvrJRuGc0GJw -goversion go1.26.8 -c=4 -shared -nolocalimports -importcfg=$WORK/b001/importcfg -pack ./main.go ./util.go`
	linkMain        = `/usr/local/go/pkg/tool/linux_amd64/link -o $WORK/b001/exe/a.out -importcfg $WORK/b001/importcfg.link -X=runtime.godebugDefault=asynctimerchan=1,containermaxprocs=0 -buildmode=exe -buildid=JIuALG7O2kxBMx67KT1q/pJH8X39kkvrJRuGc0GJw/q_cIrkd_AsTsMwLDsK0K/JIuALG7O2kxBMx67KT1q -extld=gcc $WORK/b001/_pkg_.a`
)

const work = "/tmp/go-build1270371456"

// splitCommandLine splits a line of go build -x output into arguments:
// fields separated by spaces, double quotes grouping, $WORK expanded.
func splitCommandLine(t *testing.T, line string) []string {
	t.Helper()
	line = strings.ReplaceAll(line, "$WORK", work)
	var args []string
	var cur strings.Builder
	inQuote, inArg := false, false
	for _, r := range line {
		switch {
		case r == '"':
			inQuote, inArg = !inQuote, true
		case r == ' ' && !inQuote:
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if inQuote {
		t.Fatalf("unbalanced quotes in %q", line)
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args
}

func mustParseCommand(t *testing.T, line string) Command {
	t.Helper()
	c, ok := ParseCommand(splitCommandLine(t, line))
	if !ok {
		t.Fatalf("ParseCommand rejected %q", line)
	}
	return c
}

func TestParseCompile(t *testing.T) {
	tests := []struct {
		name      string
		line      string
		output    string
		importcfg string
		pkg       string
		lang      string
		std       bool
		files     []string
	}{
		{
			name:      "std package",
			line:      compileErrors,
			output:    work + "/b002/_pkg_.a",
			importcfg: work + "/b002/importcfg",
			pkg:       "errors",
			lang:      "go1.26",
			std:       true,
			files:     []string{"/usr/local/go/src/errors/errors.go", "/usr/local/go/src/errors/join.go", "/usr/local/go/src/errors/wrap.go"},
		},
		{
			name:      "std package with -symabis and -asmhdr",
			line:      compileInternal,
			output:    work + "/b004/_pkg_.a",
			importcfg: work + "/b004/importcfg",
			pkg:       "internal/abi",
			lang:      "go1.26",
			std:       true,
			files:     []string{"/usr/local/go/src/internal/abi/abi.go", "/usr/local/go/src/internal/abi/abi_amd64.go"},
		},
		{
			name:      "user package with assembly",
			line:      compileAsm,
			output:    work + "/b035/_pkg_.a",
			importcfg: work + "/b035/importcfg",
			pkg:       "example.com/cmdl/asmp",
			lang:      "go1.22",
			files:     []string{"./asmp/asmp.go"},
		},
		{
			name:      "cgo package",
			line:      compileCgo,
			output:    work + "/b036/_pkg_.a",
			importcfg: work + "/b036/importcfg",
			pkg:       "example.com/cmdl/cg",
			lang:      "go1.22",
			files:     []string{work + "/b036/_cgo_gotypes.go", work + "/b036/cg.cgo1.go", work + "/b036/_cgo_import.go"},
		},
		{
			name:      "package with -embedcfg",
			line:      compileEmbed,
			output:    work + "/b047/_pkg_.a",
			importcfg: work + "/b047/importcfg",
			pkg:       "example.com/cmdl/emb",
			lang:      "go1.22",
			files:     []string{"./emb/emb.go"},
		},
		{
			name:      "main package",
			line:      compileMain,
			output:    work + "/b001/_pkg_.a",
			importcfg: work + "/b001/importcfg",
			pkg:       "main",
			lang:      "go1.22",
			files:     []string{"./main.go"},
		},
		{
			name:      "main package, -race, -N, -importcfg=",
			line:      compileMainRace,
			output:    work + "/b001/_pkg_.a",
			importcfg: work + "/b001/importcfg",
			pkg:       "main",
			lang:      "go1.22",
			files:     []string{"./main.go", "./util.go"},
		},
		{
			name:   "values that look like Go files are not files",
			line:   toolDir + "/compile -o out.go -p p -D dir.go -trimpath x.go -embedcfg e.go -asmhdr h.go -symabis s.go -importcfg cfg.go -pack a.go b.go",
			output: "out.go", importcfg: "cfg.go", pkg: "p",
			files: []string{"a.go", "b.go"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc := ParseCompile(mustParseCommand(t, tt.line))
			if cc.Tool != ToolCompile {
				t.Errorf("Tool = %q, want compile", cc.Tool)
			}
			if cc.Output != tt.output {
				t.Errorf("Output = %q, want %q", cc.Output, tt.output)
			}
			if cc.ImportCfg != tt.importcfg {
				t.Errorf("ImportCfg = %q, want %q", cc.ImportCfg, tt.importcfg)
			}
			if cc.Package != tt.pkg {
				t.Errorf("Package = %q, want %q", cc.Package, tt.pkg)
			}
			if cc.Lang != tt.lang {
				t.Errorf("Lang = %q, want %q", cc.Lang, tt.lang)
			}
			if cc.Std != tt.std {
				t.Errorf("Std = %v, want %v", cc.Std, tt.std)
			}
			if got := cc.Files(); !equalStrings(got, tt.files) {
				t.Errorf("Files() = %q, want %q", got, tt.files)
			}
			for i, idx := range cc.GoFiles {
				if cc.Args[idx] != tt.files[i] {
					t.Errorf("GoFiles[%d] = %d points at %q, want %q", i, idx, cc.Args[idx], tt.files[i])
				}
			}
		})
	}
}

func TestCompileWithFiles(t *testing.T) {
	tests := []struct {
		name      string
		line      string
		files     []string
		first     []string
		extra     []string
		importcfg string
		want      string // expected command line, in the same notation
	}{
		{
			name:      "cgo package: files, extra and importcfg",
			line:      compileCgo,
			files:     []string{"/o/_cgo_gotypes.go", "/o/cg.cgo1.go", "/o/_cgo_import.go"},
			extra:     []string{"/o/_atomicx_sites.go"},
			importcfg: "/o/importcfg",
			want:      `/usr/local/go/pkg/tool/linux_amd64/compile -o $WORK/b036/_pkg_.a -trimpath "$WORK/b036=>" -p example.com/cmdl/cg -lang=go1.22 -buildid 09CzxdIZ1A7T2x8-o1yW/09CzxdIZ1A7T2x8-o1yW -goversion go1.26.8 -c=2 -nolocalimports -importcfg /o/importcfg -pack /o/_cgo_gotypes.go /o/cg.cgo1.go /o/_cgo_import.go /o/_atomicx_sites.go`,
		},
		{
			name:      "assembly package keeps -symabis and -asmhdr",
			line:      compileAsm,
			files:     []string{"/o/asmp.go"},
			extra:     []string{"/o/_atomicx_sites.go"},
			importcfg: "/o/importcfg",
			want:      `/usr/local/go/pkg/tool/linux_amd64/compile -o $WORK/b035/_pkg_.a -trimpath "$WORK/b035=>" -p example.com/cmdl/asmp -lang=go1.22 -buildid c0HTHd20vOxOhJSG9_4J/c0HTHd20vOxOhJSG9_4J -goversion go1.26.8 -symabis $WORK/b035/symabis -c=2 -nolocalimports -importcfg /o/importcfg -pack -asmhdr $WORK/b035/go_asm.h /o/asmp.go /o/_atomicx_sites.go`,
		},
		{
			name:      "embed package keeps -embedcfg",
			line:      compileEmbed,
			files:     []string{"./emb/emb.go"}, // unchanged file, generated one added
			extra:     []string{"/o/_atomicx_sites.go"},
			importcfg: "/o/importcfg",
			want:      `/usr/local/go/pkg/tool/linux_amd64/compile -o $WORK/b047/_pkg_.a -trimpath "$WORK/b047=>" -p example.com/cmdl/emb -lang=go1.22 -complete -buildid TSCOvneIvDqFtopfZ0bt/TSCOvneIvDqFtopfZ0bt -goversion go1.26.8 -c=2 -nolocalimports -importcfg /o/importcfg -embedcfg $WORK/b047/embedcfg -pack ./emb/emb.go /o/_atomicx_sites.go`,
		},
		{
			name:      "-importcfg= form, files first and last",
			line:      compileMainRace,
			files:     []string{"/o/main.go", "./util.go"},
			first:     []string{"/o/_atomicx_sites.go"},
			extra:     []string{"/o/_atomicx_init.go", "/o/more.go"},
			importcfg: "/o/importcfg",
			want:      `/usr/local/go/pkg/tool/linux_amd64/compile -o $WORK/b001/_pkg_.a -trimpath "$WORK/b001=>;/src/cmdl=>example.com/cmdl" -N -p main -lang=go1.22 -race -complete -buildid pJH8X39kkvrJRuGc0GJw/pJH8X39kkvrJRuGc0GJw -goversion go1.26.8 -c=4 -shared -nolocalimports -importcfg=/o/importcfg -pack /o/_atomicx_sites.go /o/main.go ./util.go /o/_atomicx_init.go /o/more.go`,
		},
		{
			name:  "no extra, importcfg kept",
			line:  compileMain,
			files: []string{"/o/main.go"},
			want:  `/usr/local/go/pkg/tool/linux_amd64/compile -o $WORK/b001/_pkg_.a -trimpath "$WORK/b001=>" -p main -lang=go1.22 -complete -buildid pJH8X39kkvrJRuGc0GJw/pJH8X39kkvrJRuGc0GJw -goversion go1.26.8 -c=2 -nolocalimports -importcfg $WORK/b001/importcfg -pack /o/main.go`,
		},
		{
			name:      "arguments after the last Go file stay after the extra file",
			line:      toolDir + "/compile -o out.a -p p -importcfg cfg a.go b.go x.s",
			files:     []string{"A.go", "B.go"},
			first:     []string{"sites.go"},
			extra:     []string{"gen.go"},
			importcfg: "new",
			want:      toolDir + "/compile -o out.a -p p -importcfg new sites.go A.go B.go gen.go x.s",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := mustParseCommand(t, tt.line)
			cc := ParseCompile(cmd)
			before := append([]string(nil), cc.Args...)
			got := cc.WithFiles(tt.files, tt.first, tt.extra, tt.importcfg)
			want := splitCommandLine(t, tt.want)[1:]
			if !equalStrings(got, want) {
				t.Errorf("WithFiles:\n got %q\nwant %q", got, want)
			}
			if !equalStrings(cc.Args, before) {
				t.Errorf("WithFiles modified the parsed command's arguments:\n got %q\nwant %q", cc.Args, before)
			}
		})
	}
}

func TestParseLink(t *testing.T) {
	tests := []struct {
		name      string
		line      string
		output    string
		importcfg string
		newCfg    string
		want      string // arguments after WithImportCfg(newCfg)
	}{
		{
			name:      "go build link line",
			line:      linkMain,
			output:    work + "/b001/exe/a.out",
			importcfg: work + "/b001/importcfg.link",
			newCfg:    work + "/b001/importcfg.link.atomicx",
			want:      `-o $WORK/b001/exe/a.out -importcfg $WORK/b001/importcfg.link.atomicx -X=runtime.godebugDefault=asynctimerchan=1,containermaxprocs=0 -buildmode=exe -buildid=JIuALG7O2kxBMx67KT1q/pJH8X39kkvrJRuGc0GJw/q_cIrkd_AsTsMwLDsK0K/JIuALG7O2kxBMx67KT1q -extld=gcc $WORK/b001/_pkg_.a`,
		},
		{
			name:      "= forms",
			line:      toolDir + "/link -o=a.out -importcfg=cfg.link -s -w main.a",
			output:    "a.out",
			importcfg: "cfg.link",
			newCfg:    "new.link",
			want:      "-o=a.out -importcfg=new.link -s -w main.a",
		},
		{
			name:   "no importcfg",
			line:   toolDir + "/link -o a.out main.a",
			output: "a.out",
			newCfg: "new.link",
			want:   "-o a.out main.a",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := ParseLink(mustParseCommand(t, tt.line))
			if l.Tool != ToolLink {
				t.Errorf("Tool = %q, want link", l.Tool)
			}
			if l.Output != tt.output {
				t.Errorf("Output = %q, want %q", l.Output, tt.output)
			}
			if l.ImportCfg != tt.importcfg {
				t.Errorf("ImportCfg = %q, want %q", l.ImportCfg, tt.importcfg)
			}
			before := append([]string(nil), l.Args...)
			got := l.WithImportCfg(tt.newCfg)
			if want := splitCommandLine(t, tt.want); !equalStrings(got, want) {
				t.Errorf("WithImportCfg:\n got %q\nwant %q", got, want)
			}
			if !equalStrings(l.Args, before) {
				t.Errorf("WithImportCfg modified the parsed command's arguments")
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
