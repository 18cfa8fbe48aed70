import { timestampDate, type Duration, type Timestamp } from "@bufbuild/protobuf/wkt";
export { timestampDate, type Timestamp };
/** durationMs is a Duration in milliseconds. */
export declare function durationMs(d: Duration): number;
