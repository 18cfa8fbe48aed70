package pairing

import "time"

// Kind says what a notification announces. The values are the strings of
// the API's PairingNotification.kind.
type Kind string

// The kinds of notification.
const (
	// KindCountdownStarted tells a person in the lobby that a round will be
	// computed at Deadline. People entering the lobby during a countdown get
	// one too.
	KindCountdownStarted Kind = "countdown_started"
	// KindCountdownCancelled tells the people in the lobby that too few
	// remain for the countdown to go on.
	KindCountdownCancelled Kind = "countdown_cancelled"
	// KindRoundStarted is for the organiser (Participant is empty): round
	// Round has started and ends at Deadline.
	KindRoundStarted Kind = "round_started"
	// KindPaired tells a person to go to Room to meet Partner until
	// Deadline.
	KindPaired Kind = "paired"
	// KindSatOut tells a person in the lobby that they were not paired this
	// time (odd one out, nobody left they have not met, or no room free).
	// Deadline is when the next countdown can start at the earliest (the end
	// of the round), or zero when no round started. Capped says the
	// person had as many dates as Config.MaxDates allows.
	KindSatOut Kind = "sat_out"
	// KindPartnerLeft tells a person that Partner left Room; they are back
	// in the lobby.
	KindPartnerLeft Kind = "partner_left"
	// KindRoundEnded tells a person whose round in Room is over that they
	// are back in the lobby.
	KindRoundEnded Kind = "round_ended"
	// KindTrioLeft tells the two left in a trio that Third left Room;
	// their date with Partner goes on.
	KindTrioLeft Kind = "trio_left"
	// KindRoundRecorded is for the organiser: the round Seq was computed,
	// as Record says (also when nobody could be paired, with Round 0).
	KindRoundRecorded Kind = "round_recorded"
	// KindPaused and KindResumed go to the organiser and everyone in the
	// lobby or a room: every timer stops, or runs again (Deadline is the
	// phase's new deadline, if any).
	KindPaused  Kind = "paused"
	KindResumed Kind = "resumed"
	// KindDateExtended tells everyone in Room that all of them asked for
	// more time: their date now ends at Deadline.
	KindDateExtended Kind = "date_extended"
	// KindMutualMatch tells a person, at the reveal, that Partner also
	// said they would meet again. Only mutual answers are ever told.
	KindMutualMatch Kind = "mutual_match"
	// KindRevealed is for the organiser: the answers were revealed; Seq
	// counts the mutual pairs.
	KindRevealed Kind = "revealed"
)

// Notification is one message for one participant (or, with Participant
// empty, for the organiser). The server fans them out; the state machine
// only produces them.
type Notification struct {
	// Participant is whom it is for; empty means the organiser.
	Participant string `json:"participant,omitempty"`
	Kind        Kind   `json:"kind"`
	// Partner is the other person of the pair, for paired, partner_left
	// and round_ended.
	Partner string `json:"partner,omitempty"`
	// Third is the third person of a trio: on paired and round_ended the
	// other partner, on trio_left the one who left.
	Third string `json:"third,omitempty"`
	// Room is the room number (from 1), for paired, partner_left and
	// round_ended.
	Room int `json:"room,omitempty"`
	// Round is the round's number (from 1), when there is a round.
	Round int `json:"round,omitempty"`
	// Deadline is when what was announced ends: the countdown, or the
	// round (see each Kind).
	Deadline time.Time `json:"deadline,omitzero"`
	// At is when it happened: the time of the call that caused it.
	At time.Time `json:"at"`
	// Seq is the round's sequence number on round_recorded, and the
	// number of mutual pairs on revealed.
	Seq int `json:"seq,omitempty"`
	// Record is the round on round_recorded.
	Record *RoundRecord `json:"record,omitempty"`
	// Capped is set on sat_out when the exposure cap (Config.MaxDates)
	// held the person back.
	Capped bool `json:"capped,omitempty"`
}
