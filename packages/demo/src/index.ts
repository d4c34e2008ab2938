/**
 * @edgeconnect/demo: the system on this machine. `main.ts` is the README's
 * first command; `Platform` starts the provider-controller's part of it on
 * a running kcp and infrastructure cluster, for the demo and the e2e suites;
 * `OpenMcpPlatform` runs the Cluster API cluster provider as openMCP would,
 * on the real Cluster API stack (`capi-demo.ts`, its e2e suite).
 *
 * @module
 */
export { DEMO_FLAVORS, flavorManifest, orderCluster, Platform, TENANT_WORKSPACE_TYPE, type ClusterOrder, type PlatformOptions, type TenantCredentials } from "./platform.js";
export { IN_MEMORY_PROVIDER_CONFIG, installInMemoryClusterClass, OpenMcpPlatform, TEMPLATES_NAMESPACE, type Conditioned, type InMemoryClusterClassOptions, type OpenMcpPlatformOptions } from "./openmcp-platform.js";
