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
	walker := &Site{Done: DoneSkip}
	declared := &Site{DoneValues: []error{errStop, uncomparable{}, nil}}
	plain := &Site{}
	tests := []struct {
		name string
		site *Site
		err  error
		want bool
	}{
		{"nil", plain, nil, false},
		{"nil from a walk function", walker, nil, false},
		{"an error", plain, errStop, true},
		// io: functions return EOF only for a graceful end of input.
		{"io.EOF", plain, io.EOF, false},
		{"io.EOF from a walk function", walker, io.EOF, false},
		{"io.EOF, with declared values", declared, io.EOF, false},
		// io's contract: Read returns EOF itself, callers test it with ==.
		{"io.EOF wrapped", plain, fmt.Errorf("at 3: %w", io.EOF), true},
		{"io.ErrUnexpectedEOF", plain, io.ErrUnexpectedEOF, true},
		{"fs.SkipDir from a walk function", walker, fs.SkipDir, false},
		{"filepath.SkipAll from a walk function", walker, filepath.SkipAll, false},
		{"fs.SkipDir wrapped, from a walk function", walker, fmt.Errorf("x: %w", fs.SkipDir), true},
		{"fs.SkipDir from another function", plain, fs.SkipDir, true},
		{"a declared value", declared, errStop, false},
		// Declared values are matched as Go code tests its sentinels.
		{"a declared value wrapped", declared, fmt.Errorf("at 3: %w", errStop), false},
		{"an undeclared value", declared, io.ErrUnexpectedEOF, true},
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
