// Small helpers over the well-known types the API uses.
import { timestampDate } from "@bufbuild/protobuf/wkt";
export { timestampDate };
/** durationMs is a Duration in milliseconds. */
export function durationMs(d) {
    return Number(d.seconds) * 1000 + d.nanos / 1e6;
}
