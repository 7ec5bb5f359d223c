package rt

import "reflect"

// HandlerAs is the fault of an armed errors.As arm: an injected error
// wrapping target, a zero value of the arm's type made by the generated
// code, whose nil error fields are first set (see HandlerValue).
func HandlerAs(h *Handler, target error) error {
	return HandlerWrap(h, filled(h, target))
}

// HandlerValue is the fault of an armed type-switch case: target, a zero
// value of the case's type made by the generated code, with its nil error
// fields set.
func HandlerValue(h *Handler, target error) error {
	return filled(h, target)
}

// filled sets the exported fields of type error that are nil in a zero
// value of an error type (a pointer to a struct, or a struct) to an
// injected error, so that its Error method works as on a value a callee
// returns: most such types write it as e.Op + ": " + e.Err.Error(), which
// panics on a zero value (fs.PathError, os.SyscallError, strconv.NumError,
// exec.Error). A struct is copied, a pointer's struct set in place: both
// are the generated code's own, never a sentinel the program shares.
func filled(h *Handler, target error) error {
	v := reflect.ValueOf(target)
	var s reflect.Value
	switch {
	case v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct:
		s = v.Elem()
	case v.Kind() == reflect.Struct:
		p := reflect.New(v.Type())
		p.Elem().Set(v)
		s = p.Elem()
	default:
		return target
	}
	set := false
	for i := range s.NumField() {
		f := s.Field(i)
		if s.Type().Field(i).IsExported() && f.Type() == errorType && f.IsNil() && f.CanSet() {
			f.Set(reflect.ValueOf(error(&InjectedFault{Site: h.ID, Pos: h.Pos, Occurrence: h.hits.Load()})))
			set = true
		}
	}
	if !set || v.Kind() == reflect.Pointer {
		return target
	}
	return s.Interface().(error)
}
