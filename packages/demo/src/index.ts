/**
 * @edgeconnect/demo: the system on this machine. `main.ts` is the README's
 * first command; `Platform` starts the provider-controller's part of it on
 * a running kcp and infrastructure cluster, for the demo and the e2e suites.
 *
 * @module
 */
export { DEMO_FLAVORS, orderCluster, Platform, TENANT_WORKSPACE_TYPE, type ClusterOrder, type PlatformOptions, type TenantCredentials } from "./platform.js";
