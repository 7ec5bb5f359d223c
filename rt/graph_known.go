package rt

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"
)

// Values of a few well-known types are compared and shown as a Go
// programmer reads them, not by their fields: a time.Time as a time, not
// as v.t.wall: 14031235545634554993 → 0; a big.Int as a number; a byte
// slice as text. They are leaves of the comparison (compared by value as
// a whole, the difference reported at the value), not of the snapshot:
// they are still copied and restored like any data.
//
// time is linked into every instrumented program already (the runtime
// uses it), so a time.Time is formatted by its own methods. math/big is
// not, and importing it for the report would add it to every user's
// binary: big.Int, big.Float and big.Rat are read through their fields by
// reflection, and formatted here. A layout other than the one expected
// (a future Go release) leaves the type an ordinary struct.

// knownKind is the kind of a well-known type.
type knownKind uint8

const (
	knownNone     knownKind = iota
	knownTime               // time.Time
	knownDuration           // time.Duration: rendered only, compared as an int64
	knownBigInt             // math/big.Int: {neg bool; abs nat}
	knownBigFloat           // math/big.Float: {prec uint32; mode; acc; form; neg bool; mant nat; exp int32}
	knownBigRat             // math/big.Rat: {a, b Int}
	knownBytes              // a slice of bytes ([]byte, json.RawMessage, ...)
)

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
)

// knownKindOf returns the well-known kind of t, knownNone for most types.
func knownKindOf(t reflect.Type) knownKind {
	switch {
	case t == timeType:
		return knownTime
	case t == durationType:
		return knownDuration
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return knownBytes
	case t.PkgPath() != "math/big":
		return knownNone
	}
	switch t.Name() {
	case "Int":
		if hasFields(t, "neg", reflect.Bool, "abs", reflect.Slice) && t.Field(1).Type.Elem().Kind() == reflect.Uint {
			return knownBigInt
		}
	case "Float":
		if hasFields(t, "form", reflect.Uint8, "neg", reflect.Bool, "mant", reflect.Slice, "exp", reflect.Int32) &&
			fieldOf(t, "mant").Type.Elem().Kind() == reflect.Uint {
			return knownBigFloat
		}
	case "Rat":
		if t.NumField() == 2 && knownKindOf(t.Field(0).Type) == knownBigInt && knownKindOf(t.Field(1).Type) == knownBigInt {
			return knownBigRat
		}
	}
	return knownNone
}

// hasFields reports whether struct type t has the named fields of the
// given kinds: pairs of name and kind.
func hasFields(t reflect.Type, pairs ...any) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		f, ok := t.FieldByName(pairs[i].(string))
		if !ok || f.Type.Kind() != pairs[i+1].(reflect.Kind) {
			return false
		}
	}
	return true
}

func fieldOf(t reflect.Type, name string) reflect.StructField {
	f, _ := t.FieldByName(name)
	return f
}

// known compares two values of a well-known type as a whole and reports
// the value if they differ.
func (c *comparer) known(sp, lp unsafe.Pointer, pl *typePlan) bool {
	c.s.unsaved = false
	if pl.known == knownBytes {
		return c.bytes(sp, lp, pl)
	}
	before, after := c.s.renderKnown(sp, pl, true), c.s.renderKnown(lp, pl, false)
	if c.s.unsaved {
		return false // as for any slice the snapshot did not reach
	}
	if pl.known == knownTime {
		if c.s.timeEqual(sp, lp) {
			return false
		}
		if before == after {
			// The same instant, shown the same, but another monotonic
			// reading or location: Time.String shows both.
			before, after = (*time.Time)(sp).String(), (*time.Time)(lp).String()
		}
		return !c.again() && c.report(before, after)
	}
	// The big types: equal renderings are equal numbers, and their
	// renderings are exact but for big.Float's (10 digits, as its String):
	// compare its bits too.
	if before == after && (pl.known != knownBigFloat || c.s.bigFloatEqual(sp, lp, pl)) {
		return false
	}
	return !c.again() && c.report(before, after)
}

// timeEqual compares two time.Times by their fields: the same wall clock
// and monotonic reading, and the same location (one pointer, or two
// locations of the same name).
func (s *snapshot) timeEqual(a, b unsafe.Pointer) bool {
	x, y := (*timeFields)(a), (*timeFields)(b)
	if x.wall != y.wall || x.ext != y.ext {
		return false
	}
	return x.loc == y.loc || x.loc != nil && y.loc != nil && (*time.Time)(a).Location().String() == (*time.Time)(b).Location().String()
}

// timeFields is time.Time's layout, checked by TestTimeLayout.
type timeFields struct {
	wall uint64
	ext  int64
	loc  unsafe.Pointer
}

// bytes compares two byte slices by their contents. A difference in a
// long slice of the same length is shown as the window where it starts:
// b.buf[4096:4112].
func (c *comparer) bytes(sp, lp unsafe.Pointer, pl *typePlan) bool {
	sb, snil := c.s.byteContents(sp, pl, true)
	lb, lnil := c.s.byteContents(lp, pl, false)
	if c.s.unsaved || snil == lnil && string(sb) == string(lb) {
		return false
	}
	if len(sb) == 0 && len(lb) == 0 {
		// Only the nil-ness differs.
		outer := c.enter(normalization)
		defer func() { c.class = outer }()
	}
	const window = 16
	if len(sb) == len(lb) && len(sb) > 3*window && !snil && !lnil {
		i := 0
		for sb[i] == lb[i] {
			i++
		}
		if c.again() {
			return false
		}
		j := min(i+window, len(sb))
		b := c.here().render(c.s) + "[" + strconv.Itoa(i) + ":" + strconv.Itoa(j) + "]"
		c.diffs[c.class] = difference{Path: b, Before: shorten(renderBytes(sb[i:j], false, "")), After: shorten(renderBytes(lb[i:j], false, "")), Changes: c.class}
		return c.class == callerVisible
	}
	name := bytesName(pl.typ)
	return !c.again() && c.report(renderBytes(sb, snil, name), renderBytes(lb, lnil, name))
}

// byteContents returns the bytes of the slice at p, through the snapshot
// when atEntry; nil is true for a nil slice.
func (s *snapshot) byteContents(p unsafe.Pointer, pl *typePlan, atEntry bool) (b []byte, nilSlice bool) {
	data, n, isNil := s.sliceData(p, pl, atEntry)
	if isNil || n == 0 {
		return nil, isNil
	}
	return unsafe.Slice((*byte)(data), n), false
}

// sliceData returns the elements of the slice of type pl at p, through
// the snapshot when atEntry (nil data if it did not save them).
func (s *snapshot) sliceData(p unsafe.Pointer, pl *typePlan, atEntry bool) (data unsafe.Pointer, n int, isNil bool) {
	v := reflect.NewAt(pl.typ, p).Elem()
	if v.IsNil() {
		return nil, 0, true
	}
	n, data = v.Len(), v.UnsafePointer()
	if atEntry && n > 0 {
		saved, ok := s.arrays[arrayKey{data, s.elemPlan(pl), n}]
		if !ok {
			s.unsaved = true // cannot happen for a graph walked from the same roots
			return nil, 0, false
		}
		data = saved
	}
	return data, n, false
}

// renderBytes renders a byte slice: text as []byte("abc"), other bytes
// as []byte{0x1, 0xff}, both cut short with … and the length.
func renderBytes(b []byte, isNil bool, name string) string {
	if isNil {
		return "nil"
	}
	if name == "" {
		name = "[]byte"
	}
	if isText(b) {
		return name + "(" + quoteShort(string(b)) + ")"
	}
	// Eight bytes and the length fit in what shorten keeps, so that the
	// length is never cut.
	const maxShown = 8
	var sb strings.Builder
	sb.WriteString(name + "{")
	for i, c := range b[:min(len(b), maxShown)] {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("0x" + strconv.FormatUint(uint64(c), 16))
	}
	if len(b) > maxShown {
		sb.WriteString(", …} (len=" + strconv.Itoa(len(b)) + ")")
		return sb.String()
	}
	sb.WriteString("}")
	return sb.String()
}

// bytesName is the name of a byte slice type as Go source writes it:
// []byte, or the type's own name (json.RawMessage).
func bytesName(t reflect.Type) string {
	if t.Name() == "" {
		return "[]byte"
	}
	return t.String()
}

// isText reports whether b is UTF-8 text of printable characters and
// ordinary white space.
func isText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if !strconv.IsPrint(r) && r != '\n' && r != '\t' && r != '\r' {
			return false
		}
	}
	return true
}

// renderKnown renders a value of a well-known type.
func (s *snapshot) renderKnown(p unsafe.Pointer, pl *typePlan, atEntry bool) string {
	switch pl.known {
	case knownTime:
		return (*time.Time)(p).Format(time.RFC3339Nano)
	case knownDuration:
		return time.Duration(*(*int64)(p)).String()
	case knownBytes:
		b, isNil := s.byteContents(p, pl, atEntry)
		return renderBytes(b, isNil, bytesName(pl.typ))
	case knownBigInt:
		return s.bigInt(p, pl, atEntry)
	case knownBigRat:
		a, b := pl.fields[0], pl.fields[1]
		den := s.bigInt(unsafe.Add(p, b.offset), b.plan, atEntry)
		if den == "0" {
			den = "1" // a zero Rat's denominator stands for 1
		}
		return s.bigInt(unsafe.Add(p, a.offset), a.plan, atEntry) + "/" + den
	case knownBigFloat:
		return s.bigFloat(p, pl, atEntry)
	}
	return "?"
}

// words returns the words of a big.nat field of the struct at p.
func (s *snapshot) words(p unsafe.Pointer, pl *typePlan, field string, atEntry bool) []uint {
	f, _ := pl.typ.FieldByName(field)
	data, n, _ := s.sliceData(unsafe.Add(p, f.Offset), s.plan(f.Type), atEntry)
	if data == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*uint)(data), n)
}

// bigInt renders a big.Int in decimal, as its String method would.
func (s *snapshot) bigInt(p unsafe.Pointer, pl *typePlan, atEntry bool) string {
	neg := *(*bool)(unsafe.Add(p, fieldOf(pl.typ, "neg").Offset))
	digits := decimal(s.words(p, pl, "abs", atEntry))
	if neg && digits != "0" {
		return "-" + digits
	}
	return digits
}

// decimal writes a natural number given by its words, least significant
// first, in decimal: repeated division by 10^9 of a copy.
func decimal(words []uint) string {
	x := append([]uint(nil), words...)
	for len(x) > 0 && x[len(x)-1] == 0 {
		x = x[:len(x)-1]
	}
	if len(x) == 0 {
		return "0"
	}
	const chunk = 1e9
	var parts []string
	for len(x) > 0 {
		var rem uint64
		for i := len(x) - 1; i >= 0; i-- {
			// Divide the word in two halves so that rem<<32|half fits.
			w := uint64(x[i])
			if strconv.IntSize == 32 {
				cur := rem<<32 | w
				x[i], rem = uint(cur/chunk), cur%chunk
				continue
			}
			hi := rem<<32 | w>>32
			qhi, r := hi/chunk, hi%chunk
			lo := r<<32 | w&(1<<32-1)
			x[i], rem = uint(qhi<<32|lo/chunk), lo%chunk
		}
		parts = append(parts, strconv.FormatUint(rem, 10))
		for len(x) > 0 && x[len(x)-1] == 0 {
			x = x[:len(x)-1]
		}
	}
	var b strings.Builder
	b.WriteString(parts[len(parts)-1])
	for i := len(parts) - 2; i >= 0; i-- {
		b.WriteString(strings.Repeat("0", 9-len(parts[i])) + parts[i])
	}
	return b.String()
}

// bigFloat renders a big.Float with 10 significant digits, as its String
// method does: 0, ±Inf, or its value (0.mant × 2**exp) as a float64
// would show it, which covers every exponent a float64 can hold.
func (s *snapshot) bigFloat(p unsafe.Pointer, pl *typePlan, atEntry bool) string {
	form := *(*uint8)(unsafe.Add(p, fieldOf(pl.typ, "form").Offset))
	neg := *(*bool)(unsafe.Add(p, fieldOf(pl.typ, "neg").Offset))
	sign := ""
	if neg {
		sign = "-"
	}
	switch form {
	case 0: // zero
		return sign + "0"
	case 2: // inf
		if neg {
			return "-Inf"
		}
		return "+Inf"
	}
	mant := s.words(p, pl, "mant", atEntry)
	if len(mant) == 0 {
		return "?"
	}
	exp := *(*int32)(unsafe.Add(p, fieldOf(pl.typ, "exp").Offset))
	top := float64(mant[len(mant)-1]) // normalized: its top bit is set
	x := math.Ldexp(top, int(exp)-strconv.IntSize)
	if math.IsInf(x, 0) || x == 0 {
		return sign + "big.Float(exp=" + strconv.Itoa(int(exp)) + ")"
	}
	return sign + strconv.FormatFloat(x, 'g', 10, 64)
}

// bigFloatEqual compares two big.Floats by sign, form, exponent and
// mantissa.
func (s *snapshot) bigFloatEqual(sp, lp unsafe.Pointer, pl *typePlan) bool {
	for _, f := range []string{"form", "neg", "exp"} {
		sf := fieldOf(pl.typ, f)
		if !memEqual(unsafe.Add(sp, sf.Offset), unsafe.Add(lp, sf.Offset), sf.Type.Size()) {
			return false
		}
	}
	a, b := s.words(sp, pl, "mant", true), s.words(lp, pl, "mant", false)
	return slicesEqual(a, b)
}

func slicesEqual(a, b []uint) bool {
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
