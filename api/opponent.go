package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/opponent"
	"github.com/cupid-match/cupid/service/opponentsvc"
)

// registerOpponent mounts cupid.v1.OpponentService.
func registerOpponent(mux *http.ServeMux, svc *opponentsvc.Service, log *slog.Logger, opts []connect.HandlerOption) {
	mux.Handle(cupidv1connect.NewOpponentServiceHandler(&opponents{svc: svc, log: log}, opts...))
}

// opponents serves cupid.v1.OpponentService over the opponent service.
type opponents struct {
	svc *opponentsvc.Service
	log *slog.Logger
}

var _ cupidv1connect.OpponentServiceHandler = (*opponents)(nil)

func (h *opponents) UpdatePlayer(ctx context.Context, req *connect.Request[cupidv1.UpdatePlayerRequest]) (*connect.Response[cupidv1.UpdatePlayerResponse], error) {
	r := req.Msg
	id := r.GetPlayerId()
	idField := "player_id"
	if mid := r.GetModel().GetId(); mid != "" {
		if id == "" {
			id, idField = mid, "model.id"
		} else if mid != id {
			return nil, connectError(h.log, cupid.Invalid("model.id", "must be empty or equal player_id (%q), got %q", id, mid))
		}
	}
	m := opponent.Model{PlayerID: id}
	if r.Model != nil {
		entries, err := entriesIn("model", r.Model)
		if err != nil {
			return nil, connectError(h.log, err)
		}
		m.Entries = entries
	}
	res, err := h.svc.UpdatePlayer(ctx, r.GetFinder(), m)
	if err != nil {
		return nil, connectError(h.log, modelFieldOut(err, r.Model, idField))
	}
	return connect.NewResponse(&cupidv1.UpdatePlayerResponse{
		Outcome:  res.Outcome,
		Inserted: int32(res.Inserted),
		Updated:  int32(res.Updated),
		Removed:  int32(res.Removed),
		Evicted:  int32(res.Evicted),
		Ignored:  int32(res.Ignored),
		Stored:   res.Stored,
	}), nil
}

func (h *opponents) RemovePlayer(ctx context.Context, req *connect.Request[cupidv1.RemovePlayerRequest]) (*connect.Response[cupidv1.RemovePlayerResponse], error) {
	n, err := h.svc.RemovePlayer(ctx, req.Msg.GetFinder(), req.Msg.GetPlayerId())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.RemovePlayerResponse{Removed: int32(n)}), nil
}

func (h *opponents) FindOpponent(ctx context.Context, req *connect.Request[cupidv1.FindOpponentRequest]) (*connect.Response[cupidv1.FindOpponentResponse], error) {
	r := req.Msg
	a := r.GetAttacker()
	if a == nil {
		return nil, connectError(h.log, cupid.Invalid("attacker", "is required"))
	}
	if len(a.GetExtraMmrs()) > 0 {
		return nil, connectError(h.log, cupid.Invalid("attacker.extra_mmrs", "an attacker has one MMR"))
	}
	if len(a.GetEntries()) > 0 {
		return nil, connectError(h.log, cupid.Invalid("attacker.entries", "an attacker has one MMR; use attacker.mmr"))
	}
	attrs, err := mergeAttributes("attacker", a.GetLabels(), a.GetAttributes())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	q := opponent.Query{
		AttackerID:  a.GetId(),
		MMR:         a.GetMmr(),
		Attributes:  attrs,
		Retries:     int(r.GetRetries()),
		Exclude:     r.GetExcludedIds(),
		ReturnModel: r.GetReturnModel(),
		Reserve:     r.GetReserve(),
	}
	res, err := h.svc.FindOpponent(ctx, r.GetFinder(), q)
	if err != nil {
		return nil, connectError(h.log, queryFieldOut(err, a))
	}
	out := &cupidv1.FindOpponentResponse{
		Result:            resultOut[res.Type],
		PlayerId:          res.PlayerID,
		Score:             res.Score,
		Examined:          int32(res.Examined),
		RemovedAfterOffer: res.RemovedAfterOffer,
	}
	if res.Model != nil && len(res.Model.Entries) > 0 {
		out.Model = h.modelOut(r.GetFinder(), res.Model)
	}
	if res.Reservation != nil {
		out.Reservation = reservationOut(*res.Reservation)
	}
	return connect.NewResponse(out), nil
}

func (h *opponents) FinderStats(ctx context.Context, req *connect.Request[cupidv1.FinderStatsRequest]) (*connect.Response[cupidv1.FinderStatsResponse], error) {
	st, err := h.svc.Stats(req.Msg.GetFinder(), req.Msg.GetIncludeBuckets())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	out := &cupidv1.FinderStatsResponse{
		Finder:         st.Name,
		Players:        int64(st.Players),
		Capacity:       int64(st.Capacity),
		Buckets:        int64(st.Buckets),
		Queries:        int64(st.Queries),
		Successes:      int64(st.Successes),
		Fakes:          int64(st.Fakes),
		NoneFound:      int64(st.NoneFound),
		Entries:        int64(st.Entries),
		CacheSize:      int64(st.CacheSize),
		HasSizingModel: st.HasModel,
		InvalidQueries: int64(st.InvalidQueries),
		Inserted:       int64(st.Inserted),
		Updated:        int64(st.Updated),
		Removed:        int64(st.Removed),
		Evicted:        int64(st.Evicted),
		Ignored:        int64(st.Ignored),
		OfferRemoved:   int64(st.OfferRemoved),
		Rebalances:     int64(st.Rebalances),
		ScanEnabled:    st.ScanEnabled,
		ScanBatches:    int64(st.ScanBatches),
		ScanPasses:     int64(st.ScanPasses),
		ScannedRows:    int64(st.ScannedRows),
		StoresPlayers:  st.StoresPlayers,
		Held:           int64(st.Held),
		Shielded:       int64(st.Shielded),
		Online:         int64(st.Online),
		Reserved:       int64(st.Reserved),
		Confirmed:      int64(st.Confirmed),
		Released:       int64(st.Released),
		Expired:        int64(st.Expired),
	}
	for _, b := range st.PerBucket {
		out.BucketFill = append(out.BucketFill, &cupidv1.FinderBucket{
			Key: b.Key, MmrLow: b.MMRLow, MmrHigh: b.MMRHigh, Size: int64(b.Size), Entries: int64(b.Entries),
		})
	}
	return connect.NewResponse(out), nil
}

func (h *opponents) Rebalance(ctx context.Context, req *connect.Request[cupidv1.RebalanceRequest]) (*connect.Response[cupidv1.RebalanceResponse], error) {
	res, err := h.svc.Rebalance(ctx, req.Msg.GetFinder())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.RebalanceResponse{
		Buckets: int64(res.Buckets), Resized: res.Resized, Samples: res.Samples,
	}), nil
}

var resultOut = map[opponent.ResultType]cupidv1.OpponentResult{
	opponent.ResultSuccess:      cupidv1.OpponentResult_OPPONENT_RESULT_SUCCESS,
	opponent.ResultNoneFound:    cupidv1.OpponentResult_OPPONENT_RESULT_NONE_FOUND,
	opponent.ResultFakeOpponent: cupidv1.OpponentResult_OPPONENT_RESULT_FAKE_OPPONENT,
}

// mergeAttributes turns a model's labels and attributes into the one map
// the finder reads; a name may appear in only one of them.
func mergeAttributes(field string, labels, attrs map[string]*structpb.Value) (map[string]cupid.Value, error) {
	la, err := attributesIn(field+".labels", labels)
	if err != nil {
		return nil, err
	}
	a, err := attributesIn(field+".attributes", attrs)
	if err != nil {
		return nil, err
	}
	if len(la) == 0 {
		return a.Map(), nil
	}
	l := la.Map()
	for _, at := range a {
		if _, dup := l[at.Name]; dup {
			return nil, cupid.Invalid(field+".attributes."+at.Name, "is also given in labels; labels and attributes share one namespace")
		}
		l[at.Name] = at.Value
	}
	return l, nil
}

// entriesIn turns a PlayerModel into entries: either the entries list or
// the first entry (mmr, labels, attributes) plus one more per extra MMR
// with the same values.
func entriesIn(field string, p *cupidv1.PlayerModel) ([]opponent.Entry, error) {
	if len(p.GetEntries()) > 0 {
		if p.GetMmr() != 0 || len(p.GetLabels()) > 0 || len(p.GetAttributes()) > 0 || len(p.GetExtraMmrs()) > 0 {
			return nil, cupid.Invalid(field+".entries", "give either entries or mmr/labels/attributes/extra_mmrs, not both")
		}
		out := make([]opponent.Entry, len(p.GetEntries()))
		for i, e := range p.GetEntries() {
			ef := fmt.Sprintf("%s.entries[%d]", field, i)
			attrs, err := mergeAttributes(ef, e.GetLabels(), e.GetAttributes())
			if err != nil {
				return nil, err
			}
			out[i] = opponent.Entry{MMR: e.GetMmr(), Attributes: attrs}
		}
		return out, nil
	}
	attrs, err := mergeAttributes(field, p.GetLabels(), p.GetAttributes())
	if err != nil {
		return nil, err
	}
	out := make([]opponent.Entry, 0, 1+len(p.GetExtraMmrs()))
	out = append(out, opponent.Entry{MMR: p.GetMmr(), Attributes: attrs})
	for _, mmr := range p.GetExtraMmrs() {
		out = append(out, opponent.Entry{MMR: mmr, Attributes: attrs})
	}
	return out, nil
}

// modelOut shows a chosen entry as a PlayerModel, labels apart from the
// other attributes.
func (h *opponents) modelOut(finder string, m *opponent.Model) *cupidv1.PlayerModel {
	e := m.Entries[0]
	var labels, attrs map[string]cupid.Value
	for name, v := range e.Attributes {
		if h.svc.IsLabel(finder, name) {
			if labels == nil {
				labels = map[string]cupid.Value{}
			}
			labels[name] = v
		} else {
			if attrs == nil {
				attrs = map[string]cupid.Value{}
			}
			attrs[name] = v
		}
	}
	return &cupidv1.PlayerModel{Id: m.PlayerID, Mmr: e.MMR, Labels: attributeMapOut(labels), Attributes: attributeMapOut(attrs)}
}

// The finder names fields after its own types (opponent.Model, Query);
// the functions below rename them after the request's fields, so an error
// points at what the caller sent.

// renameField returns err with its field renamed, or err itself.
func renameField(err error, rename func(string) string) error {
	var e *cupid.Error
	if !errors.As(err, &e) || e.Field == "" {
		return err
	}
	out := *e
	out.Field = rename(e.Field)
	return &out
}

// attrField names attribute name (and what follows it, such as "[2]") in
// the labels or the attributes map of prefix, wherever the caller put it.
func attrField(prefix, rest string, labels map[string]*structpb.Value) string {
	name := rest
	if i := strings.IndexByte(rest, '['); i >= 0 {
		name = rest[:i]
	}
	if _, ok := labels[name]; ok {
		return prefix + ".labels." + rest
	}
	return prefix + ".attributes." + rest
}

// modelFieldOut renames "entries[i].…" after the model's own shape, and
// "player_id" after the field the id came in (player_id or model.id).
func modelFieldOut(err error, p *cupidv1.PlayerModel, idField string) error {
	return renameField(err, func(f string) string {
		if f == "player_id" {
			return idField
		}
		if f == "entries" {
			if len(p.GetEntries()) > 0 {
				return "model.entries"
			}
			return "model.extra_mmrs"
		}
		rest, ok := strings.CutPrefix(f, "entries[")
		if !ok {
			return f
		}
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return f
		}
		i, err := strconv.Atoi(rest[:end])
		if err != nil {
			return f
		}
		sub := strings.TrimPrefix(rest[end+1:], ".")
		if len(p.GetEntries()) > 0 {
			if i >= len(p.GetEntries()) {
				return f
			}
			ef := fmt.Sprintf("model.entries[%d]", i)
			if a, ok := strings.CutPrefix(sub, "attributes."); ok {
				return attrField(ef, a, p.GetEntries()[i].GetLabels())
			}
			return ef + "." + sub
		}
		if a, ok := strings.CutPrefix(sub, "attributes."); ok {
			return attrField("model", a, p.GetLabels())
		}
		if sub == "mmr" && i > 0 {
			return fmt.Sprintf("model.extra_mmrs[%d]", i-1)
		}
		return "model." + sub
	})
}

// queryFieldOut renames a query's fields after the request's.
func queryFieldOut(err error, a *cupidv1.PlayerModel) error {
	return renameField(err, func(f string) string {
		switch f {
		case "attacker_id":
			return "attacker.id"
		case "mmr":
			return "attacker.mmr"
		case "exclude":
			return "excluded_ids"
		}
		if rest, ok := strings.CutPrefix(f, "exclude["); ok {
			return "excluded_ids[" + rest
		}
		if rest, ok := strings.CutPrefix(f, "attributes."); ok {
			return attrField("attacker", rest, a.GetLabels())
		}
		return f
	})
}
