package m

import (
	"errors"
	gs "go/scanner"
	"go/token"
	img "image"
	ts "text/scanner"
)

var errBad = errors.New("bad")

// image is declared by the package: the generated file names package
// image otherwise. go/scanner and text/scanner share a name: one of them
// is renamed there too.
var image = img.Pt(0, 0)

type Log struct {
	at   []*img.Point
	errs []*gs.Error
	pos  map[string]*ts.Position
	last token.Position
}

func (l *Log) Add(p img.Point, e gs.Error, q ts.Position) error {
	l.at = append(l.at, &p)
	l.errs = append(l.errs, &e)
	l.pos[e.Msg] = &q
	l.last = e.Pos
	if p.X < 0 || image.Y < 0 {
		return errBad
	}
	return nil
}
