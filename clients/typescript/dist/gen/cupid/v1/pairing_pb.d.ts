import type { GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file cupid/v1/pairing.proto.
 */
export declare const file_cupid_v1_pairing: GenFile;
/**
 * @generated from message cupid.v1.EventSettings
 */
export type EventSettings = Message<"cupid.v1.EventSettings"> & {
    /**
     * Private rooms available to pairs (at least 1); required.
     *
     * @generated from field: int32 rooms = 1;
     */
    rooms: number;
    /**
     * Length of a round, in seconds (at most a day). Zero (left out, and
     * round_millis too) takes the server's default, 5 minutes unless its
     * configuration says otherwise.
     *
     * @generated from field: int32 round_seconds = 2;
     */
    roundSeconds: number;
    /**
     * Countdown before a round, in seconds (at most an hour). Zero takes the
     * server's default, 30 seconds unless configured.
     *
     * @generated from field: int32 countdown_seconds = 3;
     */
    countdownSeconds: number;
    /**
     * People needed in the lobby to start the countdown (at least 2). Zero
     * takes the server's default, 2 unless configured.
     *
     * @generated from field: int32 min_lobby = 4;
     */
    minLobby: number;
    /**
     * Length of a round in milliseconds, for fast-paced events and tests; give
     * it or round_seconds, not both.
     *
     * @generated from field: int32 round_millis = 5;
     */
    roundMillis: number;
    /**
     * Countdown before a round in milliseconds; give it or countdown_seconds,
     * not both.
     *
     * @generated from field: int32 countdown_millis = 6;
     */
    countdownMillis: number;
    /**
     * Who may be paired: open (anyone, the default), two_sided (across the
     * two sides only), within_group or cross_group. Fixed at creation.
     *
     * @generated from field: string mode = 7;
     */
    mode: string;
    /**
     * The two sides of a two_sided event; the first stays in its rooms.
     *
     * @generated from field: repeated string sides = 8;
     */
    sides: string[];
    /**
     * Seat one leftover person with a pair as a trio instead of sitting
     * them out.
     *
     * @generated from field: optional bool trios = 9;
     */
    trios?: boolean | undefined;
    /**
     * Least time a date lasts before a participant may leave it for the
     * lobby or the organiser end the round, in seconds (at most the round).
     *
     * @generated from field: optional int32 min_date_seconds = 10;
     */
    minDateSeconds?: number | undefined;
    /**
     * Time added to a date when everyone in it asks, in seconds; zero
     * turns extensions off.
     *
     * @generated from field: optional int32 extension_seconds = 11;
     */
    extensionSeconds?: number | undefined;
    /**
     * When mutual answers are revealed; left out, when the organiser calls
     * RevealMatches.
     *
     * @generated from field: google.protobuf.Timestamp reveal_at = 12;
     */
    revealAt?: Timestamp | undefined;
    /**
     * The series of events this one belongs to (a weekly night): nobody is
     * paired with someone they met in an earlier event of the series, as the
     * encounter history remembers it. Empty: a standalone event.
     *
     * @generated from field: string series = 13;
     */
    series: string;
    /**
     * The exposure cap: nobody has more than max_dates dates within
     * dates_window_seconds (or, with no window, in the whole event), so that
     * the people the rounds keep choosing (the short side of an uneven
     * event) are not on dates round after round; a capped participant sits
     * the round out (sat_out with capped). Zero: no cap; at most 100.
     *
     * @generated from field: optional int32 max_dates = 14;
     */
    maxDates?: number | undefined;
    /**
     * The window max_dates counts in, in seconds (at most a day); zero: the
     * whole event. Only with max_dates.
     *
     * @generated from field: optional int32 dates_window_seconds = 15;
     */
    datesWindowSeconds?: number | undefined;
};
/**
 * Describes the message cupid.v1.EventSettings.
 * Use `create(EventSettingsSchema)` to create a new message.
 */
export declare const EventSettingsSchema: GenMessage<EventSettings>;
/**
 * @generated from message cupid.v1.CreateEventRequest
 */
export type CreateEventRequest = Message<"cupid.v1.CreateEventRequest"> & {
    /**
     * Optional caller-chosen id; generated when empty.
     *
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * @generated from field: string name = 2;
     */
    name: string;
    /**
     * @generated from field: cupid.v1.EventSettings settings = 3;
     */
    settings?: EventSettings | undefined;
    /**
     * Seed of the event's random tie-breaking; random when zero.
     *
     * @generated from field: uint64 seed = 4;
     */
    seed: bigint;
};
/**
 * Describes the message cupid.v1.CreateEventRequest.
 * Use `create(CreateEventRequestSchema)` to create a new message.
 */
export declare const CreateEventRequestSchema: GenMessage<CreateEventRequest>;
/**
 * @generated from message cupid.v1.CreateEventResponse
 */
export type CreateEventResponse = Message<"cupid.v1.CreateEventResponse"> & {
    /**
     * @generated from field: cupid.v1.Event event = 1;
     */
    event?: Event | undefined;
};
/**
 * Describes the message cupid.v1.CreateEventResponse.
 * Use `create(CreateEventResponseSchema)` to create a new message.
 */
export declare const CreateEventResponseSchema: GenMessage<CreateEventResponse>;
/**
 * @generated from message cupid.v1.GetEventRequest
 */
export type GetEventRequest = Message<"cupid.v1.GetEventRequest"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
};
/**
 * Describes the message cupid.v1.GetEventRequest.
 * Use `create(GetEventRequestSchema)` to create a new message.
 */
export declare const GetEventRequestSchema: GenMessage<GetEventRequest>;
/**
 * @generated from message cupid.v1.GetEventResponse
 */
export type GetEventResponse = Message<"cupid.v1.GetEventResponse"> & {
    /**
     * @generated from field: cupid.v1.Event event = 1;
     */
    event?: Event | undefined;
};
/**
 * Describes the message cupid.v1.GetEventResponse.
 * Use `create(GetEventResponseSchema)` to create a new message.
 */
export declare const GetEventResponseSchema: GenMessage<GetEventResponse>;
/**
 * @generated from message cupid.v1.ListEventsRequest
 */
export type ListEventsRequest = Message<"cupid.v1.ListEventsRequest"> & {};
/**
 * Describes the message cupid.v1.ListEventsRequest.
 * Use `create(ListEventsRequestSchema)` to create a new message.
 */
export declare const ListEventsRequestSchema: GenMessage<ListEventsRequest>;
/**
 * @generated from message cupid.v1.ListEventsResponse
 */
export type ListEventsResponse = Message<"cupid.v1.ListEventsResponse"> & {
    /**
     * Every event by id, with counts but without the lists of participants,
     * lobby and pairs (GetEvent has them).
     *
     * @generated from field: repeated cupid.v1.Event events = 1;
     */
    events: Event[];
};
/**
 * Describes the message cupid.v1.ListEventsResponse.
 * Use `create(ListEventsResponseSchema)` to create a new message.
 */
export declare const ListEventsResponseSchema: GenMessage<ListEventsResponse>;
/**
 * @generated from message cupid.v1.DeleteEventRequest
 */
export type DeleteEventRequest = Message<"cupid.v1.DeleteEventRequest"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
};
/**
 * Describes the message cupid.v1.DeleteEventRequest.
 * Use `create(DeleteEventRequestSchema)` to create a new message.
 */
export declare const DeleteEventRequestSchema: GenMessage<DeleteEventRequest>;
/**
 * @generated from message cupid.v1.DeleteEventResponse
 */
export type DeleteEventResponse = Message<"cupid.v1.DeleteEventResponse"> & {};
/**
 * Describes the message cupid.v1.DeleteEventResponse.
 * Use `create(DeleteEventResponseSchema)` to create a new message.
 */
export declare const DeleteEventResponseSchema: GenMessage<DeleteEventResponse>;
/**
 * @generated from message cupid.v1.ParticipantRequest
 */
export type ParticipantRequest = Message<"cupid.v1.ParticipantRequest"> & {
    /**
     * @generated from field: string event_id = 1;
     */
    eventId: string;
    /**
     * @generated from field: string participant = 2;
     */
    participant: string;
    /**
     * On Join: the participant's group, or side in a two_sided event
     * (required in those modes, refused in an open event).
     *
     * @generated from field: string group = 3;
     */
    group: string;
};
/**
 * Describes the message cupid.v1.ParticipantRequest.
 * Use `create(ParticipantRequestSchema)` to create a new message.
 */
export declare const ParticipantRequestSchema: GenMessage<ParticipantRequest>;
/**
 * @generated from message cupid.v1.EventRequest
 */
export type EventRequest = Message<"cupid.v1.EventRequest"> & {
    /**
     * @generated from field: string event_id = 1;
     */
    eventId: string;
};
/**
 * Describes the message cupid.v1.EventRequest.
 * Use `create(EventRequestSchema)` to create a new message.
 */
export declare const EventRequestSchema: GenMessage<EventRequest>;
/**
 * @generated from message cupid.v1.EventResponse
 */
export type EventResponse = Message<"cupid.v1.EventResponse"> & {
    /**
     * The event after the call, with its counts but without the lists.
     *
     * @generated from field: cupid.v1.Event event = 1;
     */
    event?: Event | undefined;
};
/**
 * Describes the message cupid.v1.EventResponse.
 * Use `create(EventResponseSchema)` to create a new message.
 */
export declare const EventResponseSchema: GenMessage<EventResponse>;
/**
 * @generated from message cupid.v1.RecordMeetingRequest
 */
export type RecordMeetingRequest = Message<"cupid.v1.RecordMeetingRequest"> & {
    /**
     * @generated from field: string event_id = 1;
     */
    eventId: string;
    /**
     * @generated from field: string a = 2;
     */
    a: string;
    /**
     * @generated from field: string b = 3;
     */
    b: string;
};
/**
 * Describes the message cupid.v1.RecordMeetingRequest.
 * Use `create(RecordMeetingRequestSchema)` to create a new message.
 */
export declare const RecordMeetingRequestSchema: GenMessage<RecordMeetingRequest>;
/**
 * @generated from message cupid.v1.ImportHistoryRequest
 */
export type ImportHistoryRequest = Message<"cupid.v1.ImportHistoryRequest"> & {
    /**
     * @generated from field: string event_id = 1;
     */
    eventId: string;
    /**
     * Directed entries: from's record says it has met to. At most 10,000.
     *
     * @generated from field: repeated cupid.v1.MetEdge entries = 2;
     */
    entries: MetEdge[];
};
/**
 * Describes the message cupid.v1.ImportHistoryRequest.
 * Use `create(ImportHistoryRequestSchema)` to create a new message.
 */
export declare const ImportHistoryRequestSchema: GenMessage<ImportHistoryRequest>;
/**
 * PeerRequest is a participant's call about another person.
 *
 * @generated from message cupid.v1.PeerRequest
 */
export type PeerRequest = Message<"cupid.v1.PeerRequest"> & {
    /**
     * @generated from field: string event_id = 1;
     */
    eventId: string;
    /**
     * @generated from field: string participant = 2;
     */
    participant: string;
    /**
     * @generated from field: string other = 3;
     */
    other: string;
};
/**
 * Describes the message cupid.v1.PeerRequest.
 * Use `create(PeerRequestSchema)` to create a new message.
 */
export declare const PeerRequestSchema: GenMessage<PeerRequest>;
/**
 * @generated from message cupid.v1.NeverListResponse
 */
export type NeverListResponse = Message<"cupid.v1.NeverListResponse"> & {
    /**
     * The participant's own never list, sorted; nobody else sees it.
     *
     * @generated from field: repeated string never = 1;
     */
    never: string[];
};
/**
 * Describes the message cupid.v1.NeverListResponse.
 * Use `create(NeverListResponseSchema)` to create a new message.
 */
export declare const NeverListResponseSchema: GenMessage<NeverListResponse>;
/**
 * @generated from message cupid.v1.AnswerRequest
 */
export type AnswerRequest = Message<"cupid.v1.AnswerRequest"> & {
    /**
     * @generated from field: string event_id = 1;
     */
    eventId: string;
    /**
     * @generated from field: string participant = 2;
     */
    participant: string;
    /**
     * Someone the participant had a date with in this event.
     *
     * @generated from field: string other = 3;
     */
    other: string;
    /**
     * @generated from field: bool yes = 4;
     */
    yes: boolean;
};
/**
 * Describes the message cupid.v1.AnswerRequest.
 * Use `create(AnswerRequestSchema)` to create a new message.
 */
export declare const AnswerRequestSchema: GenMessage<AnswerRequest>;
/**
 * @generated from message cupid.v1.AnswerResponse
 */
export type AnswerResponse = Message<"cupid.v1.AnswerResponse"> & {};
/**
 * Describes the message cupid.v1.AnswerResponse.
 * Use `create(AnswerResponseSchema)` to create a new message.
 */
export declare const AnswerResponseSchema: GenMessage<AnswerResponse>;
/**
 * @generated from message cupid.v1.MatchesResponse
 */
export type MatchesResponse = Message<"cupid.v1.MatchesResponse"> & {
    /**
     * The people who said yes to the participant and got yes back, sorted.
     *
     * @generated from field: repeated string matches = 1;
     */
    matches: string[];
};
/**
 * Describes the message cupid.v1.MatchesResponse.
 * Use `create(MatchesResponseSchema)` to create a new message.
 */
export declare const MatchesResponseSchema: GenMessage<MatchesResponse>;
/**
 * @generated from message cupid.v1.UpdateSettingsRequest
 */
export type UpdateSettingsRequest = Message<"cupid.v1.UpdateSettingsRequest"> & {
    /**
     * @generated from field: string event_id = 1;
     */
    eventId: string;
    /**
     * The settings to change; fields left out (zero) keep their values.
     * mode and sides cannot change.
     *
     * @generated from field: cupid.v1.EventSettings settings = 2;
     */
    settings?: EventSettings | undefined;
};
/**
 * Describes the message cupid.v1.UpdateSettingsRequest.
 * Use `create(UpdateSettingsRequestSchema)` to create a new message.
 */
export declare const UpdateSettingsRequestSchema: GenMessage<UpdateSettingsRequest>;
/**
 * @generated from message cupid.v1.GetRoundsRequest
 */
export type GetRoundsRequest = Message<"cupid.v1.GetRoundsRequest"> & {
    /**
     * @generated from field: string event_id = 1;
     */
    eventId: string;
    /**
     * Rounds with a sequence number after this one; 0 for the oldest kept.
     *
     * @generated from field: int32 after_seq = 2;
     */
    afterSeq: number;
    /**
     * At most this many (1 to 100; 0 means 100).
     *
     * @generated from field: int32 limit = 3;
     */
    limit: number;
};
/**
 * Describes the message cupid.v1.GetRoundsRequest.
 * Use `create(GetRoundsRequestSchema)` to create a new message.
 */
export declare const GetRoundsRequestSchema: GenMessage<GetRoundsRequest>;
/**
 * @generated from message cupid.v1.GetRoundsResponse
 */
export type GetRoundsResponse = Message<"cupid.v1.GetRoundsResponse"> & {
    /**
     * @generated from field: repeated cupid.v1.RoundRecord rounds = 1;
     */
    rounds: RoundRecord[];
    /**
     * More rounds follow the last one returned.
     *
     * @generated from field: bool more = 2;
     */
    more: boolean;
};
/**
 * Describes the message cupid.v1.GetRoundsResponse.
 * Use `create(GetRoundsResponseSchema)` to create a new message.
 */
export declare const GetRoundsResponseSchema: GenMessage<GetRoundsResponse>;
/**
 * RoundRecord is one computed round: its lobby, rooms and sit-outs.
 *
 * @generated from message cupid.v1.RoundRecord
 */
export type RoundRecord = Message<"cupid.v1.RoundRecord"> & {
    /**
     * Numbers every computed round from 1, including rounds where nobody
     * could be paired.
     *
     * @generated from field: int32 seq = 1;
     */
    seq: number;
    /**
     * The round's number, or 0 when nobody could be paired.
     *
     * @generated from field: int32 round = 2;
     */
    round: number;
    /**
     * @generated from field: google.protobuf.Timestamp at = 3;
     */
    at?: Timestamp | undefined;
    /**
     * Everyone in the lobby when the round was computed, sorted.
     *
     * @generated from field: repeated string lobby = 4;
     */
    lobby: string[];
    /**
     * @generated from field: repeated cupid.v1.RoomPair rooms = 5;
     */
    rooms: RoomPair[];
    /**
     * @generated from field: repeated string sat_out = 6;
     */
    satOut: string[];
};
/**
 * Describes the message cupid.v1.RoundRecord.
 * Use `create(RoundRecordSchema)` to create a new message.
 */
export declare const RoundRecordSchema: GenMessage<RoundRecord>;
/**
 * @generated from message cupid.v1.ParticipantResponse
 */
export type ParticipantResponse = Message<"cupid.v1.ParticipantResponse"> & {
    /**
     * The event just after the call, with its counts but without the lists of
     * participants, lobby and pairs (GetEvent has them): an event of 10,000
     * people would otherwise send them back with every call.
     *
     * @generated from field: cupid.v1.Event event = 1;
     */
    event?: Event | undefined;
    /**
     * The participant's state after the call: away, lobby, room or gone.
     *
     * @generated from field: string state = 2;
     */
    state: string;
    /**
     * The room and partner, when the participant is in a room.
     *
     * @generated from field: int32 room = 3;
     */
    room: number;
    /**
     * @generated from field: string partner = 4;
     */
    partner: string;
    /**
     * The other partner, when the participant is in a trio.
     *
     * @generated from field: string third = 5;
     */
    third: string;
    /**
     * The participant's group or side, in an event that has them.
     *
     * @generated from field: string group = 6;
     */
    group: string;
};
/**
 * Describes the message cupid.v1.ParticipantResponse.
 * Use `create(ParticipantResponseSchema)` to create a new message.
 */
export declare const ParticipantResponseSchema: GenMessage<ParticipantResponse>;
/**
 * Event is a snapshot of a speed-dating event.
 *
 * @generated from message cupid.v1.Event
 */
export type Event = Message<"cupid.v1.Event"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * @generated from field: string name = 2;
     */
    name: string;
    /**
     * @generated from field: cupid.v1.EventSettings settings = 3;
     */
    settings?: EventSettings | undefined;
    /**
     * countdown, round or idle.
     *
     * @generated from field: string phase = 4;
     */
    phase: string;
    /**
     * @generated from field: int32 round = 5;
     */
    round: number;
    /**
     * @generated from field: google.protobuf.Timestamp deadline = 6;
     */
    deadline?: Timestamp | undefined;
    /**
     * @generated from field: repeated string participants = 7;
     */
    participants: string[];
    /**
     * @generated from field: repeated string lobby = 8;
     */
    lobby: string[];
    /**
     * @generated from field: repeated cupid.v1.RoomPair pairs = 9;
     */
    pairs: RoomPair[];
    /**
     * How many participants are present and how many of them wait in the
     * lobby (ListEvents leaves the lists out but keeps the counts).
     *
     * @generated from field: int32 participant_count = 10;
     */
    participantCount: number;
    /**
     * @generated from field: int32 lobby_count = 11;
     */
    lobbyCount: number;
    /**
     * @generated from field: google.protobuf.Timestamp created_at = 12;
     */
    createdAt?: Timestamp | undefined;
    /**
     * Set when the last round found nobody in the lobby who could be paired
     * and nothing has changed since: no countdown starts until something
     * does (someone enters the lobby, a record or never list shrinks, a
     * round ends).
     *
     * @generated from field: bool nobody_can_pair = 13;
     */
    nobodyCanPair: boolean;
    /**
     * @generated from field: bool paused = 14;
     */
    paused: boolean;
    /**
     * Mutual answers have been revealed.
     *
     * @generated from field: bool revealed = 15;
     */
    revealed: boolean;
    /**
     * Rounds computed so far, including those where nobody could be paired
     * (the sequence number of the last round record).
     *
     * @generated from field: int32 seq = 16;
     */
    seq: number;
};
/**
 * Describes the message cupid.v1.Event.
 * Use `create(EventSchema)` to create a new message.
 */
export declare const EventSchema: GenMessage<Event>;
/**
 * RoomPair is two participants in one room during a round.
 *
 * @generated from message cupid.v1.RoomPair
 */
export type RoomPair = Message<"cupid.v1.RoomPair"> & {
    /**
     * @generated from field: int32 room = 1;
     */
    room: number;
    /**
     * @generated from field: string a = 2;
     */
    a: string;
    /**
     * @generated from field: string b = 3;
     */
    b: string;
    /**
     * The third person of a trio.
     *
     * @generated from field: string c = 4;
     */
    c: string;
    /**
     * When an extended date ends (left out: with its round).
     *
     * @generated from field: google.protobuf.Timestamp until = 5;
     */
    until?: Timestamp | undefined;
};
/**
 * Describes the message cupid.v1.RoomPair.
 * Use `create(RoomPairSchema)` to create a new message.
 */
export declare const RoomPairSchema: GenMessage<RoomPair>;
/**
 * @generated from message cupid.v1.MetGraphRequest
 */
export type MetGraphRequest = Message<"cupid.v1.MetGraphRequest"> & {
    /**
     * @generated from field: string event_id = 1;
     */
    eventId: string;
};
/**
 * Describes the message cupid.v1.MetGraphRequest.
 * Use `create(MetGraphRequestSchema)` to create a new message.
 */
export declare const MetGraphRequestSchema: GenMessage<MetGraphRequest>;
/**
 * @generated from message cupid.v1.MetGraphResponse
 */
export type MetGraphResponse = Message<"cupid.v1.MetGraphResponse"> & {
    /**
     * @generated from field: repeated string participants = 1;
     */
    participants: string[];
    /**
     * A directed edge: from's record says it has met to.
     *
     * @generated from field: repeated cupid.v1.MetEdge edges = 2;
     */
    edges: MetEdge[];
    /**
     * Rounds started when the graph was taken: it holds the meetings of
     * rounds 1 to round.
     *
     * @generated from field: int32 round = 3;
     */
    round: number;
};
/**
 * Describes the message cupid.v1.MetGraphResponse.
 * Use `create(MetGraphResponseSchema)` to create a new message.
 */
export declare const MetGraphResponseSchema: GenMessage<MetGraphResponse>;
/**
 * @generated from message cupid.v1.MetEdge
 */
export type MetEdge = Message<"cupid.v1.MetEdge"> & {
    /**
     * @generated from field: string from = 1;
     */
    from: string;
    /**
     * @generated from field: string to = 2;
     */
    to: string;
};
/**
 * Describes the message cupid.v1.MetEdge.
 * Use `create(MetEdgeSchema)` to create a new message.
 */
export declare const MetEdgeSchema: GenMessage<MetEdge>;
/**
 * @generated from message cupid.v1.WatchEventRequest
 */
export type WatchEventRequest = Message<"cupid.v1.WatchEventRequest"> & {
    /**
     * @generated from field: string event_id = 1;
     */
    eventId: string;
    /**
     * Only this participant's notifications when set.
     *
     * @generated from field: string participant = 2;
     */
    participant: string;
    /**
     * For the organiser's watch: first replay the recorded rounds after
     * this sequence number (round_recorded), then go on live.
     *
     * @generated from field: optional int32 after_seq = 3;
     */
    afterSeq?: number | undefined;
};
/**
 * Describes the message cupid.v1.WatchEventRequest.
 * Use `create(WatchEventRequestSchema)` to create a new message.
 */
export declare const WatchEventRequestSchema: GenMessage<WatchEventRequest>;
/**
 * PairingNotification tells a participant (or the organiser) what happens.
 *
 * @generated from message cupid.v1.PairingNotification
 */
export type PairingNotification = Message<"cupid.v1.PairingNotification"> & {
    /**
     * watching (the first message of every watch: the state at that moment),
     * countdown_started, countdown_cancelled, round_started, paired, sat_out,
     * partner_left, trio_left, round_ended, round_recorded, paused, resumed,
     * date_extended, mutual_match, revealed, event_deleted (the last
     * message).
     *
     * @generated from field: string kind = 1;
     */
    kind: string;
    /**
     * @generated from field: string participant = 2;
     */
    participant: string;
    /**
     * @generated from field: string partner = 3;
     */
    partner: string;
    /**
     * @generated from field: int32 room = 4;
     */
    room: number;
    /**
     * @generated from field: int32 round = 5;
     */
    round: number;
    /**
     * @generated from field: google.protobuf.Timestamp deadline = 6;
     */
    deadline?: Timestamp | undefined;
    /**
     * @generated from field: google.protobuf.Timestamp at = 7;
     */
    at?: Timestamp | undefined;
    /**
     * On watching: the participant's state (away, lobby, room, gone, or empty
     * when they have not joined; empty for the organiser) and the event's
     * phase (idle, countdown, round).
     *
     * @generated from field: string state = 8;
     */
    state: string;
    /**
     * @generated from field: string phase = 9;
     */
    phase: string;
    /**
     * The other partner of a trio (paired, round_ended, date_extended), or
     * the one who left it (trio_left).
     *
     * @generated from field: string third = 10;
     */
    third: string;
    /**
     * On round_recorded the round's sequence number; on watching the last
     * one; on revealed the number of mutual pairs.
     *
     * @generated from field: int32 seq = 11;
     */
    seq: number;
    /**
     * On round_recorded: the round.
     *
     * @generated from field: cupid.v1.RoundRecord record = 12;
     */
    record?: RoundRecord | undefined;
    /**
     * On sat_out: the participant had as many dates as the event's
     * max_dates allows.
     *
     * @generated from field: bool capped = 13;
     */
    capped: boolean;
};
/**
 * Describes the message cupid.v1.PairingNotification.
 * Use `create(PairingNotificationSchema)` to create a new message.
 */
export declare const PairingNotificationSchema: GenMessage<PairingNotification>;
/**
 * PairingService runs speed-dating events: rounds that pair people in the
 * lobby with someone neither of them has met, the most pairs possible each
 * round, in private rooms with a timer.
 *
 * @generated from service cupid.v1.PairingService
 */
export declare const PairingService: GenService<{
    /**
     * @generated from rpc cupid.v1.PairingService.CreateEvent
     */
    createEvent: {
        methodKind: "unary";
        input: typeof CreateEventRequestSchema;
        output: typeof CreateEventResponseSchema;
    };
    /**
     * @generated from rpc cupid.v1.PairingService.GetEvent
     */
    getEvent: {
        methodKind: "unary";
        input: typeof GetEventRequestSchema;
        output: typeof GetEventResponseSchema;
    };
    /**
     * @generated from rpc cupid.v1.PairingService.ListEvents
     */
    listEvents: {
        methodKind: "unary";
        input: typeof ListEventsRequestSchema;
        output: typeof ListEventsResponseSchema;
    };
    /**
     * @generated from rpc cupid.v1.PairingService.DeleteEvent
     */
    deleteEvent: {
        methodKind: "unary";
        input: typeof DeleteEventRequestSchema;
        output: typeof DeleteEventResponseSchema;
    };
    /**
     * Join adds a participant, identified by a stable key (a display name
     * survives a crash and rejoin), to an event.
     *
     * @generated from rpc cupid.v1.PairingService.Join
     */
    join: {
        methodKind: "unary";
        input: typeof ParticipantRequestSchema;
        output: typeof ParticipantResponseSchema;
    };
    /**
     * Leave removes a participant; their partner in a running round is told.
     *
     * @generated from rpc cupid.v1.PairingService.Leave
     */
    leave: {
        methodKind: "unary";
        input: typeof ParticipantRequestSchema;
        output: typeof ParticipantResponseSchema;
    };
    /**
     * EnterLobby makes a participant available for the next round.
     *
     * @generated from rpc cupid.v1.PairingService.EnterLobby
     */
    enterLobby: {
        methodKind: "unary";
        input: typeof ParticipantRequestSchema;
        output: typeof ParticipantResponseSchema;
    };
    /**
     * LeaveLobby takes a break: no pairing until the participant comes back.
     *
     * @generated from rpc cupid.v1.PairingService.LeaveLobby
     */
    leaveLobby: {
        methodKind: "unary";
        input: typeof ParticipantRequestSchema;
        output: typeof ParticipantResponseSchema;
    };
    /**
     * ClearRecord forgets whom this participant has met, by their own
     * record; others still remember them.
     *
     * @generated from rpc cupid.v1.PairingService.ClearRecord
     */
    clearRecord: {
        methodKind: "unary";
        input: typeof ParticipantRequestSchema;
        output: typeof ParticipantResponseSchema;
    };
    /**
     * MetGraph returns who has met whom, by each side's record.
     *
     * @generated from rpc cupid.v1.PairingService.MetGraph
     */
    metGraph: {
        methodKind: "unary";
        input: typeof MetGraphRequestSchema;
        output: typeof MetGraphResponseSchema;
    };
    /**
     * WatchEvent streams an event's notifications: countdowns, rounds with
     * each pair's room, partners leaving, rounds ending. With a participant,
     * only that participant's notifications.
     *
     * @generated from rpc cupid.v1.PairingService.WatchEvent
     */
    watchEvent: {
        methodKind: "server_streaming";
        input: typeof WatchEventRequestSchema;
        output: typeof PairingNotificationSchema;
    };
    /**
     * RecordMeeting marks two people as having met, in both records, as a
     * round would (the organiser's "matched by an external rule").
     *
     * @generated from rpc cupid.v1.PairingService.RecordMeeting
     */
    recordMeeting: {
        methodKind: "unary";
        input: typeof RecordMeetingRequestSchema;
        output: typeof EventResponseSchema;
    };
    /**
     * ImportHistory adds directed record entries kept elsewhere.
     *
     * @generated from rpc cupid.v1.PairingService.ImportHistory
     */
    importHistory: {
        methodKind: "unary";
        input: typeof ImportHistoryRequestSchema;
        output: typeof EventResponseSchema;
    };
    /**
     * ForgetMeeting takes one person out of the participant's own record.
     *
     * @generated from rpc cupid.v1.PairingService.ForgetMeeting
     */
    forgetMeeting: {
        methodKind: "unary";
        input: typeof PeerRequestSchema;
        output: typeof ParticipantResponseSchema;
    };
    /**
     * AddNever and RemoveNever change the participant's private "never pair
     * me with" list; GetNeverList reads it.
     *
     * @generated from rpc cupid.v1.PairingService.AddNever
     */
    addNever: {
        methodKind: "unary";
        input: typeof PeerRequestSchema;
        output: typeof NeverListResponseSchema;
    };
    /**
     * @generated from rpc cupid.v1.PairingService.RemoveNever
     */
    removeNever: {
        methodKind: "unary";
        input: typeof PeerRequestSchema;
        output: typeof NeverListResponseSchema;
    };
    /**
     * @generated from rpc cupid.v1.PairingService.GetNeverList
     */
    getNeverList: {
        methodKind: "unary";
        input: typeof ParticipantRequestSchema;
        output: typeof NeverListResponseSchema;
    };
    /**
     * Answer records the participant's private "would meet again" answer
     * about someone they had a date with.
     *
     * @generated from rpc cupid.v1.PairingService.Answer
     */
    answer: {
        methodKind: "unary";
        input: typeof AnswerRequestSchema;
        output: typeof AnswerResponseSchema;
    };
    /**
     * GetMatches returns the participant's mutual yes answers once revealed.
     *
     * @generated from rpc cupid.v1.PairingService.GetMatches
     */
    getMatches: {
        methodKind: "unary";
        input: typeof ParticipantRequestSchema;
        output: typeof MatchesResponseSchema;
    };
    /**
     * ExtendDate asks for more time in the current date; the date is
     * extended when everyone in the room has asked.
     *
     * @generated from rpc cupid.v1.PairingService.ExtendDate
     */
    extendDate: {
        methodKind: "unary";
        input: typeof ParticipantRequestSchema;
        output: typeof ParticipantResponseSchema;
    };
    /**
     * The organiser's controls.
     *
     * @generated from rpc cupid.v1.PairingService.UpdateSettings
     */
    updateSettings: {
        methodKind: "unary";
        input: typeof UpdateSettingsRequestSchema;
        output: typeof EventResponseSchema;
    };
    /**
     * @generated from rpc cupid.v1.PairingService.StartRound
     */
    startRound: {
        methodKind: "unary";
        input: typeof EventRequestSchema;
        output: typeof EventResponseSchema;
    };
    /**
     * @generated from rpc cupid.v1.PairingService.EndRound
     */
    endRound: {
        methodKind: "unary";
        input: typeof EventRequestSchema;
        output: typeof EventResponseSchema;
    };
    /**
     * @generated from rpc cupid.v1.PairingService.PauseEvent
     */
    pauseEvent: {
        methodKind: "unary";
        input: typeof EventRequestSchema;
        output: typeof EventResponseSchema;
    };
    /**
     * @generated from rpc cupid.v1.PairingService.ResumeEvent
     */
    resumeEvent: {
        methodKind: "unary";
        input: typeof EventRequestSchema;
        output: typeof EventResponseSchema;
    };
    /**
     * @generated from rpc cupid.v1.PairingService.RevealMatches
     */
    revealMatches: {
        methodKind: "unary";
        input: typeof EventRequestSchema;
        output: typeof EventResponseSchema;
    };
    /**
     * GetRounds returns the recorded rounds after a sequence number.
     *
     * @generated from rpc cupid.v1.PairingService.GetRounds
     */
    getRounds: {
        methodKind: "unary";
        input: typeof GetRoundsRequestSchema;
        output: typeof GetRoundsResponseSchema;
    };
}>;
