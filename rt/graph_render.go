package rt

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// Renderings are short on purpose: they go into one line of the event log
// per verdict. fmt is not used, to keep the runtime's imports few.

// maxRendered is the length, in bytes, past which a rendering is cut.
const maxRendered = 80

// stepOp is the kind of one step of a path.
type stepOp uint8

const (
	stepRoot     stepOp = iota // a root, by its display name
	stepField                  // .name
	stepIndex                  // [i]
	stepMapValue               // [key]
	stepMapKey                 // the key itself: keyof(m[key])
	stepDeref                  // *p, or nothing before a field (Go dereferences for us)
	stepAssert                 // .(T)
	stepLoad                   // .Load(): what an atomic.Value or atomic.Pointer holds
)

// pathStep is one step from a root towards a value.
type pathStep struct {
	op    stepOp
	name  string         // stepRoot, stepField
	index int            // stepIndex
	key   unsafe.Pointer // stepMapValue, stepMapKey: a copy of the key, of type plan
	plan  *typePlan      // the key's type, the asserted type, or the pointed-to type
}

// pathNode is a path, as a list from its last step back to the root;
// paths of queued pairs share their beginnings.
type pathNode struct {
	parent *pathNode
	step   pathStep
}

// render prints the path as a Go expression: v.items[3].name, *p,
// (*v.ps)[1], v.m["k"], v.i.(*pkg.T).x. A map key's own content, which Go
// has no expression for, is shown as keyof(v.m[0xc000012345]).x. A path of
// more than maxPathSteps steps (a long list) keeps its first and last
// steps, with … in place of the others.
func (n *pathNode) render(s *snapshot) string {
	var steps []pathStep
	for ; n != nil; n = n.parent {
		steps = append(steps, n.step)
	}
	slices.Reverse(steps)
	if len(steps) <= maxPathSteps {
		b, derefs := s.renderSteps("", steps)
		return strings.Repeat("*", derefs) + b
	}
	// Dereferences pending at the cut fall in the part left out.
	b, _ := s.renderSteps("", steps[:maxPathSteps/4])
	b, derefs := s.renderSteps(b+"…", steps[len(steps)-maxPathSteps*3/4:])
	return strings.Repeat("*", derefs) + b
}

// maxPathSteps is the number of steps past which a path is shortened.
const maxPathSteps = 48

// renderSteps appends steps to the expression b. It returns the
// dereferences still to be written: a final *p is written by the caller.
func (s *snapshot) renderSteps(b string, steps []pathStep) (string, int) {
	// Dereferences not written yet: how many, and the type the last yields.
	derefs, derefElem := 0, (*typePlan)(nil)
	// A root named "&x" is the address of variable x (a variable a
	// function literal captures): its first dereference is x itself.
	varRoot := false
	for _, st := range steps {
		if st.op == stepDeref && varRoot {
			varRoot = false
			continue
		}
		if st.op == stepDeref {
			derefs, derefElem = derefs+1, st.plan
			continue
		}
		if derefs > 0 {
			// Go dereferences one pointer to a struct before a field, and
			// one pointer to an array before an index; write the others.
			if st.op == stepField || st.op == stepIndex && derefElem.kind == reflect.Array {
				derefs--
			}
			if derefs > 0 {
				b = "(" + strings.Repeat("*", derefs) + b + ")"
			}
			derefs = 0
		}
		switch st.op {
		case stepRoot:
			b = st.name
			if name, ok := strings.CutPrefix(b, "&"); ok {
				b, varRoot = name, true
			}
		case stepField:
			b += "." + st.name
		case stepIndex:
			b += "[" + strconv.Itoa(st.index) + "]"
		case stepMapValue:
			b += "[" + s.renderKey(st.key, st.plan) + "]"
		case stepMapKey:
			b = "keyof(" + b + "[" + s.renderKey(st.key, st.plan) + "])"
		case stepAssert:
			b += ".(" + st.plan.typ.String() + ")"
		case stepLoad:
			b += ".Load()"
		}
	}
	return b, derefs
}

// renderValue renders the value of type pl at p for Before or After, as
// Go's %v would for scalars and as a short summary for the rest. atEntry
// says that p is in the snapshot, where pointers resolve through it.
func (s *snapshot) renderValue(p unsafe.Pointer, pl *typePlan, atEntry bool) string {
	if pl.size == 0 {
		if pl.kind == reflect.Array {
			return "[]"
		}
		return "{}"
	}
	if pl.ignored {
		return "{…}"
	}
	if pl.conc != concNone {
		return s.renderConc(p, pl, atEntry)
	}
	if pl.known != knownNone {
		return s.renderKnown(p, pl, atEntry)
	}
	switch pl.kind {
	case reflect.Bool:
		return strconv.FormatBool(*(*bool)(p))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(readInt(p, pl.kind), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(readUint(p, pl.kind), 10)
	case reflect.Float32:
		return strconv.FormatFloat(float64(*(*float32)(p)), 'g', -1, 32)
	case reflect.Float64:
		return strconv.FormatFloat(*(*float64)(p), 'g', -1, 64)
	case reflect.Complex64:
		return strconv.FormatComplex(complex128(*(*complex64)(p)), 'g', -1, 64)
	case reflect.Complex128:
		return strconv.FormatComplex(*(*complex128)(p), 'g', -1, 128)
	case reflect.String:
		return quoteShort(*(*string)(p))
	case reflect.Pointer:
		return s.renderPointer(*(*unsafe.Pointer)(p), pl, atEntry)
	case reflect.Slice:
		v := reflect.NewAt(pl.typ, p).Elem()
		if v.IsNil() {
			return "nil"
		}
		return "len=" + strconv.Itoa(v.Len())
	case reflect.Map:
		v := reflect.NewAt(pl.typ, p).Elem()
		if v.IsNil() {
			return "nil"
		}
		return "map[len=" + strconv.Itoa(v.Len()) + "]"
	case reflect.Interface:
		return s.renderInterface(reflect.NewAt(pl.typ, p).Elem(), atEntry)
	case reflect.Struct:
		return "{…}"
	case reflect.Array:
		return "[…]"
	case reflect.Func:
		if funcCode(p, pl) == 0 {
			return "nil"
		}
		return "func"
	case reflect.Chan, reflect.UnsafePointer:
		return renderAddress(*(*unsafe.Pointer)(p))
	}
	return "?"
}

// renderPointer renders a pointer of type pl: nil, &{…} for a struct,
// &[…] for an array, &value for a scalar, &… otherwise.
func (s *snapshot) renderPointer(p unsafe.Pointer, pl *typePlan, atEntry bool) string {
	if p == nil {
		return "nil"
	}
	elem := s.elemPlan(pl)
	if elem.opaque {
		return renderAddress(p) // compared by identity
	}
	if elem.known != knownNone && elem.size > 0 {
		if atEntry {
			copied, ok := s.objects[objectKey{p, elem}]
			if !ok {
				return "&…"
			}
			p = copied
		}
		return "&" + s.renderKnown(p, elem, atEntry)
	}
	switch elem.kind {
	case reflect.Struct:
		return "&{…}"
	case reflect.Array:
		return "&[…]"
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		if elem.size == 0 {
			break
		}
		if atEntry {
			copied, ok := s.objects[objectKey{p, elem}]
			if !ok {
				break
			}
			p = copied
		}
		return "&" + s.renderValue(p, elem, atEntry)
	}
	return "&…"
}

// renderInterface renders an interface value with its dynamic type, since
// the type is often what changed: int(1), string("x"), &pkg.T{…},
// []int(len=2), (*pkg.T)(nil).
func (s *snapshot) renderInterface(v reflect.Value, atEntry bool) string {
	if v.IsNil() {
		return "nil"
	}
	e := v.Elem()
	t := e.Type()
	name := t.String()
	if s.plan(t).known == knownNone {
		switch t.Kind() {
		case reflect.Struct, reflect.Array:
			return name + "{…}"
		case reflect.Pointer:
			if !e.IsNil() && t.Elem().Kind() == reflect.Struct && s.plan(t.Elem()).known == knownNone {
				return "&" + t.Elem().String() + "{…}"
			}
		}
	}
	c := reflect.New(t)
	c.Elem().Set(e)
	if s.plan(t).known == knownBytes {
		return s.renderValue(c.UnsafePointer(), s.plan(t), atEntry) // names its type already
	}
	if strings.HasPrefix(name, "*") || strings.HasPrefix(name, "func") ||
		strings.HasPrefix(name, "chan") || strings.HasPrefix(name, "<-") {
		name = "(" + name + ")"
	}
	return name + "(" + s.renderValue(c.UnsafePointer(), s.plan(t), atEntry) + ")"
}

// renderKey renders a map key as it appears in a path: by value, pointers
// and channels by address.
func (s *snapshot) renderKey(p unsafe.Pointer, pl *typePlan) string {
	var b strings.Builder
	s.appendKey(&b, p, pl)
	return shorten(b.String())
}

func (s *snapshot) appendKey(b *strings.Builder, p unsafe.Pointer, pl *typePlan) {
	if b.Len() > maxRendered {
		return // enough to be cut anyway
	}
	switch {
	case pl.size == 0:
		b.WriteString("{}")
		return
	case pl.ignored, pl.conc != concNone:
		b.WriteString("{…}")
		return
	}
	switch pl.kind {
	case reflect.Pointer, reflect.Chan, reflect.UnsafePointer:
		b.WriteString(renderAddress(*(*unsafe.Pointer)(p)))
	case reflect.Interface:
		v := reflect.NewAt(pl.typ, p).Elem()
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		c := reflect.New(v.Elem().Type())
		c.Elem().Set(v.Elem())
		s.appendKey(b, c.UnsafePointer(), s.plan(c.Type().Elem()))
	case reflect.Struct:
		b.WriteByte('{')
		for i := range pl.fields {
			if i > 0 {
				b.WriteByte(' ')
			}
			f := &pl.fields[i]
			s.appendKey(b, unsafe.Add(p, f.offset), f.plan)
		}
		b.WriteByte('}')
	case reflect.Array:
		b.WriteByte('[')
		for i := range pl.length {
			if i > 0 {
				b.WriteByte(' ')
			}
			s.appendKey(b, unsafe.Add(p, uintptr(i)*pl.elem.size), pl.elem)
		}
		b.WriteByte(']')
	default:
		b.WriteString(s.renderValue(p, pl, false))
	}
}

// renderAddress renders an identity: nil or 0x… as %v prints pointers.
func renderAddress(p unsafe.Pointer) string {
	if p == nil {
		return "nil"
	}
	return "0x" + strconv.FormatUint(uint64(uintptr(p)), 16)
}

// quoteShort quotes s as Go source would, keeping the result near 64
// bytes: a longer string is cut and marked with … after the quote.
func quoteShort(s string) string {
	const maxQuoted = 64
	if len(s) <= maxQuoted/4 {
		return strconv.Quote(s) // even if every byte needs \x.., it fits
	}
	n := min(len(s), maxQuoted-2)
	for {
		n = runeStart(s, n)
		q := strconv.Quote(s[:n])
		if len(q) <= maxQuoted || n == 0 {
			if n < len(s) {
				q += "…"
			}
			return q
		}
		n /= 2
	}
}

// shorten cuts a rendering longer than maxRendered at a rune boundary and
// marks the cut with ….
func shorten(s string) string {
	if len(s) <= maxRendered {
		return s
	}
	return s[:runeStart(s, maxRendered-len("…"))] + "…"
}

// runeStart moves n back to the start of the UTF-8 sequence it falls in.
func runeStart(s string, n int) int {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return n
}
