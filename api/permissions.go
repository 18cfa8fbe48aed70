package api

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"connectrpc.com/connect"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// ticketPlayers returns the ids of a ticket's players (for "is he in this
// ticket?"), or the ticket service's not-found error.
type ticketPlayers func(ctx context.Context, id string) ([]string, error)

// rule is who may call one procedure: a server key with scope, and a
// player when player is not nil and accepts the request. An empty scope
// lets any server key call.
type rule struct {
	scope Scope
	// player checks the request of a player token's player; nil refuses
	// every player.
	player func(a *Auth, ctx context.Context, lookup ticketPlayers, player string, msg any) error
	// anyone lets every authenticated caller through (reads of what is not
	// any player's).
	anyone bool
}

// rules lists every procedure of the API. A procedure missing here is
// refused to everyone but admin keys (TestEveryProcedureHasARule keeps the
// list whole).
var rules = map[string]rule{
	cupidv1connect.TicketServiceCreateTicketProcedure: {scope: ScopeTickets, player: func(_ *Auth, _ context.Context, _ ticketPlayers, p string, m any) error {
		return onlyHimself(p, m.(*cupidv1.CreateTicketRequest).GetPlayers(), "")
	}},
	cupidv1connect.TicketServiceCreateTicketsProcedure: {scope: ScopeTickets, player: func(_ *Auth, _ context.Context, _ ticketPlayers, p string, m any) error {
		for i, t := range m.(*cupidv1.CreateTicketsRequest).GetTickets() {
			if err := onlyHimself(p, t.GetPlayers(), "tickets["+strconv.Itoa(i)+"]."); err != nil {
				return err
			}
		}
		return nil
	}},
	cupidv1connect.TicketServiceGetTicketProcedure: {scope: ScopeTickets, player: func(_ *Auth, ctx context.Context, l ticketPlayers, p string, m any) error {
		return inTicket(ctx, l, p, m.(*cupidv1.GetTicketRequest).GetId())
	}},
	cupidv1connect.TicketServiceCancelTicketProcedure: {scope: ScopeTickets, player: func(_ *Auth, ctx context.Context, l ticketPlayers, p string, m any) error {
		return inTicket(ctx, l, p, m.(*cupidv1.CancelTicketRequest).GetId())
	}},
	cupidv1connect.TicketServiceAcceptOfferProcedure: {scope: ScopeTickets, player: func(_ *Auth, ctx context.Context, l ticketPlayers, p string, m any) error {
		return inTicket(ctx, l, p, m.(*cupidv1.AcceptOfferRequest).GetId())
	}},
	cupidv1connect.TicketServiceCancelTicketsProcedure: {scope: ScopeTickets, player: func(_ *Auth, ctx context.Context, l ticketPlayers, p string, m any) error {
		for _, id := range m.(*cupidv1.CancelTicketsRequest).GetIds() {
			if err := inTicket(ctx, l, p, id); err != nil {
				return err
			}
		}
		return nil
	}},
	cupidv1connect.TicketServiceWatchTicketProcedure: {scope: ScopeTickets, player: func(_ *Auth, ctx context.Context, l ticketPlayers, p string, m any) error {
		return inTicket(ctx, l, p, m.(*cupidv1.WatchTicketRequest).GetId())
	}},
	cupidv1connect.TicketServiceListTicketsProcedure: {scope: ScopeTickets},
	cupidv1connect.TicketServiceQueueStatsProcedure:  {scope: ScopeTickets},

	// The hand-off is the backend's; a player may read a match he is in,
	// which the handler checks (it needs the match's players).
	cupidv1connect.MatchServiceWatchMatchesProcedure: {scope: ScopeTickets},
	cupidv1connect.MatchServiceListMatchesProcedure:  {scope: ScopeTickets},
	cupidv1connect.MatchServiceAssignMatchProcedure:  {scope: ScopeTickets},
	// Game sessions are the backend's too, as the assignment is.
	cupidv1connect.MatchServiceOpenBackfillProcedure:  {scope: ScopeTickets},
	cupidv1connect.MatchServiceCloseBackfillProcedure: {scope: ScopeTickets},
	cupidv1connect.MatchServiceReportLeaversProcedure: {scope: ScopeTickets},
	cupidv1connect.MatchServiceEndSessionProcedure:    {scope: ScopeTickets},
	// A player answers a ready check for himself (accept.go).
	cupidv1connect.MatchServiceAcceptMatchProcedure: {scope: ScopeTickets, player: mayAnswer},
	cupidv1connect.MatchServiceGetMatchProcedure: {scope: ScopeTickets, player: func(_ *Auth, _ context.Context, _ ticketPlayers, _ string, _ any) error {
		return nil
	}},

	cupidv1connect.RulesetServiceValidateRulesetProcedure: {anyone: true},
	cupidv1connect.RulesetServiceGetRulesetProcedure:      {anyone: true},
	cupidv1connect.RulesetServicePutRulesetProcedure:      {scope: ScopeRulesets},
	// An import changes nothing, but it is an operator's tool (the
	// dashboard's editor), not a game client's.
	cupidv1connect.RulesetServiceImportRulesetProcedure: {scope: ScopeAdmin},
	// Shadows and canaries try rulesets on live traffic: admin keys only.
	cupidv1connect.RolloutServiceStartShadowProcedure:    {scope: ScopeAdmin},
	cupidv1connect.RolloutServiceStopShadowProcedure:     {scope: ScopeAdmin},
	cupidv1connect.RolloutServiceShadowReportProcedure:   {scope: ScopeAdmin},
	cupidv1connect.RolloutServiceStartCanaryProcedure:    {scope: ScopeAdmin},
	cupidv1connect.RolloutServiceCanaryStatusProcedure:   {scope: ScopeAdmin},
	cupidv1connect.RolloutServicePromoteCanaryProcedure:  {scope: ScopeAdmin},
	cupidv1connect.RolloutServiceRollbackCanaryProcedure: {scope: ScopeAdmin},

	cupidv1connect.PairingServiceCreateEventProcedure: {scope: ScopeEvents},
	cupidv1connect.PairingServiceGetEventProcedure:    {scope: ScopeEvents},
	cupidv1connect.PairingServiceListEventsProcedure:  {anyone: true},
	cupidv1connect.PairingServiceDeleteEventProcedure: {scope: ScopeEvents},
	cupidv1connect.PairingServiceMetGraphProcedure:    {scope: ScopeEvents},
	cupidv1connect.PairingServiceJoinProcedure:        {scope: ScopeEvents, player: asParticipant},
	cupidv1connect.PairingServiceLeaveProcedure:       {scope: ScopeEvents, player: asParticipant},
	cupidv1connect.PairingServiceEnterLobbyProcedure:  {scope: ScopeEvents, player: asParticipant},
	cupidv1connect.PairingServiceLeaveLobbyProcedure:  {scope: ScopeEvents, player: asParticipant},
	cupidv1connect.PairingServiceClearRecordProcedure: {scope: ScopeEvents, player: asParticipant},
	cupidv1connect.PairingServiceWatchEventProcedure: {scope: ScopeEvents, player: func(_ *Auth, _ context.Context, _ ticketPlayers, p string, m any) error {
		return sameParticipant(p, m.(*cupidv1.WatchEventRequest).GetParticipant())
	}},
	// A participant's own record, never list, answers, matches and dates
	// are his; the organiser's controls and the rounds (which name
	// everyone) are the backend's.
	cupidv1connect.PairingServiceForgetMeetingProcedure: {scope: ScopeEvents, player: asPeer},
	cupidv1connect.PairingServiceAddNeverProcedure:      {scope: ScopeEvents, player: asPeer},
	cupidv1connect.PairingServiceRemoveNeverProcedure:   {scope: ScopeEvents, player: asPeer},
	cupidv1connect.PairingServiceGetNeverListProcedure:  {scope: ScopeEvents, player: asParticipant},
	cupidv1connect.PairingServiceAnswerProcedure: {scope: ScopeEvents, player: func(_ *Auth, _ context.Context, _ ticketPlayers, p string, m any) error {
		return sameParticipant(p, m.(*cupidv1.AnswerRequest).GetParticipant())
	}},
	cupidv1connect.PairingServiceGetMatchesProcedure:     {scope: ScopeEvents, player: asParticipant},
	cupidv1connect.PairingServiceExtendDateProcedure:     {scope: ScopeEvents, player: asParticipant},
	cupidv1connect.PairingServiceRecordMeetingProcedure:  {scope: ScopeEvents},
	cupidv1connect.PairingServiceImportHistoryProcedure:  {scope: ScopeEvents},
	cupidv1connect.PairingServiceUpdateSettingsProcedure: {scope: ScopeEvents},
	cupidv1connect.PairingServiceStartRoundProcedure:     {scope: ScopeEvents},
	cupidv1connect.PairingServiceEndRoundProcedure:       {scope: ScopeEvents},
	cupidv1connect.PairingServicePauseEventProcedure:     {scope: ScopeEvents},
	cupidv1connect.PairingServiceResumeEventProcedure:    {scope: ScopeEvents},
	cupidv1connect.PairingServiceRevealMatchesProcedure:  {scope: ScopeEvents},
	cupidv1connect.PairingServiceGetRoundsProcedure:      {scope: ScopeEvents},

	cupidv1connect.OpponentServiceUpdatePlayerProcedure: {scope: ScopeOpponents, player: func(a *Auth, _ context.Context, _ ticketPlayers, p string, m any) error {
		r := m.(*cupidv1.UpdatePlayerRequest)
		if !a.playerFinders[r.GetFinder()] {
			return denied("finder %q does not let players update their own model (opponents[].players_may_update); a server key with the opponents scope may", r.GetFinder())
		}
		id := r.GetPlayerId()
		if id == "" {
			id = r.GetModel().GetId()
		}
		if id != p {
			return denied("the token's player %s may update only his own model, not %s", p, quoteEmpty(id))
		}
		return nil
	}},
	cupidv1connect.OpponentServiceFindOpponentProcedure: {scope: ScopeOpponents, player: func(_ *Auth, _ context.Context, _ ticketPlayers, p string, m any) error {
		if id := m.(*cupidv1.FindOpponentRequest).GetAttacker().GetId(); id != p {
			return denied("the token's player %s may look for opponents only as the attacker himself (attacker.id %s)", p, quoteEmpty(id))
		}
		return nil
	}},
	cupidv1connect.OpponentServiceConfirmAttackProcedure: {scope: ScopeOpponents, player: func(_ *Auth, _ context.Context, _ ticketPlayers, p string, m any) error {
		return asAttacker(p, m.(*cupidv1.ConfirmAttackRequest).GetAttackerId())
	}},
	cupidv1connect.OpponentServiceReleaseReservationProcedure: {scope: ScopeOpponents, player: func(_ *Auth, _ context.Context, _ ticketPlayers, p string, m any) error {
		return asAttacker(p, m.(*cupidv1.ReleaseReservationRequest).GetAttackerId())
	}},
	cupidv1connect.OpponentServiceSetPlayerOnlineProcedure: {scope: ScopeOpponents, player: func(a *Auth, _ context.Context, _ ticketPlayers, p string, m any) error {
		r := m.(*cupidv1.SetPlayerOnlineRequest)
		if !a.playerFinders[r.GetFinder()] {
			return denied("finder %q does not let players set their own online flag (opponents[].players_may_update); a server key with the opponents scope may", r.GetFinder())
		}
		if id := r.GetPlayerId(); id != p {
			return denied("the token's player %s may set only his own online flag, not %s's", p, quoteEmpty(id))
		}
		return nil
	}},
	cupidv1connect.OpponentServiceRemovePlayerProcedure: {scope: ScopeOpponents},
	cupidv1connect.OpponentServiceFinderStatsProcedure:  {scope: ScopeOpponents},
	cupidv1connect.OpponentServiceRebalanceProcedure:    {scope: ScopeOpponents},
}

// authorize decides whether c may call procedure with msg.
func (a *Auth) authorize(ctx context.Context, c *Caller, lookup ticketPlayers, procedure string, msg any) error {
	if c == nil {
		return errNoCredential
	}
	name := procedure[strings.LastIndexByte(procedure, '/')+1:]
	r, ok := rules[procedure]
	switch {
	case c.Key != nil && c.Key.has(ScopeAdmin):
		return nil
	case !ok:
		return denied("%s needs a server key with the admin scope", name)
	case r.anyone:
		return nil
	case c.Key != nil:
		if r.scope == "" || c.Key.has(r.scope) {
			return nil
		}
		return denied("%s needs the %s scope; server key %s has %s", name, r.scope, c.Key.Name, scopeList(c.Key.Scopes))
	case r.player == nil:
		return denied("%s needs a server key with the %s scope; a player token may not call it", name, r.scope)
	}
	return r.player(a, ctx, lookup, c.Player, msg)
}

// authorizeSocket decides whether c may open the WebSocket r asks for:
// a ticket's events for its players and keys with the tickets scope, an
// event's for the participant himself and keys with the events scope.
func (a *Auth) authorizeSocket(r *http.Request, c *Caller, lookup ticketPlayers) error {
	p := r.URL.Path
	if c.Key != nil && c.Key.has(ScopeAdmin) {
		return nil
	}
	if id, ok := cutBetween(p, "/v1/tickets/", "/ws"); ok {
		if c.Key != nil {
			if c.Key.has(ScopeTickets) {
				return nil
			}
			return denied("watching a ticket needs the tickets scope; server key %s has %s", c.Key.Name, scopeList(c.Key.Scopes))
		}
		return inTicket(r.Context(), lookup, c.Player, id)
	}
	if _, ok := cutBetween(p, "/v1/queues/", "/matches/ws"); ok {
		if c.Key != nil && c.Key.has(ScopeTickets) {
			return nil
		}
		if c.Key != nil {
			return denied("watching a queue's matches needs the tickets scope; server key %s has %s", c.Key.Name, scopeList(c.Key.Scopes))
		}
		return denied("watching a queue's matches needs a server key with the tickets scope; a player token may not")
	}
	if _, ok := cutBetween(p, "/v1/parties/", "/ws"); ok {
		return authorizePartySocket(r, c)
	}
	if _, ok := cutBetween(p, "/v1/events/", "/ws"); ok {
		if c.Key != nil {
			if c.Key.has(ScopeEvents) {
				return nil
			}
			return denied("watching an event needs the events scope; server key %s has %s", c.Key.Name, scopeList(c.Key.Scopes))
		}
		return sameParticipant(c.Player, r.URL.Query().Get("participant"))
	}
	return nil // not a WebSocket of ours: the mux answers 404
}

// cutBetween returns what is between prefix and suffix in s.
func cutBetween(s, prefix, suffix string) (string, bool) {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return "", false
	}
	mid, ok := strings.CutSuffix(rest, suffix)
	return mid, ok && mid != "" && !strings.Contains(mid, "/")
}

// asAttacker lets a player confirm or release only his own reservations:
// the request names the attacker, and the service checks the reservation
// is held for him.
func asAttacker(player, attacker string) error {
	if attacker != player {
		return denied("the token's player %s may confirm or release only reservations he holds as the attacker (attacker_id %s)", player, quoteEmpty(attacker))
	}
	return nil
}

func asParticipant(_ *Auth, _ context.Context, _ ticketPlayers, p string, m any) error {
	return sameParticipant(p, m.(*cupidv1.ParticipantRequest).GetParticipant())
}

func sameParticipant(player, participant string) error {
	if participant != player {
		return denied("the token's player %s may act in an event only as himself, not as participant %s", player, quoteEmpty(participant))
	}
	return nil
}

// onlyHimself is the consent rule: a player token's ticket names the
// token's player and nobody else. Naming another player would put him in a
// match he never asked for (and cancel his own tickets elsewhere when it
// forms), so a group queues through a party its members joined themselves
// (PartyService.Queue), or from a backend's server key. prefix places the
// field within a bulk call ("tickets[3].").
func onlyHimself(player string, ps []*cupidv1.Player, prefix string) error {
	for i, q := range ps {
		if q.GetId() != player {
			return cupid.Errorf(cupid.CodeDenied, prefix+"players["+strconv.Itoa(i)+"].id",
				"the token's player %s may queue only himself, not %s; to play together, players join a party and its leader queues it (PartyService), or a backend queues the group with a server key",
				player, quoteEmpty(q.GetId()))
		}
	}
	if len(ps) == 0 {
		return cupid.Errorf(cupid.CodeDenied, prefix+"players", "the token's player %s may queue only himself; the ticket names no player", player)
	}
	return nil
}

// inTicket checks that player is in ticket id.
func inTicket(ctx context.Context, lookup ticketPlayers, player, id string) error {
	if id == "" {
		return cupid.Invalid("id", "required")
	}
	ps, err := lookup(ctx, id)
	if err != nil {
		return err
	}
	if !slices.Contains(ps, player) {
		return denied("the token's player %s is not in ticket %s", player, id)
	}
	return nil
}

func scopeList(s []Scope) string {
	if len(s) == 0 {
		return "none"
	}
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = string(x)
	}
	return strings.Join(out, ", ")
}

func quoteEmpty(s string) string {
	if s == "" {
		return "(none given)"
	}
	return s
}

// handlerOptions returns the interceptor that authorizes Connect calls;
// none without auth.
func (a *Auth) handlerOptions(lookup ticketPlayers, log *slog.Logger) []connect.HandlerOption {
	if a == nil {
		return nil
	}
	return []connect.HandlerOption{connect.WithInterceptors(&authInterceptor{a: a, lookup: lookup, log: log})}
}

// authInterceptor authorizes each call once its request is read: unary
// calls before the handler runs, server streams as the handler receives
// the one request, so a refused call changes nothing.
type authInterceptor struct {
	a      *Auth
	lookup ticketPlayers
	log    *slog.Logger
}

func (i *authInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		if err := i.a.authorize(ctx, CallerFrom(ctx), i.lookup, req.Spec().Procedure, req.Any()); err != nil {
			return nil, connectError(i.log, err)
		}
		return next(ctx, req)
	}
}

func (i *authInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (i *authInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		return next(ctx, &authorizedConn{StreamingHandlerConn: conn, ctx: ctx, i: i})
	}
}

// authorizedConn authorizes every message the handler receives.
type authorizedConn struct {
	connect.StreamingHandlerConn
	ctx context.Context
	i   *authInterceptor
}

func (c *authorizedConn) Receive(msg any) error {
	if err := c.StreamingHandlerConn.Receive(msg); err != nil {
		return err
	}
	if err := c.i.a.authorize(c.ctx, CallerFrom(c.ctx), c.i.lookup, c.Spec().Procedure, msg); err != nil {
		return connectError(c.i.log, err)
	}
	return nil
}

// Reflection lists the services and describes their messages: what the
// public proto files say, nothing of any caller; every authenticated
// caller may read it, as it may the rulesets.
func init() {
	for _, p := range reflectionProcedures {
		rules[p] = rule{anyone: true}
	}
}
