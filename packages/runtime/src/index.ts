/**
 * @edgeconnect/runtime: the controller runtime shared by the provider
 * controller, the CAPI cluster provider and the OTC cloud controller manager.
 *
 * - `apiexport/`: an APIExport's virtual workspaces on every kcp shard as
 *   one source (endpoint-slice fan-in, bound tenants, write routing).
 * - `reflector/`: paged LIST + WATCH with bookmarks, inactivity timeout,
 *   jittered backoff and 410 relists into a cluster-aware store.
 * - `queue/`: the fair per-tenant work queue and its rate limiters.
 * - `reconcile/`: requests, the reconciler contract, the controller loop,
 *   event handlers, conditions, finalizers and status writes.
 * - `leader/`: leader election and sharding of tenants across replicas on
 *   coordination.k8s.io Leases.
 * - `manager/`: runs servers, sources and controllers (behind leader
 *   election when asked) in the right order.
 * - `events/`: Kubernetes Events with client-go's aggregation and spam
 *   filter.
 * - `observability/`: pino logs with redaction, controller-runtime metrics,
 *   /metrics, /healthz and /readyz.
 *
 * @module
 */
export {
  ApiExportSource,
  diffEndpoints,
  type ApiExportSourceOptions,
  type ClusterScope,
  type ReflectorTuning,
  type SourceLogger,
  type WatchedResource,
} from "./apiexport/apiexport-source.js";
export { Backoff, type BackoffOptions } from "./reflector/backoff.js";
export { InitialSyncError, ObjectKeyError, WatchEventError } from "./reflector/errors.js";
export { Reflector, type ListWatchClient, type ReflectorHandlers, type ReflectorLogger, type ReflectorOptions } from "./reflector/reflector.js";
export { joinKey, objectKey, splitKey, type Keyable, type KeyParts } from "./reflector/object-key.js";
export {
  CLUSTER_INDEX,
  CLUSTER_NAMESPACE_INDEX,
  mutableCopy,
  Store,
  type DeepReadonly,
  type Indexer,
  type StoreChange,
  type StoreOptions,
} from "./reflector/store.js";

export { ManualClock, realClock, type Clock, type TimerHandle } from "./queue/clock.js";
export { defaultMaxInFlightPerTenant, FairQueue, type FairQueueOptions } from "./queue/fair-queue.js";
export { NO_QUEUE_METRICS, type QueueMetrics } from "./queue/queue-metrics.js";
export {
  defaultControllerRateLimiter,
  ExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  TenantTokenBucketRateLimiter,
  TokenBucketRateLimiter,
  type DefaultControllerRateLimiterOptions,
  type ExponentialFailureOptions,
  type RateLimiter,
  type TokenBucketOptions,
} from "./queue/rate-limiter.js";

export {
  conditionTime,
  findCondition,
  isConditionTrue,
  ownedConditions,
  setCondition,
  type Condition,
  type ConditionStatus,
  type ConditionUpdate,
} from "./reconcile/conditions.js";
export { finalize, type FinalizableObject, type FinalizerHooks } from "./reconcile/finalizer.js";
export { Controller, ReconcileAbortedError, type ControllerMetrics, type ControllerOptions, type ScopeOf } from "./reconcile/controller.js";
export { combineHandlers, enqueueMapped, enqueueObject, requestFor, type EventHandlers, type RequestSink } from "./reconcile/handlers.js";
export {
  SILENT,
  TerminalError,
  type Logger as ControllerLogger,
  type NoScope,
  type ReconcileContext,
  type Reconciler,
  type Result,
} from "./reconcile/reconciler.js";
export { describeRequest, requestKey, tenantOf, type Request } from "./reconcile/request.js";
export {
  applyStatus,
  ensureFinalizer,
  FieldConflictError,
  hasFinalizer,
  removeFinalizer,
  StaleObjectError,
  type GuardedObject,
  type ObjectIdentity,
  type WriteClient,
  type ApplyStatusOptions,
  type WriteOptions,
} from "./reconcile/writes.js";
export { GENERIC_TENANT_MESSAGE, MAX_TENANT_MESSAGE_CHARS, tenantMessage } from "./reconcile/tenant-message.js";

export { EventRecorder, type EventClient, type EventRecorderOptions, type EventType } from "./events/event-recorder.js";

export { LeaderElector, type LeaderElectorOptions } from "./leader/leader-elector.js";
export { leaseElection, type LeaseElectionOptions } from "./leader/lease-election.js";
export { LeaseHolder, type LeaseHolderOptions } from "./leader/lease-holder.js";
export { LeaseLock, microTime, type Lease, type LeaseClient, type LeaseSpec } from "./leader/lease.js";
export { preferredOwner, SHARD_GROUP_LABEL, ShardCoordinator, slotOf, type ShardCoordinatorOptions, type ShardLeaseClient } from "./leader/shard-coordinator.js";
export { TenantShards, type TenantShardsOptions } from "./leader/tenant-shards.js";

export { CacheSyncTimeoutError, LeadershipLostError, runManager, waitForCacheSync, type ManagerOptions, type Source } from "./manager/manager.js";
export { exitOnLeadershipLost, instanceIdentity, readFlags, shutdownSignal } from "./manager/process.js";
export { clusterLister, type Lister } from "./reflector/lister.js";

export {
  createLogger,
  MAX_ERROR_BODY_CHARS,
  REDACTED,
  SAFE_BINDINGS,
  serializeError,
  type LoggerOptions,
  type SerializedError,
} from "./observability/logger.js";
export { reportUncaughtErrors, UNCAUGHT_ERROR_EXIT_CODE } from "./observability/crash-report.js";
export { sinceProcessStartMs } from "./observability/boot-timing.js";
export {
  holdSecrets,
  isSensitiveKey,
  registerSecret,
  releaseSecrets,
  releaseTenantSecrets,
  scrubDeep,
  scrubText,
  type SecretHolder,
} from "@edgeconnect/redaction";
export {
  RECONCILE_RESULTS,
  RECONCILE_TIME_BUCKETS,
  RuntimeMetrics,
  WORKQUEUE_DURATION_BUCKETS,
  type ReconcileResult,
  type RuntimeMetricsOptions,
} from "./observability/metrics.js";
export { DEFAULT_TRACKED_TENANTS, OTHER_TENANT, TenantLabels } from "./observability/tenant-labels.js";
export {
  DEFAULT_CHECK_TIMEOUT_MS,
  HealthChecks,
  type CheckKind,
  type CheckResult,
  type HealthCheck,
  type HealthChecksOptions,
} from "./observability/health-checks.js";
export {
  startMetricsServer,
  startProbeServer,
  type EndpointServer,
  type MetricsServerOptions,
  type MetricsSource,
  type ProbeServerOptions,
} from "./observability/http-endpoints.js";
export { DISABLED_ADDRESS, parseBindAddress, type ListenAddress } from "./observability/bind-address.js";
export { FlagError, parseCommandLine, parseDuration, positiveInteger, type CommandLine } from "./observability/command-line.js";
export {
  DEFAULT_HEALTH_PROBE_BIND_ADDRESS,
  DEFAULT_METRICS_BIND_ADDRESS,
  leaseTimings,
  leaseTimingUsage,
  parseRuntimeFlags,
  type LeaseTimings,
  type RuntimeFlagDefaults,
  type RuntimeFlags,
} from "./observability/flags.js";
