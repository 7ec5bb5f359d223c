package rt

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"testing"
)

var errStop = errors.New("stop")

// uncomparable is an error whose == panics between two values of it.
type uncomparable struct{ parts []string }

func (u uncomparable) Error() string { return fmt.Sprint(u.parts) }

func TestSiteFails(t *testing.T) {
	reader := &Site{Done: DoneEOF}
	walker := &Site{Done: DoneSkip}
	declared := &Site{DoneValues: []error{errStop, uncomparable{}, nil}}
	plain := &Site{}
	tests := []struct {
		name string
		site *Site
		err  error
		want bool
	}{
		{"nil", reader, nil, false},
		{"nil, no done errors", plain, nil, false},
		{"an error, no done errors", plain, errStop, true},
		{"io.EOF, no done errors", plain, io.EOF, true},
		{"io.EOF from a reader", reader, io.EOF, false},
		// io's contract: Read returns EOF itself, callers test it with ==.
		{"io.EOF wrapped, from a reader", reader, fmt.Errorf("at 3: %w", io.EOF), true},
		{"io.ErrUnexpectedEOF from a reader", reader, io.ErrUnexpectedEOF, true},
		{"another error from a reader", reader, errStop, true},
		{"fs.SkipDir from a walk function", walker, fs.SkipDir, false},
		{"filepath.SkipAll from a walk function", walker, filepath.SkipAll, false},
		{"fs.SkipDir wrapped, from a walk function", walker, fmt.Errorf("x: %w", fs.SkipDir), true},
		{"io.EOF from a walk function", walker, io.EOF, true},
		{"fs.SkipDir from a reader", reader, fs.SkipDir, true},
		{"a declared value", declared, errStop, false},
		// Declared values are matched as Go code tests its sentinels.
		{"a declared value wrapped", declared, fmt.Errorf("at 3: %w", errStop), false},
		{"an undeclared value", declared, io.EOF, true},
		{"an uncomparable error, against an uncomparable declared value", declared, uncomparable{[]string{"a"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.site.Fails(tt.err); got != tt.want {
				t.Errorf("Fails(%v) = %v, want %v", tt.err, got, tt.want)
			}
			err := tt.err
			if got := tt.site.failed(&err); got != tt.want {
				t.Errorf("failed(&%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
	if plain.failed(nil) {
		t.Errorf("failed(nil): a function without an error result failed")
	}
}
