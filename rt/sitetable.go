package rt

import (
	"strconv"
	"strings"
)

// SiteTable returns the site table of an instrumented package: n sites,
// read from table, one line each, in the order of their indexes. The
// instrumenter writes the table as one string constant rather than n
// composite literals, which cost the compiler far more; a line's fields
// are separated by tabs:
//
//	flags ID Func Pos Roots Budget NoSnapshot Ends Scratch In Frame
//
// flags is "-" or letters: c (a call site, else the entry of a function),
// e (FaultError), p (FaultPanic), i (Ignored), l (Literal), f (Leaf),
// g (gated: the site's Gate is the next of gates), w (DoneSkip). Ends
// is a comma-separated list of lines. A table that does not read is a bug
// of the instrumenter: SiteTable panics, when the package is initialized.
func SiteTable(n int, table string, gates ...*bool) []Site {
	sites := make([]Site, n)
	for i := range sites {
		line, rest, ok := strings.Cut(table, "\n")
		if !ok {
			panic("atomicx: site table: " + strconv.Itoa(n) + " sites, " + strconv.Itoa(i) + " lines")
		}
		table = rest
		gated, err := sites[i].read(line)
		if err == "" && gated {
			if len(gates) == 0 {
				err = "more gated sites than gates"
			} else {
				sites[i].Gate, gates = gates[0], gates[1:]
			}
		}
		if err != "" {
			panic("atomicx: site table, line " + strconv.Itoa(i+1) + ": " + err + ": " + strconv.Quote(line))
		}
		sites[i].resolveTracing()
	}
	if table != "" {
		panic("atomicx: site table: more than " + strconv.Itoa(n) + " lines")
	}
	if len(gates) != 0 {
		panic("atomicx: site table: " + strconv.Itoa(len(gates)) + " gates more than gated sites")
	}
	registerTable(sites)
	return sites
}

// read sets the fields of s from a line of a site table (see SiteTable),
// and returns whether the site is gated, and what is wrong with the line,
// or "".
func (s *Site) read(line string) (gated bool, problem string) {
	// Cut into an array, not Split: no allocation per line, at every
	// start of an instrumented program.
	var f [11]string
	n := 0
	for rest, more := line, true; more; n++ {
		if n == len(f) {
			return false, "more than 11 fields"
		}
		f[n], rest, more = strings.Cut(rest, "\t")
	}
	if n != len(f) {
		return false, strconv.Itoa(n) + " fields, want 11"
	}
	s.Kind = EntrySite
	if flags := f[0]; flags != "-" {
		for _, c := range flags {
			switch c {
			case 'c':
				s.Kind = CallSite
			case 'e':
				s.Faults |= FaultError
			case 'p':
				s.Faults |= FaultPanic
			case 'i':
				s.Ignored = true
			case 'l':
				s.Literal = true
			case 'f':
				s.Leaf = true
			case 'g':
				gated = true
			case 'w':
				s.Done |= DoneSkip
			default:
				return false, "flag " + strconv.QuoteRune(c)
			}
		}
	}
	s.ID, s.Func, s.Pos, s.Roots = f[1], f[2], f[3], f[4]
	budget, err := strconv.Atoi(f[5])
	if err != nil {
		return false, "budget " + strconv.Quote(f[5])
	}
	s.Budget = budget
	s.NoSnapshot = f[6]
	if f[7] != "" {
		for _, l := range strings.Split(f[7], ",") {
			n, err := strconv.ParseInt(l, 10, 32)
			if err != nil {
				return false, "end " + strconv.Quote(l)
			}
			s.Ends = append(s.Ends, int32(n))
		}
	}
	s.Scratch, s.In, s.Frame = f[8], f[9], f[10]
	return gated, ""
}
