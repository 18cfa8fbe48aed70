// @cupid-match/client: the TypeScript client of the Cupid matchmaking
// server, for Node (20 or newer) and browsers. See docs/clients.md.
export { CupidClient } from "./client.js";
export { CupidError, TicketEndedError } from "./errors.js";
export { defaultBackoff } from "./watch.js";
