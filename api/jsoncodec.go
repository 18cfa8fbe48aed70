package api

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cupid-match/cupid/internal/editdist"
)

// jsonCodec is Connect's JSON codec made strict: an unknown field, a
// misspelled enum name or a value of the wrong type is refused, naming the
// field by its path in the request ("latencies.eu", "players[0].atributes")
// and, for an unknown field, the known one it probably meant. Connect's own
// codec unmarshals with DiscardUnknown, which silently drops a misspelled
// field ("latency" for "latencies") and a misspelled enum name, so the
// request is served as if the client had not said it.
type jsonCodec struct{ name string }

// jsonCodecs replace both names Connect registers its JSON codec under.
func jsonCodecs() []connect.HandlerOption {
	return []connect.HandlerOption{
		connect.WithCodec(jsonCodec{name: "json"}),
		connect.WithCodec(jsonCodec{name: "json; charset=utf-8"}),
	}
}

var _ connect.Codec = jsonCodec{}

func (c jsonCodec) Name() string { return c.name }

func (c jsonCodec) Marshal(m any) ([]byte, error) {
	pm, ok := m.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("%T is not a protobuf message", m)
	}
	return protojson.MarshalOptions{}.Marshal(pm)
}

func (c jsonCodec) Unmarshal(data []byte, m any) error {
	pm, ok := m.(proto.Message)
	if !ok {
		return fmt.Errorf("%T is not a protobuf message", m)
	}
	if len(data) == 0 {
		return errors.New("an empty body is not a JSON object")
	}
	err := protojson.UnmarshalOptions{DiscardUnknown: false}.Unmarshal(data, pm)
	if err == nil {
		return nil
	}
	return jsonError(data, pm.ProtoReflect().Descriptor(), err)
}

// FieldError is a request body refused by the JSON codec: the path of the
// field at fault and what is wrong with it. Connect reports it as
// invalid_argument, its message prefixed with "unmarshal message: ".
type FieldError struct {
	Field, Message string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

var (
	// protojson places its errors: "proto: (line 1:17): unknown field ..."
	// or "proto: syntax error (line 1:1): ...".
	pjPlaced  = regexp.MustCompile(`^proto:(?: syntax error)? \(line (\d+):(\d+)\): (.*)$`)
	pjUnknown = regexp.MustCompile(`^unknown field "(.*)"$`)
	pjInvalid = regexp.MustCompile(`^invalid value for (\w+) field \w+: (.*)$`)
)

// jsonError turns protojson's error, which says where in the text the
// problem is but not which field, into a FieldError naming the field.
func jsonError(data []byte, md protoreflect.MessageDescriptor, err error) error {
	// protojson puts a no-break space in some of its messages, at random,
	// so that nobody parses them; this does, and the test holds it to it.
	msg := strings.ReplaceAll(err.Error(), "\u00a0", " ")
	m := pjPlaced.FindStringSubmatch(msg)
	if m == nil {
		return &FieldError{Message: "invalid JSON: " + strings.TrimPrefix(msg, "proto: ")}
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	reason := m[3]
	path := jsonPathAt(data, offsetOf(data, line, col))
	if path == nil {
		return &FieldError{Message: "invalid JSON: " + reason}
	}
	field := renderPath(path)
	if u := pjUnknown.FindStringSubmatch(reason); u != nil {
		return &FieldError{Field: field, Message: "unknown field" + suggestField(md, path)}
	}
	if v := pjInvalid.FindStringSubmatch(reason); v != nil {
		want := map[string]string{
			"int32": "a whole number", "int64": "a whole number", "uint32": "a whole number, 0 or more",
			"uint64": "a whole number, 0 or more", "sint32": "a whole number", "sint64": "a whole number",
			"fixed32": "a whole number, 0 or more", "fixed64": "a whole number, 0 or more",
			"sfixed32": "a whole number", "sfixed64": "a whole number",
			"float": "a number", "double": "a number", "bool": "true or false", "string": "a string",
			"bytes": "base64 text",
		}[v[1]]
		if v[1] == "enum" {
			want = enumWords(md, path)
		}
		if want == "" {
			want = "a " + v[1]
		}
		return &FieldError{Field: field, Message: fmt.Sprintf("must be %s, got %s", want, v[2])}
	}
	return &FieldError{Field: field, Message: reason}
}

// offsetOf turns protojson's line and column (counted in characters, from
// 1) into a byte offset.
func offsetOf(data []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := indexByte(data[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	for c := 1; c < col && off < len(data); c++ {
		_, size := utf8.DecodeRune(data[off:])
		off += size
	}
	return off
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// step is one step of a path in a JSON document: an object's key or an
// array's index.
type jsonStep struct {
	key   string
	index int // -1 for a key
}

func renderPath(path []jsonStep) string {
	var b strings.Builder
	for _, s := range path {
		if s.index >= 0 {
			fmt.Fprintf(&b, "[%d]", s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

// jsonPathAt finds the path of the key or value that starts at byte off of
// a JSON document; nil when none does (or the text breaks off before it).
func jsonPathAt(data []byte, off int) []jsonStep {
	if off < 0 {
		return nil
	}
	w := &jsonWalker{data: data, target: off}
	w.value(0)
	return w.found
}

// maxJSONDepth bounds the walk as protojson bounds its own.
const maxJSONDepth = 10000

type jsonWalker struct {
	data   []byte
	pos    int
	target int
	path   []jsonStep
	found  []jsonStep
}

func (w *jsonWalker) ws() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

func (w *jsonWalker) hit(extra ...jsonStep) bool {
	if w.pos != w.target {
		return false
	}
	w.found = append(append([]jsonStep{}, w.path...), extra...)
	if len(w.found) == 0 {
		w.found = nil
	}
	return true
}

// value walks one value; false stops the walk (found, or broken text).
func (w *jsonWalker) value(depth int) bool {
	w.ws()
	if w.pos >= len(w.data) || depth > maxJSONDepth || w.hit() {
		return false
	}
	switch w.data[w.pos] {
	case '{':
		w.pos++
		for {
			w.ws()
			if w.pos >= len(w.data) {
				return false
			}
			switch w.data[w.pos] {
			case '}':
				w.pos++
				return true
			case ',':
				w.pos++
				continue
			case '"':
			default:
				return false
			}
			start := w.pos
			key, ok := w.str()
			if !ok {
				return false
			}
			if start == w.target {
				w.pos = start
				w.hit(jsonStep{key: key, index: -1})
				return false
			}
			w.ws()
			if w.pos >= len(w.data) || w.data[w.pos] != ':' {
				return false
			}
			w.pos++
			w.path = append(w.path, jsonStep{key: key, index: -1})
			if !w.value(depth + 1) {
				return false
			}
			w.path = w.path[:len(w.path)-1]
		}
	case '[':
		w.pos++
		for i := 0; ; {
			w.ws()
			if w.pos >= len(w.data) {
				return false
			}
			switch w.data[w.pos] {
			case ']':
				w.pos++
				return true
			case ',':
				w.pos++
				i++
				continue
			}
			w.path = append(w.path, jsonStep{index: i})
			if !w.value(depth + 1) {
				return false
			}
			w.path = w.path[:len(w.path)-1]
		}
	case '"':
		_, ok := w.str()
		return ok
	}
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return true
		}
		w.pos++
	}
	return true
}

// str reads a string at pos and returns its value.
func (w *jsonWalker) str() (string, bool) {
	start := w.pos
	w.pos++
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case '\\':
			w.pos += 2
			continue
		case '"':
			w.pos++
			s, err := strconv.Unquote(string(w.data[start:w.pos]))
			if err != nil {
				s = string(w.data[start+1 : w.pos-1])
			}
			return s, true
		}
		w.pos++
	}
	return "", false
}

// fieldAt follows a path through the message's fields, map values and
// list items, and returns the message the last step is a field of (nil
// when the path leaves the schema) and the field the last step names.
func fieldAt(md protoreflect.MessageDescriptor, path []jsonStep) (protoreflect.MessageDescriptor, protoreflect.FieldDescriptor) {
	var fd protoreflect.FieldDescriptor
	inMap, inList := false, false
	for i, s := range path {
		switch {
		case inMap:
			// a map key: the value's type next
			inMap = false
			if i == len(path)-1 {
				return md, fd.MapValue()
			}
			if fd.MapValue().Kind() != protoreflect.MessageKind {
				return nil, nil
			}
			md = fd.MapValue().Message()
			continue
		case inList:
			inList = false
			if s.index < 0 {
				return nil, nil
			}
			if i == len(path)-1 {
				return md, fd
			}
			if fd.Kind() != protoreflect.MessageKind {
				return nil, nil
			}
			md = fd.Message()
			continue
		}
		if md == nil || s.index >= 0 {
			return nil, nil
		}
		fields := md.Fields()
		fd = fields.ByJSONName(s.key)
		if fd == nil {
			fd = fields.ByTextName(s.key)
		}
		if i == len(path)-1 {
			return md, fd
		}
		if fd == nil {
			return nil, nil
		}
		switch {
		case fd.IsMap():
			inMap = true
		case fd.IsList():
			inList = true
		case fd.Kind() == protoreflect.MessageKind:
			md = fd.Message()
		default:
			return nil, nil
		}
	}
	return md, fd
}

// suggestField names the field of the enclosing message an unknown one
// was probably meant to be ("; did you mean latencies?").
func suggestField(md protoreflect.MessageDescriptor, path []jsonStep) string {
	parent, _ := fieldAt(md, path)
	if parent == nil || len(path) == 0 {
		return ""
	}
	name := strings.ToLower(path[len(path)-1].key)
	best, bestDist := "", 0
	fields := parent.Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		for _, cand := range []string{string(f.Name()), f.JSONName()} {
			d := editdist.Distance(name, strings.ToLower(cand))
			if len(name) >= 4 && (strings.HasPrefix(strings.ToLower(cand), name) || strings.HasPrefix(name, strings.ToLower(cand))) {
				d = min(d, 2)
			}
			if best == "" || d < bestDist {
				best, bestDist = string(f.Name()), d
			}
		}
	}
	limit := 2
	if len(name) >= 6 {
		limit = max(3, len(name)/3)
	}
	if best != "" && bestDist <= limit {
		return "; did you mean " + best + "?"
	}
	return ""
}

// enumWords lists the names an enum field takes.
func enumWords(md protoreflect.MessageDescriptor, path []jsonStep) string {
	_, fd := fieldAt(md, path)
	if fd == nil || fd.Kind() != protoreflect.EnumKind {
		return "a known name"
	}
	vals := fd.Enum().Values()
	names := make([]string, vals.Len())
	for i := range vals.Len() {
		names[i] = string(vals.Get(i).Name())
	}
	return "one of " + strings.Join(names, ", ")
}
