import type { GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Timestamp, Value } from "@bufbuild/protobuf/wkt";
import type { Assignment } from "./ticket_pb.js";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file cupid/v1/party.proto.
 */
export declare const file_cupid_v1_party: GenFile;
/**
 * PartyMember is a member with the values he set for himself.
 *
 * @generated from message cupid.v1.PartyMember
 */
export type PartyMember = Message<"cupid.v1.PartyMember"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * @generated from field: map<string, google.protobuf.Value> attributes = 2;
     */
    attributes: {
        [key: string]: Value;
    };
    /**
     * @generated from field: map<string, int32> latencies = 3;
     */
    latencies: {
        [key: string]: number;
    };
    /**
     * @generated from field: bool ready = 4;
     */
    ready: boolean;
    /**
     * @generated from field: google.protobuf.Timestamp joined_at = 5;
     */
    joinedAt?: Timestamp | undefined;
};
/**
 * Describes the message cupid.v1.PartyMember.
 * Use `create(PartyMemberSchema)` to create a new message.
 */
export declare const PartyMemberSchema: GenMessage<PartyMember>;
/**
 * PartyInvite is a pending invitation.
 *
 * @generated from message cupid.v1.PartyInvite
 */
export type PartyInvite = Message<"cupid.v1.PartyInvite"> & {
    /**
     * @generated from field: string player = 1;
     */
    player: string;
    /**
     * @generated from field: string invited_by = 2;
     */
    invitedBy: string;
    /**
     * @generated from field: google.protobuf.Timestamp expires_at = 3;
     */
    expiresAt?: Timestamp | undefined;
    /**
     * The party's id and leader (set by ListInvites).
     *
     * @generated from field: string party_id = 4;
     */
    partyId: string;
    /**
     * @generated from field: string leader = 5;
     */
    leader: string;
};
/**
 * Describes the message cupid.v1.PartyInvite.
 * Use `create(PartyInviteSchema)` to create a new message.
 */
export declare const PartyInviteSchema: GenMessage<PartyInvite>;
/**
 * Party is a party's whole state.
 *
 * @generated from message cupid.v1.Party
 */
export type Party = Message<"cupid.v1.Party"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * @generated from field: string leader = 2;
     */
    leader: string;
    /**
     * Members in the order they joined.
     *
     * @generated from field: repeated cupid.v1.PartyMember members = 3;
     */
    members: PartyMember[];
    /**
     * @generated from field: repeated cupid.v1.PartyInvite invites = 4;
     */
    invites: PartyInvite[];
    /**
     * The join code: anyone who has it may join while the party has room.
     *
     * @generated from field: string code = 5;
     */
    code: string;
    /**
     * idle, queued (its ticket waits) or matched (its match awaits a
     * server); idle again after the match is assigned.
     *
     * @generated from field: string phase = 6;
     */
    phase: string;
    /**
     * @generated from field: string queue = 7;
     */
    queue: string;
    /**
     * @generated from field: string ticket_id = 8;
     */
    ticketId: string;
    /**
     * @generated from field: string match_id = 9;
     */
    matchId: string;
    /**
     * The sequence number of the party's last event (for WatchParty).
     *
     * @generated from field: int64 seq = 10;
     */
    seq: bigint;
    /**
     * @generated from field: google.protobuf.Timestamp created_at = 11;
     */
    createdAt?: Timestamp | undefined;
};
/**
 * Describes the message cupid.v1.Party.
 * Use `create(PartySchema)` to create a new message.
 */
export declare const PartySchema: GenMessage<Party>;
/**
 * PartyEvent is one change of a party: created, invited, declined,
 * invite_expired, joined, left, removed, leader, ready, member, queued,
 * matched, assigned, requeued, cancelled, disbanded.
 *
 * @generated from message cupid.v1.PartyEvent
 */
export type PartyEvent = Message<"cupid.v1.PartyEvent"> & {
    /**
     * @generated from field: int64 seq = 1;
     */
    seq: bigint;
    /**
     * @generated from field: string party_id = 2;
     */
    partyId: string;
    /**
     * @generated from field: string kind = 3;
     */
    kind: string;
    /**
     * @generated from field: google.protobuf.Timestamp at = 4;
     */
    at?: Timestamp | undefined;
    /**
     * Whom it is about, and who did it when someone else did.
     *
     * @generated from field: string player = 5;
     */
    player: string;
    /**
     * @generated from field: string by = 6;
     */
    by: string;
    /**
     * @generated from field: bool ready = 7;
     */
    ready: boolean;
    /**
     * @generated from field: string queue = 8;
     */
    queue: string;
    /**
     * @generated from field: string ticket_id = 9;
     */
    ticketId: string;
    /**
     * @generated from field: string match_id = 10;
     */
    matchId: string;
    /**
     * @generated from field: cupid.v1.Assignment assignment = 11;
     */
    assignment?: Assignment | undefined;
    /**
     * Why the party's ticket was cancelled, or a leader changed.
     *
     * @generated from field: string reason = 12;
     */
    reason: string;
};
/**
 * Describes the message cupid.v1.PartyEvent.
 * Use `create(PartyEventSchema)` to create a new message.
 */
export declare const PartyEventSchema: GenMessage<PartyEvent>;
/**
 * @generated from message cupid.v1.PartyResponse
 */
export type PartyResponse = Message<"cupid.v1.PartyResponse"> & {
    /**
     * @generated from field: cupid.v1.Party party = 1;
     */
    party?: Party | undefined;
};
/**
 * Describes the message cupid.v1.PartyResponse.
 * Use `create(PartyResponseSchema)` to create a new message.
 */
export declare const PartyResponseSchema: GenMessage<PartyResponse>;
/**
 * @generated from message cupid.v1.CreatePartyRequest
 */
export type CreatePartyRequest = Message<"cupid.v1.CreatePartyRequest"> & {
    /**
     * @generated from field: string player = 1;
     */
    player: string;
    /**
     * @generated from field: map<string, google.protobuf.Value> attributes = 2;
     */
    attributes: {
        [key: string]: Value;
    };
    /**
     * @generated from field: map<string, int32> latencies = 3;
     */
    latencies: {
        [key: string]: number;
    };
};
/**
 * Describes the message cupid.v1.CreatePartyRequest.
 * Use `create(CreatePartyRequestSchema)` to create a new message.
 */
export declare const CreatePartyRequestSchema: GenMessage<CreatePartyRequest>;
/**
 * @generated from message cupid.v1.GetPartyRequest
 */
export type GetPartyRequest = Message<"cupid.v1.GetPartyRequest"> & {
    /**
     * @generated from field: string party_id = 1;
     */
    partyId: string;
    /**
     * @generated from field: string player = 2;
     */
    player: string;
};
/**
 * Describes the message cupid.v1.GetPartyRequest.
 * Use `create(GetPartyRequestSchema)` to create a new message.
 */
export declare const GetPartyRequestSchema: GenMessage<GetPartyRequest>;
/**
 * @generated from message cupid.v1.InviteRequest
 */
export type InviteRequest = Message<"cupid.v1.InviteRequest"> & {
    /**
     * @generated from field: string party_id = 1;
     */
    partyId: string;
    /**
     * @generated from field: string player = 2;
     */
    player: string;
    /**
     * @generated from field: string invitee = 3;
     */
    invitee: string;
};
/**
 * Describes the message cupid.v1.InviteRequest.
 * Use `create(InviteRequestSchema)` to create a new message.
 */
export declare const InviteRequestSchema: GenMessage<InviteRequest>;
/**
 * @generated from message cupid.v1.ListInvitesRequest
 */
export type ListInvitesRequest = Message<"cupid.v1.ListInvitesRequest"> & {
    /**
     * @generated from field: string player = 1;
     */
    player: string;
};
/**
 * Describes the message cupid.v1.ListInvitesRequest.
 * Use `create(ListInvitesRequestSchema)` to create a new message.
 */
export declare const ListInvitesRequestSchema: GenMessage<ListInvitesRequest>;
/**
 * @generated from message cupid.v1.ListInvitesResponse
 */
export type ListInvitesResponse = Message<"cupid.v1.ListInvitesResponse"> & {
    /**
     * @generated from field: repeated cupid.v1.PartyInvite invites = 1;
     */
    invites: PartyInvite[];
};
/**
 * Describes the message cupid.v1.ListInvitesResponse.
 * Use `create(ListInvitesResponseSchema)` to create a new message.
 */
export declare const ListInvitesResponseSchema: GenMessage<ListInvitesResponse>;
/**
 * @generated from message cupid.v1.AnswerInviteRequest
 */
export type AnswerInviteRequest = Message<"cupid.v1.AnswerInviteRequest"> & {
    /**
     * @generated from field: string party_id = 1;
     */
    partyId: string;
    /**
     * @generated from field: string player = 2;
     */
    player: string;
    /**
     * @generated from field: bool accept = 3;
     */
    accept: boolean;
    /**
     * The player's own values, when he accepts.
     *
     * @generated from field: map<string, google.protobuf.Value> attributes = 4;
     */
    attributes: {
        [key: string]: Value;
    };
    /**
     * @generated from field: map<string, int32> latencies = 5;
     */
    latencies: {
        [key: string]: number;
    };
};
/**
 * Describes the message cupid.v1.AnswerInviteRequest.
 * Use `create(AnswerInviteRequestSchema)` to create a new message.
 */
export declare const AnswerInviteRequestSchema: GenMessage<AnswerInviteRequest>;
/**
 * @generated from message cupid.v1.JoinByCodeRequest
 */
export type JoinByCodeRequest = Message<"cupid.v1.JoinByCodeRequest"> & {
    /**
     * @generated from field: string code = 1;
     */
    code: string;
    /**
     * @generated from field: string player = 2;
     */
    player: string;
    /**
     * @generated from field: map<string, google.protobuf.Value> attributes = 3;
     */
    attributes: {
        [key: string]: Value;
    };
    /**
     * @generated from field: map<string, int32> latencies = 4;
     */
    latencies: {
        [key: string]: number;
    };
};
/**
 * Describes the message cupid.v1.JoinByCodeRequest.
 * Use `create(JoinByCodeRequestSchema)` to create a new message.
 */
export declare const JoinByCodeRequestSchema: GenMessage<JoinByCodeRequest>;
/**
 * @generated from message cupid.v1.PartyMemberRequest
 */
export type PartyMemberRequest = Message<"cupid.v1.PartyMemberRequest"> & {
    /**
     * @generated from field: string party_id = 1;
     */
    partyId: string;
    /**
     * @generated from field: string player = 2;
     */
    player: string;
};
/**
 * Describes the message cupid.v1.PartyMemberRequest.
 * Use `create(PartyMemberRequestSchema)` to create a new message.
 */
export declare const PartyMemberRequestSchema: GenMessage<PartyMemberRequest>;
/**
 * @generated from message cupid.v1.RemoveRequest
 */
export type RemoveRequest = Message<"cupid.v1.RemoveRequest"> & {
    /**
     * @generated from field: string party_id = 1;
     */
    partyId: string;
    /**
     * @generated from field: string player = 2;
     */
    player: string;
    /**
     * @generated from field: string member = 3;
     */
    member: string;
};
/**
 * Describes the message cupid.v1.RemoveRequest.
 * Use `create(RemoveRequestSchema)` to create a new message.
 */
export declare const RemoveRequestSchema: GenMessage<RemoveRequest>;
/**
 * @generated from message cupid.v1.HandOverRequest
 */
export type HandOverRequest = Message<"cupid.v1.HandOverRequest"> & {
    /**
     * @generated from field: string party_id = 1;
     */
    partyId: string;
    /**
     * @generated from field: string player = 2;
     */
    player: string;
    /**
     * @generated from field: string to = 3;
     */
    to: string;
};
/**
 * Describes the message cupid.v1.HandOverRequest.
 * Use `create(HandOverRequestSchema)` to create a new message.
 */
export declare const HandOverRequestSchema: GenMessage<HandOverRequest>;
/**
 * @generated from message cupid.v1.SetPartyReadyRequest
 */
export type SetPartyReadyRequest = Message<"cupid.v1.SetPartyReadyRequest"> & {
    /**
     * @generated from field: string party_id = 1;
     */
    partyId: string;
    /**
     * @generated from field: string player = 2;
     */
    player: string;
    /**
     * @generated from field: bool ready = 3;
     */
    ready: boolean;
};
/**
 * Describes the message cupid.v1.SetPartyReadyRequest.
 * Use `create(SetPartyReadyRequestSchema)` to create a new message.
 */
export declare const SetPartyReadyRequestSchema: GenMessage<SetPartyReadyRequest>;
/**
 * @generated from message cupid.v1.SetMemberRequest
 */
export type SetMemberRequest = Message<"cupid.v1.SetMemberRequest"> & {
    /**
     * @generated from field: string party_id = 1;
     */
    partyId: string;
    /**
     * @generated from field: string player = 2;
     */
    player: string;
    /**
     * @generated from field: map<string, google.protobuf.Value> attributes = 3;
     */
    attributes: {
        [key: string]: Value;
    };
    /**
     * @generated from field: map<string, int32> latencies = 4;
     */
    latencies: {
        [key: string]: number;
    };
};
/**
 * Describes the message cupid.v1.SetMemberRequest.
 * Use `create(SetMemberRequestSchema)` to create a new message.
 */
export declare const SetMemberRequestSchema: GenMessage<SetMemberRequest>;
/**
 * @generated from message cupid.v1.QueuePartyRequest
 */
export type QueuePartyRequest = Message<"cupid.v1.QueuePartyRequest"> & {
    /**
     * @generated from field: string party_id = 1;
     */
    partyId: string;
    /**
     * @generated from field: string player = 2;
     */
    player: string;
    /**
     * @generated from field: string queue = 3;
     */
    queue: string;
};
/**
 * Describes the message cupid.v1.QueuePartyRequest.
 * Use `create(QueuePartyRequestSchema)` to create a new message.
 */
export declare const QueuePartyRequestSchema: GenMessage<QueuePartyRequest>;
/**
 * @generated from message cupid.v1.WatchPartyRequest
 */
export type WatchPartyRequest = Message<"cupid.v1.WatchPartyRequest"> & {
    /**
     * @generated from field: string party_id = 1;
     */
    partyId: string;
    /**
     * @generated from field: string player = 2;
     */
    player: string;
    /**
     * @generated from field: int64 after_seq = 3;
     */
    afterSeq: bigint;
};
/**
 * Describes the message cupid.v1.WatchPartyRequest.
 * Use `create(WatchPartyRequestSchema)` to create a new message.
 */
export declare const WatchPartyRequestSchema: GenMessage<WatchPartyRequest>;
/**
 * PartyService lets players choose whom they play with: a player creates a
 * party and leads it, invites players (who accept or decline with their own
 * token) or shares its join code, and queues it as one ticket naming every
 * member with his own attributes and latencies. Every request names the
 * acting player in `player`: a player token may act only as its own player,
 * a server key (tickets scope) for any. Leader-only calls (Remove, HandOver,
 * Queue, CancelQueue) are refused to other members with permission_denied.
 *
 * @generated from service cupid.v1.PartyService
 */
export declare const PartyService: GenService<{
    /**
     * CreateParty makes a party of one, led by player, with a join code.
     *
     * @generated from rpc cupid.v1.PartyService.CreateParty
     */
    createParty: {
        methodKind: "unary";
        input: typeof CreatePartyRequestSchema;
        output: typeof PartyResponseSchema;
    };
    /**
     * GetParty returns a party (by party_id, or player's own when party_id
     * is empty) to its members and invitees.
     *
     * @generated from rpc cupid.v1.PartyService.GetParty
     */
    getParty: {
        methodKind: "unary";
        input: typeof GetPartyRequestSchema;
        output: typeof PartyResponseSchema;
    };
    /**
     * Invite invites invitee; any member may. Invites expire.
     *
     * @generated from rpc cupid.v1.PartyService.Invite
     */
    invite: {
        methodKind: "unary";
        input: typeof InviteRequestSchema;
        output: typeof PartyResponseSchema;
    };
    /**
     * ListInvites lists player's pending invites, each with its party's id,
     * so a client shows what waits for his answer.
     *
     * @generated from rpc cupid.v1.PartyService.ListInvites
     */
    listInvites: {
        methodKind: "unary";
        input: typeof ListInvitesRequestSchema;
        output: typeof ListInvitesResponseSchema;
    };
    /**
     * AnswerInvite is the invitee's: accept joins him, decline drops it.
     *
     * @generated from rpc cupid.v1.PartyService.AnswerInvite
     */
    answerInvite: {
        methodKind: "unary";
        input: typeof AnswerInviteRequestSchema;
        output: typeof PartyResponseSchema;
    };
    /**
     * JoinByCode joins player to the party whose join code he gives.
     *
     * @generated from rpc cupid.v1.PartyService.JoinByCode
     */
    joinByCode: {
        methodKind: "unary";
        input: typeof JoinByCodeRequestSchema;
        output: typeof PartyResponseSchema;
    };
    /**
     * Leave takes player out of the party; a leader who leaves is followed
     * by the member who joined earliest; the last member's leaving ends it.
     * A member who leaves a queued party cancels its ticket.
     *
     * @generated from rpc cupid.v1.PartyService.Leave
     */
    leave: {
        methodKind: "unary";
        input: typeof PartyMemberRequestSchema;
        output: typeof PartyResponseSchema;
    };
    /**
     * Remove is the leader's: member leaves the party.
     *
     * @generated from rpc cupid.v1.PartyService.Remove
     */
    remove: {
        methodKind: "unary";
        input: typeof RemoveRequestSchema;
        output: typeof PartyResponseSchema;
    };
    /**
     * HandOver is the leader's: to leads from now on.
     *
     * @generated from rpc cupid.v1.PartyService.HandOver
     */
    handOver: {
        methodKind: "unary";
        input: typeof HandOverRequestSchema;
        output: typeof PartyResponseSchema;
    };
    /**
     * SetReady marks player ready or not; not ready while the party is
     * queued cancels its ticket.
     *
     * @generated from rpc cupid.v1.PartyService.SetReady
     */
    setReady: {
        methodKind: "unary";
        input: typeof SetPartyReadyRequestSchema;
        output: typeof PartyResponseSchema;
    };
    /**
     * SetMember replaces player's own attributes and latencies, which the
     * party's next ticket carries.
     *
     * @generated from rpc cupid.v1.PartyService.SetMember
     */
    setMember: {
        methodKind: "unary";
        input: typeof SetMemberRequestSchema;
        output: typeof PartyResponseSchema;
    };
    /**
     * Queue is the leader's: one ticket naming every member is created in
     * queue, and the party follows it (queued, matched, assigned, cancelled).
     *
     * @generated from rpc cupid.v1.PartyService.Queue
     */
    queue: {
        methodKind: "unary";
        input: typeof QueuePartyRequestSchema;
        output: typeof PartyResponseSchema;
    };
    /**
     * CancelQueue is the leader's: the party's waiting ticket is cancelled.
     *
     * @generated from rpc cupid.v1.PartyService.CancelQueue
     */
    cancelQueue: {
        methodKind: "unary";
        input: typeof PartyMemberRequestSchema;
        output: typeof PartyResponseSchema;
    };
    /**
     * WatchParty streams the party's events after after_seq (the party keeps
     * its latest 64), then live ones, until it ends or player leaves it.
     *
     * @generated from rpc cupid.v1.PartyService.WatchParty
     */
    watchParty: {
        methodKind: "server_streaming";
        input: typeof WatchPartyRequestSchema;
        output: typeof PartyEventSchema;
    };
}>;
