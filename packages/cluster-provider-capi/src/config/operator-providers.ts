/**
 * The Cluster API Operator's provider objects this provider manages, one
 * store per kind (a name may repeat across kinds), read as one collection.
 */
import { BOOTSTRAP_PROVIDER, CONTROL_PLANE_PROVIDER, INFRASTRUCTURE_PROVIDER, type ApiResource, type CoreProviderV1alpha2 } from "@edgeconnect/capi-provider-api";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { Store, type DeepReadonly } from "@edgeconnect/runtime";
import type { OperatorProviderKind } from "./desired-providers.js";
import { platformKey } from "../provider/platform-keys.js";

/** Every operator provider kind has the same spec and status; CoreProvider's type stands for all. */
export type OperatorProvider = CoreProviderV1alpha2 & KubeObject;

const RESOURCES: Readonly<Record<OperatorProviderKind, ApiResource>> = {
  InfrastructureProvider: INFRASTRUCTURE_PROVIDER,
  BootstrapProvider: BOOTSTRAP_PROVIDER,
  ControlPlaneProvider: CONTROL_PLANE_PROVIDER,
};

export const OPERATOR_PROVIDER_KINDS = Object.keys(RESOURCES) as OperatorProviderKind[];

export function operatorResource(kind: OperatorProviderKind): ApiResource {
  return RESOURCES[kind];
}

export class OperatorProviderStores {
  readonly stores: Readonly<Record<OperatorProviderKind, Store<OperatorProvider>>> = {
    InfrastructureProvider: new Store<OperatorProvider>(),
    BootstrapProvider: new Store<OperatorProvider>(),
    ControlPlaneProvider: new Store<OperatorProvider>(),
  };

  get(kind: OperatorProviderKind, namespace: string, name: string): DeepReadonly<OperatorProvider> | undefined {
    return this.stores[kind].get(platformKey(name, namespace));
  }

  all(): { kind: OperatorProviderKind; provider: DeepReadonly<OperatorProvider> }[] {
    return OPERATOR_PROVIDER_KINDS.flatMap((kind) => this.stores[kind].list().map((provider) => ({ kind, provider })));
  }
}
