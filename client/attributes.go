package client

import (
	"fmt"
	"math"
	"sort"

	"google.golang.org/protobuf/types/known/structpb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// Attributes converts plain Go attribute values to the API's: numbers
// (every int, uint and float kind), strings, booleans and lists of strings
// ([]string, or []any holding only strings). Anything else, and NaN or
// ±Inf, is refused with an error naming the attribute, before any call,
// as the server would refuse it.
func Attributes(attrs map[string]any) (map[string]*structpb.Value, error) {
	if attrs == nil {
		return nil, nil
	}
	out := make(map[string]*structpb.Value, len(attrs))
	// In name order, so the error names the same attribute every time.
	names := make([]string, 0, len(attrs))
	for name := range attrs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		v, err := attributeValue(attrs[name])
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", name, err)
		}
		out[name] = v
	}
	return out, nil
}

func attributeValue(v any) (*structpb.Value, error) {
	var f float64
	switch x := v.(type) {
	case string:
		return structpb.NewStringValue(x), nil
	case bool:
		return structpb.NewBoolValue(x), nil
	case []string:
		list := make([]*structpb.Value, len(x))
		for i, s := range x {
			list[i] = structpb.NewStringValue(s)
		}
		return structpb.NewListValue(&structpb.ListValue{Values: list}), nil
	case []any:
		list := make([]*structpb.Value, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("a list may hold only strings; item %d is %T", i, e)
			}
			list[i] = structpb.NewStringValue(s)
		}
		return structpb.NewListValue(&structpb.ListValue{Values: list}), nil
	case int:
		f = float64(x)
	case int8:
		f = float64(x)
	case int16:
		f = float64(x)
	case int32:
		f = float64(x)
	case int64:
		f = float64(x)
	case uint:
		f = float64(x)
	case uint8:
		f = float64(x)
	case uint16:
		f = float64(x)
	case uint32:
		f = float64(x)
	case uint64:
		f = float64(x)
	case float32:
		f = float64(x)
	case float64:
		f = x
	default:
		return nil, fmt.Errorf("%T is not an attribute value: use a number, a string, a bool or a []string", v)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%v is not a finite number", f)
	}
	return structpb.NewNumberValue(f), nil
}

// Values converts the API's attribute values back to plain Go: float64,
// string, bool, or []any of strings.
func Values(attrs map[string]*structpb.Value) map[string]any {
	if attrs == nil {
		return nil
	}
	out := make(map[string]any, len(attrs))
	for k, v := range attrs {
		out[k] = v.AsInterface()
	}
	return out
}

// NewPlayer is a player with plain Go attributes, for a ticket.
func NewPlayer(id string, attrs map[string]any) (*cupidv1.Player, error) {
	a, err := Attributes(attrs)
	if err != nil {
		return nil, fmt.Errorf("player %s: %w", id, err)
	}
	return &cupidv1.Player{Id: id, Attributes: a}, nil
}

// NewTicket is a ticket of one queue for a party of players, each given
// as an id and plain Go attributes, in the order of ids.
func NewTicket(queue string, ids []string, attrs []map[string]any) (*cupidv1.CreateTicketRequest, error) {
	if len(attrs) != len(ids) {
		return nil, fmt.Errorf("%d players and %d attribute sets", len(ids), len(attrs))
	}
	req := &cupidv1.CreateTicketRequest{Queue: queue}
	for i, id := range ids {
		p, err := NewPlayer(id, attrs[i])
		if err != nil {
			return nil, err
		}
		req.Players = append(req.Players, p)
	}
	return req, nil
}
