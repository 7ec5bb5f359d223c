package rt

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendJSONString(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // the exact JSON text
	}{
		{"empty", "", `""`},
		{"plain", "abc", `"abc"`},
		{"quote", `say "hi"`, `"say \"hi\""`},
		{"backslash", `C:\dir\`, `"C:\\dir\\"`},
		{"newline tab return", "a\nb\tc\rd", `"a\nb\tc\rd"`},
		{"other control characters", "\x00\x01\x1f\x7f", `"\u0000\u0001\u001f\u007f"`},
		{"slash and html are fine as they are", "</a>&", `"</a>&"`},
		{"multibyte kept", "héllo wörld → 日本 😀", `"héllo wörld → 日本 😀"`},
		{"invalid byte", "a\xffb", `"a\ufffdb"`},
		{"truncated sequence", "\xe6\x97", `"\ufffd\ufffd"`},
		{"lone continuation bytes", "\x80\x80x", `"\ufffd\ufffdx"`},
		{"encoded surrogate", "\xed\xa0\x80", `"\ufffd\ufffd\ufffd"`},
		{"overlong encoding", "\xc0\xaf", `"\ufffd\ufffd"`},
		{"literal U+FFFD kept", "\uFFFD", "\"\uFFFD\""},
		{"invalid between multibyte", "é\xffé", "\"é\\ufffdé\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(appendJSONString([]byte("prefix:"), tt.in))
			if !strings.HasPrefix(got, "prefix:") {
				t.Fatalf("appendJSONString dropped what it appends to: %q", got)
			}
			got = strings.TrimPrefix(got, "prefix:")
			if got != tt.want {
				t.Errorf("appendJSONString(%q) = %s, want %s", tt.in, got, tt.want)
			}
			var decoded string
			if err := json.Unmarshal([]byte(got), &decoded); err != nil {
				t.Fatalf("output %s is not a JSON string: %v", got, err)
			}
			if want := validUTF8(tt.in); decoded != want {
				t.Errorf("decoded %q, want %q", decoded, want)
			}
			if utf8.ValidString(tt.in) && decoded != tt.in {
				t.Errorf("valid UTF-8 %q decodes to %q", tt.in, decoded)
			}
		})
	}
}

// validUTF8 replaces each byte of an invalid sequence with U+FFFD, the way
// encoding/json decodes invalid UTF-8.
func validUTF8(s string) string { return string([]rune(s)) }

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "abc", "\"\\\n\t\r\x00\x7f", "é日😀", "\xff\xfe", "\xed\xa0\x80", "a\u2028b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := appendJSONString(nil, s)
		if !json.Valid(out) {
			t.Fatalf("appendJSONString(%q) = %s is not valid JSON", s, out)
		}
		var decoded string
		if err := json.Unmarshal(out, &decoded); err != nil {
			t.Fatalf("appendJSONString(%q) = %s: %v", s, out, err)
		}
		if want := validUTF8(s); decoded != want {
			t.Fatalf("appendJSONString(%q) = %s decodes to %q, want %q", s, out, decoded, want)
		}
		if strings.ContainsAny(string(out[1:len(out)-1]), "\n\r") {
			t.Fatalf("appendJSONString(%q) = %s spans lines: an event must be one line", s, out)
		}
	})
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"", 5, ""},
		{"abc", 3, "abc"},
		{"abc", 5, "abc"},
		{"abcd", 3, "abc…"},
		{"abcd", 0, "…"},
		{"héllo", 2, "h…"},  // 'é' is bytes 1-2: cut before it
		{"héllo", 3, "hé…"}, // cut just after it
		{"日本語", 4, "日…"},
		{"日本語", 5, "日…"},
		{"日本語", 6, "日本…"},
		{"😀😀", 7, "😀…"},
		{"a😀", 1, "a…"},
	}
	for _, tt := range tests {
		got := truncate(tt.in, tt.n)
		if got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("truncate(%q, %d) = %q is not valid UTF-8", tt.in, tt.n, got)
		}
		if body := strings.TrimSuffix(got, "…"); len(body) > tt.n || !strings.HasPrefix(tt.in, body) {
			t.Errorf("truncate(%q, %d) = %q is not a prefix of at most %d bytes", tt.in, tt.n, got, tt.n)
		}
	}
}

func TestEventLine(t *testing.T) {
	line := event("verdict").str("site", "m.F#entry").str("error", "bad \"x\"\n").
		num("chain", 7).boolean("first", true).end()
	if !strings.HasSuffix(string(line), "}\n") || strings.Count(string(line), "\n") != 1 {
		t.Fatalf("event is not one line: %q", line)
	}
	var got map[string]any
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatalf("event %s: %v", line, err)
	}
	want := map[string]any{"event": "verdict", "site": "m.F#entry", "error": "bad \"x\"\n", "chain": 7.0, "first": true}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
	if pid, ok := got["pid"].(float64); !ok || pid <= 0 {
		t.Errorf("pid = %#v, want a positive number", got["pid"])
	}
}
