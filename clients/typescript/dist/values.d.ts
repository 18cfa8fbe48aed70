import { type Value } from "@bufbuild/protobuf/wkt";
/**
 * AttributeValue is what a player's or a ticket's attribute may hold: a
 * number, a string, a boolean or a list of strings (the server refuses
 * anything else, naming the field).
 */
export type AttributeValue = number | string | boolean | string[];
/** Attributes are named values, as in the queue's ruleset (mmr, mode, role …). */
export type Attributes = Record<string, AttributeValue>;
/**
 * toValues turns the caller's plain attributes into protobuf Values. A
 * value JSON cannot carry (NaN, ±Infinity, undefined, an object) is refused
 * here, naming its field as the server would, since it could not be sent.
 */
export declare function toValues(attrs: Attributes | undefined, path: string): Record<string, Value>;
/** fromValues turns protobuf Values back into plain attributes. */
export declare function fromValues(values: Record<string, Value> | undefined): Attributes;
