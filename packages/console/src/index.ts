/**
 * @edgeconnect/console: the platform console, a read-only web page of the
 * tenants, their clusters and what each became, asked of kcp with the
 * signed-in user's own token. The program is `platform-console` (main.ts);
 * this entry gives its flag parser (the chart's test reads the command line
 * the chart builds with it) and the JSON the page is sent.
 *
 * @module
 */
export { parseConsoleFlags, type ConsoleFlags } from "./flags.js";
export type * from "./view-model.js";
