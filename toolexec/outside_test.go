package toolexec

import (
	"go/token"
	"slices"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/instrument"
	"github.com/atomicx/atomicx/policy"
)

func TestOutsideWriteErrors(t *testing.T) {
	writes := []instrument.OutsideWrite{
		{Name: "(*Log).writeBatch", Pos: token.Position{Filename: "/m/wal.go", Line: 30, Column: 16}, Call: "(*os.File).Write", CallPos: token.Position{Filename: "/m/wal.go", Line: 34, Column: 21}},
		{Name: "(*Log).Write", Pos: token.Position{Filename: "/m/wal.go", Line: 50, Column: 16}, Call: "(*os.File).Write", CallPos: token.Position{Filename: "/m/wal.go", Line: 34, Column: 21}, Via: []string{"(*Log).writeBatch"}},
	}
	const rule = "[[rule]]\npackages = [\"example.com/m\"]\nmode = \"mask\"\n"
	tests := []struct {
		name, policy string
		want         []string
	}{
		{"none listed", rule, []string{
			"/m/wal.go:30:16: (*Log).writeBatch is selected for masking, but it writes outside memory: (*os.File).Write at wal.go:34:21; " +
				"a rollback of memory cannot undo that, and would leave memory and the file out of step\n" +
				"\trepair it so that it writes last or undoes its writes on failure, or exclude it from the rule; " +
				`to mask its memory anyway, write outside_writes = ["(*Log).writeBatch"] in the rule at atomicheck.toml:1:1; ` +
				`to undo its writes to files with its memory, write undo_files = ["(*Log).writeBatch"] in the rule at atomicheck.toml:1:1`,
			"/m/wal.go:50:16: (*Log).Write is selected for masking, but it writes outside memory: (*os.File).Write at wal.go:34:21 through (*Log).writeBatch; " +
				"a rollback of memory cannot undo that, and would leave memory and the file out of step\n" +
				"\trepair it so that it writes last or undoes its writes on failure, or exclude it from the rule; " +
				`to mask its memory anyway, write outside_writes = ["(*Log).Write"] in the rule at atomicheck.toml:1:1; ` +
				`to undo its writes to files with its memory, write undo_files = ["(*Log).Write"] in the rule at atomicheck.toml:1:1`,
		}},
		{"one listed", rule + `outside_writes = ["(*Log).Write"]`, []string{
			"/m/wal.go:30:16: (*Log).writeBatch is selected for masking, but it writes outside memory: (*os.File).Write at wal.go:34:21; " +
				"a rollback of memory cannot undo that, and would leave memory and the file out of step\n" +
				"\trepair it so that it writes last or undoes its writes on failure, or exclude it from the rule; " +
				`to mask its memory anyway, write outside_writes = ["(*Log).writeBatch"] in the rule at atomicheck.toml:1:1; ` +
				`to undo its writes to files with its memory, write undo_files = ["(*Log).writeBatch"] in the rule at atomicheck.toml:1:1`,
		}},
		{"both listed", rule + `outside_writes = ["(*Log).*"]`, nil},
		{"undone, but not there", rule + `undo_files = ["(*Log).writeBatch"]`, []string{
			"/m/wal.go:30:16: (*Log).writeBatch is selected for masking with its writes to files undone, but it writes outside memory where undo_files does not reach: os.Rename at wal.go:40:9; " +
				"a write is undone only through an *os.File's Write, WriteString, WriteAt, ReadFrom or Truncate called in a statement of its own (not a return, a defer or a larger expression) on a variable or field\n" +
				"\trepair it so that it writes last or undoes that write on failure, or exclude it from the rule; " +
				`to mask its memory anyway, write outside_writes = ["(*Log).writeBatch"] in the rule at atomicheck.toml:1:1`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol, err := policy.Parse("atomicheck.toml", []byte(tt.policy))
			if err != nil {
				t.Fatal(err)
			}
			ws := writes
			if strings.Contains(tt.policy, "undo_files") {
				ws = []instrument.OutsideWrite{{Name: "(*Log).writeBatch", Pos: token.Position{Filename: "/m/wal.go", Line: 30, Column: 16}, Call: "os.Rename", CallPos: token.Position{Filename: "/m/wal.go", Line: 40, Column: 9}, Undo: true}}
			}
			got := outsideWriteErrors(pol.ForPackage("example.com/m", false), ws)
			if !slices.Equal(got, tt.want) {
				t.Errorf("errors:\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
