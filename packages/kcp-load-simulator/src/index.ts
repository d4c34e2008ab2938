/**
 * @edgeconnect/kcp-load-simulator: a simulator of the parts of kcp that a
 * controller on an APIExport reads and writes, for load tests with thousands
 * of synthetic logical clusters. Test support; not kcp, and not a place to
 * learn kcp's behaviour from (e2e/tests/kcp-load-simulator.e2e.test.ts
 * compares it with real kcp on the provider-controller's flows).
 *
 * Simplified, on purpose: one bearer token and no authorization; no
 * workspaces API, discovery, admission or schema validation; server-side
 * apply merges maps and `type`-keyed lists and releases a manager's fields
 * one level below `status` only (patch.ts); no managedFields in answers;
 * one resourceVersion sequence (one shard); claimed objects created through
 * the virtual workspace get kcp's claimed label, with a hash of the
 * simulator's own as its suffix; an unbound cluster's objects
 * vanish from the virtual workspace without DELETED events.
 *
 * @module
 */
export { KcpLoadSimulator, type ChangeListener, type KcpLoadSimulatorOptions, type SimulatedResource } from "./simulator.js";
export { CLUSTER_ANNOTATION, type ResourceType } from "./store.js";
export { classifyRequest, describeKind, parsePath, type ParsedPath, type RequestKind } from "./requests.js";
export type { RequestRecord, VirtualWorkspaceGrant } from "./server.js";
