// Small helpers over the well-known types the API uses.
import { timestampDate, type Duration, type Timestamp } from "@bufbuild/protobuf/wkt";

export { timestampDate, type Timestamp };

/** durationMs is a Duration in milliseconds. */
export function durationMs(d: Duration): number {
  return Number(d.seconds) * 1000 + d.nanos / 1e6;
}
