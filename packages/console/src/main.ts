#!/usr/bin/env node
/**
 * `platform-console`: the read-only web console of the platform. Serves
 * plain HTTP on --bind-address (meant behind a TLS ingress), prints its URL
 * once listening, and stops on SIGTERM or SIGINT.
 */
import { Kubeconfig, RestClient } from "@edgeconnect/kcp-ts";
import { FlagError, parseConsoleFlags, USAGE } from "./flags.js";
import { InfrastructureReader } from "./infrastructure-reader.js";
import { MetricsScraper } from "./metrics-scraper.js";
import { createConsoleServer } from "./server.js";
import { SessionStore } from "./sessions.js";
import type { UserSession } from "./user-session.js";

let flags;
try {
  flags = parseConsoleFlags(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof FlagError)) throw err;
  process.stderr.write(`platform-console: ${err.message}\n\n${USAGE}`);
  process.exit(2);
}
if (flags.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const infra = new InfrastructureReader(flags.infraKubeconfig === undefined ? RestClient.fromCluster() : RestClient.fromFile(flags.infraKubeconfig));
const sessions = new SessionStore<UserSession>({ maxSessions: flags.maxSessions, lifetimeMs: flags.sessionLifetimeMs, idleMs: flags.sessionIdleMs });
const sweeper = setInterval(() => sessions.sweep(), 60_000);
sweeper.unref();
const server = createConsoleServer({
  kcp: { kubeconfig: Kubeconfig.fromFile(flags.kcpKubeconfig), providerWorkspace: flags.providerWorkspace, leaseNamespace: flags.leaseNamespace },
  sources: { infra, scraper: new MetricsScraper({ urls: flags.controllerMetricsUrls }), leaseName: flags.leaseName, stuckAfterMs: flags.stuckAfterMs },
  sessions,
  secureCookie: flags.secureCookie,
});
// Slow or idle clients must not hold sockets: headers within 10 s, a whole request within 30 s (streams are responses, not requests).
server.headersTimeout = 10_000;
server.requestTimeout = 30_000;
server.listen(flags.port, flags.host, () => {
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : flags.port;
  const host = flags.host.includes(":") ? `[${flags.host}]` : flags.host;
  process.stdout.write(`platform console listening on http://${host}:${port}/\n`);
});

const stop = (): void => {
  sessions.clear();
  server.close();
  server.closeAllConnections();
  infra.close();
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
