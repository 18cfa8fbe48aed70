import { fromJson, toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { CupidError } from "./errors.js";
/**
 * toValues turns the caller's plain attributes into protobuf Values. A
 * value JSON cannot carry (NaN, ±Infinity, undefined, an object) is refused
 * here, naming its field as the server would, since it could not be sent.
 */
export function toValues(attrs, path) {
    const out = {};
    if (!attrs)
        return out;
    for (const [name, v] of Object.entries(attrs)) {
        const field = `${path}.${name}`;
        checkValue(v, field);
        out[name] = fromJson(ValueSchema, v);
    }
    return out;
}
function checkValue(v, field) {
    switch (typeof v) {
        case "number":
            if (!Number.isFinite(v))
                throw new CupidError("invalid_argument", `${field}: must be a finite number, got ${v}`, { field });
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
export function fromValues(values) {
    const out = {};
    for (const [name, v] of Object.entries(values ?? {})) {
        out[name] = toJson(ValueSchema, v);
    }
    return out;
}
