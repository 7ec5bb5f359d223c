package policy

import (
	"fmt"
	"strings"
	"unicode"
)

// Function patterns name functions the way runtime.Func.Name prints them,
// without the package path:
//
//	Transfer            a function
//	Vector.Len          a method with a value receiver
//	(*Vector).Alloc     a method with a pointer receiver
//	(*Stack[...]).Push  a method of a generic type
//	Map[...]            a generic function
//
// Type parameter lists are dropped from both the pattern and the name
// before comparing, so (*Stack).Push and (*Stack[...]).Push are the same
// pattern, and Stack.Len matches the name Stack[...].Len. A "*" matches
// any run of characters, except in the "(*" that opens a pointer receiver,
// where it is the pointer star: (*Vector).* is every pointer method of
// Vector, Test* every function whose name begins with Test.

// funcPattern is a compiled entry of a functions, exclude or ignore list.
type funcPattern struct {
	written string
	pieces  []string // literal text between wildcards, as for matchPieces
	pos     Position
}

// wildcard reports whether the pattern has a "*" other than a pointer
// receiver's star.
func (p *funcPattern) wildcard() bool { return len(p.pieces) > 1 }

func (p *funcPattern) matches(normalizedName string) bool {
	return matchPieces(p.pieces, normalizedName)
}

// checkFuncPattern returns what is wrong with a function pattern, or "" if
// it is well formed.
func checkFuncPattern(s string) string {
	const example = "e.g. Transfer, Vector.Len or (*Vector).Alloc"
	if s == "" {
		return `empty function pattern: remove it, or write "*" for every function`
	}
	// Check what is outside brackets only: an instantiation such as
	// [go.shape.struct { a int }] may hold spaces and slashes.
	t, ok := stripTypeParams(s)
	if !ok {
		return fmt.Sprintf("function pattern %q has unbalanced brackets: write type parameters as [...], e.g. (*Stack[...]).Push", s)
	}
	if t == "" {
		return fmt.Sprintf("function pattern %q has type parameters but no name: write the name before them, e.g. Map[...]", s)
	}
	if strings.ContainsFunc(t, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsGraphic(r) }) {
		return fmt.Sprintf("function pattern %q contains white space: write the name as runtime.Func.Name prints it, %s", s, example)
	}
	if strings.Contains(t, "/") {
		return fmt.Sprintf("function pattern %q contains \"/\": write the name without its package path, %s", s, example)
	}
	if strings.Count(t, "(") != strings.Count(t, ")") {
		return fmt.Sprintf("function pattern %q has unbalanced parentheses: write pointer-receiver methods as (*T).Method", s)
	}
	if strings.ContainsAny(t, "()") {
		recv, method, ok := splitPointerReceiver(t)
		switch {
		case !ok && strings.HasPrefix(t, "(") && !strings.HasPrefix(t, "(*") && strings.Count(t, "(") == 1:
			return fmt.Sprintf("function pattern %q puts a value receiver in parentheses: write T.Method; only pointer receivers are written (*T).Method", s)
		case !ok:
			return fmt.Sprintf("function pattern %q has misplaced parentheses: only a pointer receiver is parenthesized, as in (*T).Method", s)
		case method == "" || method == ".":
			return fmt.Sprintf("function pattern %q names no method: write (*T).Method, or (*T).* for every pointer method", s)
		case method[0] != '.':
			return fmt.Sprintf("function pattern %q: a dot and a method name must follow the receiver, as in (*T).Method", s)
		}
		t = recv + method
	}
	for _, part := range strings.Split(t, ".") {
		if part == "" {
			return fmt.Sprintf("function pattern %q has a dot without a name on both sides: write e.g. Transfer, Vector.Len or (*Vector).Alloc", s)
		}
	}
	return ""
}

// splitPointerReceiver splits "(*T)rest" into "T" and "rest". ok is false
// unless t has that form with no other parentheses.
func splitPointerReceiver(t string) (recv, rest string, ok bool) {
	if !strings.HasPrefix(t, "(*") {
		return "", "", false
	}
	recv, rest, found := strings.Cut(t[len("(*"):], ")")
	if !found || recv == "" || strings.ContainsAny(recv, "().") || strings.ContainsAny(rest, "()") {
		return "", "", false
	}
	return recv, rest, true
}

// compileFuncPattern builds the matcher for a well-formed pattern.
func compileFuncPattern(s string, pos Position) funcPattern {
	t, _ := stripTypeParams(s)
	var pieces []string
	var cur strings.Builder
	for i := 0; i < len(t); i++ {
		switch {
		case t[i] == '(' && i+1 < len(t) && t[i+1] == '*':
			cur.WriteString("(*") // the pointer star is literal
			i++
		case t[i] == '*':
			pieces = append(pieces, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(t[i])
		}
	}
	pieces = append(pieces, cur.String())
	return funcPattern{written: s, pieces: pieces, pos: pos}
}

// normalizeFuncName drops type parameter lists from a function name so that
// it compares with patterns written with or without them.
func normalizeFuncName(name string) string {
	if t, ok := stripTypeParams(name); ok {
		return t
	}
	return name
}

// stripTypeParams removes every bracketed group ("[...]", "[T]",
// "[go.shape.int]", nested or not). ok is false if brackets are unbalanced.
func stripTypeParams(s string) (string, bool) {
	if !strings.ContainsAny(s, "[]") {
		return s, true
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth < 0 {
				return s, false
			}
		default:
			if depth == 0 {
				b.WriteByte(s[i])
			}
		}
	}
	return b.String(), depth == 0
}
