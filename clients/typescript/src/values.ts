import { fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema, type Value } from "@bufbuild/protobuf/wkt";
import { CupidError } from "./errors.js";

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
export function toValues(attrs: Attributes | undefined, path: string): Record<string, Value> {
  const out: Record<string, Value> = {};
  if (!attrs) return out;
  for (const [name, v] of Object.entries(attrs)) {
    const field = `${path}.${name}`;
    checkValue(v, field);
    out[name] = fromJson(ValueSchema, v as JsonValue);
  }
  return out;
}

function checkValue(v: unknown, field: string): void {
  switch (typeof v) {
    case "number":
      if (!Number.isFinite(v)) throw new CupidError("invalid_argument", `${field}: must be a finite number, got ${v}`, { field });
      return;
    case "string":
    case "boolean":
      return;
  }
  if (Array.isArray(v)) {
    v.forEach((item, i) => {
      if (typeof item !== "string") {
        throw new CupidError("invalid_argument", `${field}[${i}]: a list's items must be strings, got ${typeof item}`, {
          field: `${field}[${i}]`,
        });
      }
    });
    return;
  }
  throw new CupidError("invalid_argument", `${field}: must be a number, a boolean, a string or a list of strings`, { field });
}

/** fromValues turns protobuf Values back into plain attributes. */
export function fromValues(values: Record<string, Value> | undefined): Attributes {
  const out: Attributes = {};
  for (const [name, v] of Object.entries(values ?? {})) {
    out[name] = toJson(ValueSchema, v) as AttributeValue;
  }
  return out;
}
