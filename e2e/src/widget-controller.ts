/**
 * An example controller on the runtime, for e2e tests and the runtime
 * benchmark (not a product): it watches `widgets.smoke.edgeconnect.eu` in
 * every workspace bound to the smoke export and mirrors `spec.color` into
 * `status.observed` with a Ready condition, written by server-side apply to
 * the tenant's workspace through the shard that serves it.
 */
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import {
  ApiExportSource,
  applyStatus,
  Controller,
  enqueueObject,
  isConditionTrue,
  ownedConditions,
  type ClusterScope,
  type Condition,
  type ControllerLogger,
  type ControllerMetrics,
  type ReflectorTuning,
  type Request,
  type WatchedResource,
} from "@edgeconnect/runtime";
import { WIDGET_EXPORT, WIDGETS_PATH } from "./widget-export.js";

const FIELD_MANAGER = "widget-controller";

export interface Widget extends KubeObject {
  spec?: { color?: string };
  status?: { observed?: string; conditions?: Condition[] };
}

export interface WidgetControllerOptions {
  /** Admin client on the provider workspace. */
  readonly provider: RestClient;
  readonly workers?: number;
  readonly reflector?: ReflectorTuning;
  readonly metrics?: ControllerMetrics;
  readonly logger?: ControllerLogger;
  /** Called after each successful reconcile that wrote a status. */
  readonly onReconciled?: (request: Request, widget: Widget) => void;
}

/**
 * One reconcile of a widget: mirror `spec.color` into `status.observed` with
 * a Ready condition. Returns the written widget, or undefined when nothing
 * had to be written (gone, deleting, or in step).
 */
export async function reconcileWidget(widgets: WatchedResource<Widget>, request: Request, scope: ClusterScope): Promise<Widget | undefined> {
  const widget = scope.lister(widgets).get(request.namespace, request.name);
  if (widget === undefined || widget.metadata?.deletionTimestamp !== undefined) return undefined;
  const color = widget.spec?.color ?? "";
  const generation = widget.metadata?.generation;
  if (widget.status?.observed === color && isConditionTrue(widget.status.conditions, "Ready", generation)) return undefined;
  const conditions = ownedConditions(
    widget.status?.conditions,
    [{ type: "Ready", status: "True", reason: "Observed", message: `observed color ${JSON.stringify(color)}` }],
    generation,
  );
  const path = `${WIDGETS_PATH}/namespaces/${request.namespace}/widgets/${request.name}`;
  return applyStatus<Widget>(scope.client, path, widget, { observed: color, conditions }, FIELD_MANAGER);
}

export class WidgetController {
  readonly source: ApiExportSource;
  readonly controller: Controller<ClusterScope>;
  readonly widgets: WatchedResource<Widget>;
  private running: Promise<unknown> | undefined;
  private readonly stop = new AbortController();

  constructor(options: WidgetControllerOptions) {
    this.controller = new Controller<ClusterScope>({
      name: "widgets",
      maxConcurrentReconciles: options.workers ?? 4,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      scope: (request, signal) => this.source.scopeFor(request.cluster, signal),
      reconciler: {
        reconcile: async (request, { scope }) => {
          const written = await reconcileWidget(this.widgets, request, scope);
          if (written !== undefined) options.onReconciled?.(request, written);
        },
      },
    });
    this.widgets = { name: "widgets", path: `/clusters/*${WIDGETS_PATH}/widgets`, handlers: enqueueObject<Widget>(this.controller) };
    this.source = new ApiExportSource({
      provider: options.provider,
      sliceName: WIDGET_EXPORT,
      resources: [this.widgets],
      onDisengage: (cluster) => this.controller.abortInFlight((request) => request.cluster === cluster, "the tenant left this controller's view"),
      ...(options.reflector ? { reflector: options.reflector } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
  }

  start(): void {
    this.running = Promise.all([this.source.start(), this.controller.start(this.stop.signal)]);
  }

  async stopAndWait(): Promise<void> {
    this.stop.abort();
    await this.source.stop();
    await this.running;
  }
}
