package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// The engine's records, options and headers carry a question's own data
// as a JSON object that only the question reads (Record.QuestionData,
// Options.QuestionData, Header.QuestionData). On a journal's line and in
// a plan its keys sit beside the engine's own, as they did when these
// types had a field for every question's data: journals and plans
// written then read the same now.

// jsonKeys are the JSON keys of the fields of the struct T.
func jsonKeys[T any]() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[T]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		switch name {
		case "-":
			continue // the question's data, written apart
		case "":
			name = t.Field(i).Name
		}
		keys[name] = true
	}
	return keys
}

// marshalWithQuestion writes own, a struct whose JSON keys are keys,
// with the keys of data, a JSON object, after its own. The question's
// keys are written in sorted order, as a map is, so that data reads
// back as the same bytes (a plan's ID hashes them).
func marshalWithQuestion(own any, data json.RawMessage, keys map[string]bool) ([]byte, error) {
	b, err := json.Marshal(own)
	if err != nil || len(data) == 0 {
		return b, err
	}
	var extra map[string]json.RawMessage
	if err := json.Unmarshal(data, &extra); err != nil {
		return nil, fmt.Errorf("a question's data must be a JSON object: %w", err)
	}
	if len(extra) == 0 {
		return b, nil
	}
	for k := range extra {
		if keys[k] {
			return nil, fmt.Errorf("a question's data names %q, a key of the engine's own", k)
		}
	}
	more, err := json.Marshal(extra)
	if err != nil {
		return nil, err
	}
	out := b[:len(b)-1]
	if len(out) > 1 {
		out = append(out, ',')
	}
	return append(out, more[1:]...), nil
}

// unmarshalWithQuestion reads into own, a struct whose JSON keys are
// keys, an object that marshalWithQuestion wrote, and returns the keys
// that are not own's as the question's data: nil when there are none.
func unmarshalWithQuestion(b []byte, own any, keys map[string]bool) (json.RawMessage, error) {
	if err := json.Unmarshal(b, own); err != nil {
		return nil, err
	}
	// b is valid JSON now: its keys are found by a scan, not by decoding
	// it all again (a journal line is mostly its events).
	var extra map[string]json.RawMessage
	var err error
	members(b, func(key, value []byte) {
		name := string(key[1 : len(key)-1])
		if bytes.IndexByte(key, '\\') >= 0 {
			if e := json.Unmarshal(key, &name); e != nil {
				err = e
			}
		}
		if keys[name] {
			return
		}
		if extra == nil {
			extra = map[string]json.RawMessage{}
		}
		extra[name] = value
	})
	if err != nil || extra == nil {
		return nil, err
	}
	return json.Marshal(extra)
}

// members calls f with each key (quoted) and value of the JSON object
// b, which must be valid JSON.
func members(b []byte, f func(key, value []byte)) {
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return
	}
	for i++; ; {
		i = skipSpace(b, i)
		if i == len(b) || b[i] == '}' {
			return
		}
		if b[i] == ',' {
			i++
			continue
		}
		start := i
		i = skipString(b, i)
		key := b[start:i]
		i = skipSpace(b, skipSpace(b, i)+1) // the colon
		start = i
		i = skipValue(b, i)
		f(key, b[start:i])
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index after the value that starts at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}
