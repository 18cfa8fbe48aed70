package api

import (
	"fmt"
	"math"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/service/ticketsvc"
	"github.com/cupid-match/cupid/waitest"
)

// attributesIn turns protobuf Values into domain Values: numbers, strings
// and lists of strings are accepted; anything else is an error naming the
// attribute. The names are visited in order, so the first bad one is the
// one reported and the result comes out sorted as cupid.Attributes wants.
func attributesIn(field string, in map[string]*structpb.Value) (cupid.Attributes, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(cupid.Attributes, 0, len(in))
	for _, name := range cupid.SortedKeys(in) {
		v, err := valueIn(field+"."+name, in[name])
		if err != nil {
			return nil, err
		}
		out = append(out, cupid.Attribute{Name: name, Value: v})
	}
	return out, nil
}

func valueIn(field string, v *structpb.Value) (cupid.Value, error) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NumberValue:
		if math.IsNaN(k.NumberValue) || math.IsInf(k.NumberValue, 0) {
			return cupid.Value{}, cupid.Invalid(field, "must be a finite number, got %v", k.NumberValue)
		}
		return cupid.Number(k.NumberValue), nil
	case *structpb.Value_StringValue:
		return cupid.String(k.StringValue), nil
	case *structpb.Value_BoolValue:
		return cupid.Bool(k.BoolValue), nil
	case *structpb.Value_ListValue:
		items := k.ListValue.GetValues()
		ss := make([]string, len(items))
		for i, it := range items {
			s, ok := it.GetKind().(*structpb.Value_StringValue)
			if !ok {
				return cupid.Value{}, cupid.Invalid(fmt.Sprintf("%s[%d]", field, i), "lists may hold only strings")
			}
			ss[i] = s.StringValue
		}
		return cupid.Strings(ss...), nil
	case *structpb.Value_StructValue:
		// A map of numbers (a skill per weapon): each key's field is the
		// path a rule reads it by, players[0].attributes.skills.sword.
		fields := k.StructValue.GetFields()
		m := make(map[string]float64, len(fields))
		for _, key := range cupid.SortedKeys(fields) {
			n, ok := fields[key].GetKind().(*structpb.Value_NumberValue)
			if !ok {
				return cupid.Value{}, cupid.Invalid(field+"."+key, "must be a number: a map attribute holds only numbers")
			}
			if math.IsNaN(n.NumberValue) || math.IsInf(n.NumberValue, 0) {
				return cupid.Value{}, cupid.Invalid(field+"."+key, "must be a finite number, got %v", n.NumberValue)
			}
			m[key] = n.NumberValue
		}
		return cupid.Numbers(m), nil
	}
	return cupid.Value{}, cupid.Invalid(field, "must be a number, a boolean, a string, a list of strings or a map of numbers")
}

func attributesOut(in cupid.Attributes) map[string]*structpb.Value {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]*structpb.Value, len(in))
	for _, a := range in {
		if v := valueOut(a.Value); v != nil {
			out[a.Name] = v
		}
	}
	return out
}

// attributeMapOut is attributesOut for the opponent finder, whose entries
// keep their attributes in a map.
func attributeMapOut(in map[string]cupid.Value) map[string]*structpb.Value {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]*structpb.Value, len(in))
	for k, v := range in {
		if pv := valueOut(v); pv != nil {
			out[k] = pv
		}
	}
	return out
}

// valueOut turns a domain Value into a protobuf Value; nil for a Value of
// no known kind, which is left out.
func valueOut(v cupid.Value) *structpb.Value {
	switch v.Kind {
	case cupid.KindNumber:
		return structpb.NewNumberValue(v.Number)
	case cupid.KindString:
		return structpb.NewStringValue(v.String)
	case cupid.KindBool:
		return structpb.NewBoolValue(v.Bool)
	case cupid.KindStrings:
		items := make([]*structpb.Value, len(v.Strings))
		for i, s := range v.Strings {
			items[i] = structpb.NewStringValue(s)
		}
		return structpb.NewListValue(&structpb.ListValue{Values: items})
	case cupid.KindNumbers:
		fields := make(map[string]*structpb.Value, len(v.Map))
		for k, n := range v.Map {
			fields[k] = structpb.NewNumberValue(n)
		}
		return structpb.NewStructValue(&structpb.Struct{Fields: fields})
	}
	return nil
}

func ticketIn(r *cupidv1.CreateTicketRequest) (*cupid.Ticket, error) {
	if r.GetQueue() == "" {
		return nil, cupid.Invalid("queue", "required")
	}
	t := &cupid.Ticket{
		Key:       cupid.QueueKey{Queue: r.GetQueue(), Version: r.GetVersion(), Custom: r.GetCustomKey()},
		Latencies: r.GetLatencies(),
		RequestID: r.GetRequestId(),
	}
	for i, p := range r.GetPlayers() {
		attrs, err := attributesIn(fmt.Sprintf("players[%d].attributes", i), p.GetAttributes())
		if err != nil {
			return nil, err
		}
		t.Players = append(t.Players, cupid.Player{ID: p.GetId(), Attributes: attrs})
	}
	attrs, err := attributesIn("attributes", r.GetAttributes())
	if err != nil {
		return nil, err
	}
	t.Attributes = attrs
	// AccelByte's reserved key client_version splits pools like version.
	if cv, ok := t.Attributes.Get("client_version"); ok && t.Key.Version == "" && cv.Kind == cupid.KindString {
		t.Key.Version = cv.String
	}
	return t, nil
}

var stateOut = map[cupid.TicketState]cupidv1.TicketState{
	cupid.StateWaiting:   cupidv1.TicketState_TICKET_STATE_WAITING,
	cupid.StateMatched:   cupidv1.TicketState_TICKET_STATE_MATCHED,
	cupid.StateCancelled: cupidv1.TicketState_TICKET_STATE_CANCELLED,
	cupid.StateExpired:   cupidv1.TicketState_TICKET_STATE_EXPIRED,
}

var stateIn = map[cupidv1.TicketState]cupid.TicketState{
	cupidv1.TicketState_TICKET_STATE_UNSPECIFIED: "",
	cupidv1.TicketState_TICKET_STATE_WAITING:     cupid.StateWaiting,
	cupidv1.TicketState_TICKET_STATE_MATCHED:     cupid.StateMatched,
	cupidv1.TicketState_TICKET_STATE_CANCELLED:   cupid.StateCancelled,
	cupidv1.TicketState_TICKET_STATE_EXPIRED:     cupid.StateExpired,
}

func ticketOut(t *cupid.Ticket, m *cupid.Match, now time.Time) *cupidv1.Ticket {
	out := &cupidv1.Ticket{
		Id:         t.ID,
		Queue:      t.Key.Queue,
		Version:    t.Key.Version,
		CustomKey:  t.Key.Custom,
		Latencies:  t.Latencies,
		Attributes: attributesOut(t.Attributes),
		RequestId:  t.RequestID,
		State:      stateOut[t.State],
		CreatedAt:  timestamppb.New(t.CreatedAt),
		ExpiresAt:  timestamppb.New(t.ExpiresAt),
		MatchId:    t.MatchID,
		Reason:     t.Reason,
	}
	for _, p := range t.Players {
		out.Players = append(out.Players, &cupidv1.Player{Id: p.ID, Attributes: attributesOut(p.Attributes)})
	}
	end := now
	if t.State.Final() && !t.UpdatedAt.IsZero() {
		end = t.UpdatedAt
	}
	out.Waited = durationpb.New(end.Sub(t.CreatedAt))
	if m != nil {
		out.Match = matchOut(m)
	}
	return out
}

func matchOut(m *cupid.Match) *cupidv1.Match {
	out := &cupidv1.Match{
		Id:        m.ID,
		Queue:     m.Key.Queue,
		Quality:   &cupidv1.Quality{Score: m.Quality.Score, Parts: m.Quality.Parts.Map()},
		CreatedAt: timestamppb.New(m.CreatedAt),
		Region:    m.Region,
		Roles:     m.Roles,
	}
	for _, t := range m.Teams {
		out.Teams = append(out.Teams, &cupidv1.Team{TicketIds: t.TicketIDs, PlayerIds: t.PlayerIDs})
	}
	sessionOut(m, out) // sessions.go
	acceptByOut(m, out)
	return out
}

func eventOut(ev cupid.Event) *cupidv1.TicketEvent {
	out := &cupidv1.TicketEvent{
		Seq:      ev.Seq,
		TicketId: ev.TicketID,
		Kind:     string(ev.Kind),
		At:       timestamppb.New(ev.At),
		Reason:   ev.Reason,
		Estimate: estimateOut(ev.Estimate),
	}
	if ev.Match != nil {
		out.Match = matchOut(ev.Match)
	}
	return out
}

func poolStatsOut(p ticketsvc.PoolStats) *cupidv1.PoolStats {
	return &cupidv1.PoolStats{
		Queue:          p.Key.Queue,
		Version:        p.Key.Version,
		CustomKey:      p.Key.Custom,
		Waiting:        int64(p.Waiting),
		PlayersWaiting: int64(p.Players),
		OldestWait:     durationpb.New(p.OldestWait),
		MatchesFormed:  p.MatchesFormed,
		MeanQuality:    p.MeanQuality,
		RulesetVersion: int32(p.RulesetVersion),
		Estimate:       estimateOut(p.Estimate),
	}
}

// estimateOut is a wait estimate; nil when there is none.
func estimateOut(e *waitest.Estimate) *cupidv1.WaitEstimate {
	if e == nil {
		return nil
	}
	out := &cupidv1.WaitEstimate{Expected: durationpb.New(e.Expected), Low: durationpb.New(e.Low), Coverage: e.Coverage, Samples: int32(e.Samples)}
	if e.HighKnown {
		out.High = durationpb.New(e.High)
	}
	return out
}

// whyOut is a waiting ticket's explanation, as the ticket service gives it
// with the ticket (the engine's own, read field by field: the transport
// needs no more of the engine than what it sends).
func whyOut(v *ticketsvc.TicketView) *cupidv1.WaitExplanation {
	if v == nil || v.Why == nil {
		return nil
	}
	e := v.Why
	out := &cupidv1.WaitExplanation{Summary: e.Summary, Candidates: int64(e.Compatible)}
	if !e.NextRelaxation.IsZero() {
		out.NextRelaxation = timestamppb.New(e.NextRelaxation)
	}
	if e.Self != "" {
		out.Blocks = append(out.Blocks, &cupidv1.RuleBlock{Rule: "self", Detail: e.Self})
	}
	for _, b := range e.Blocks {
		out.Blocks = append(out.Blocks, &cupidv1.RuleBlock{Rule: b.Rule, Excluded: int64(b.Removed), Detail: b.Nearest})
	}
	for i := range e.Offers {
		o := offerOut(&e.Offers[i])
		if i < len(v.OfferWaits) && v.OfferWaits[i] != nil {
			o.Estimate = durationpb.New(*v.OfferWaits[i])
		}
		out.Offers = append(out.Offers, o)
	}
	return out
}
