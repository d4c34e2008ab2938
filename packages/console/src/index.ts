/**
 * @edgeconnect/console: the platform console, a read-only web page of the
 * tenants, their clusters and what each became, asked of kcp with the
 * signed-in user's own token. The program is `platform-console` (main.ts);
 * this entry exposes its parts for embedding and tests.
 *
 * @module
 */
export { parseConsoleFlags, USAGE, type ConsoleFlags } from "./flags.js";
export { createConsoleServer, type ConsoleServerOptions } from "./server.js";
export { SessionStore, type SessionLimits } from "./sessions.js";
export { UserSession, type ConsoleKcp } from "./user-session.js";
export type * from "./view-model.js";
