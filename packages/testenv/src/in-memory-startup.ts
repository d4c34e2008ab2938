/**
 * The in-memory dev provider's simulated boot: each DevMachineTemplate says
 * how long the machine's VM, node, API server and etcd take to start
 * (`spec.template.spec.backend.inMemory.<part>.provisioning.startupDuration`;
 * upstream's in-memory ClusterClass says 10 s for the VM and 2 s for each of
 * the others, one after another, for every machine). Those durations are the
 * provider's knob for tests; suites that create many machines shorten them,
 * since Cluster API's own controllers run the same steps whatever they are.
 */
import type { KubeObject } from "@edgeconnect/kcp-ts";

/** What the suites set: a machine up in about 4 s instead of 16 s. */
export const SUITE_STARTUP_DURATION = "1s";

const PARTS = ["vm", "node", "apiServer", "etcd"] as const;

type Provisioning = { startupDuration?: string; startupJitter?: string };
type InMemoryBackend = Partial<Record<(typeof PARTS)[number], { provisioning?: Provisioning }>>;
type DevMachineTemplate = KubeObject & { spec?: { template?: { spec?: { backend?: { inMemory?: InMemoryBackend } } } } };

/** `objects` with every in-memory DevMachineTemplate's startup durations set to `duration` (a Go duration); other objects as they were. */
export function withInMemoryStartup(objects: readonly KubeObject[], duration: string): KubeObject[] {
  return objects.map((obj) => {
    const template = obj as DevMachineTemplate;
    const inMemory = template.spec?.template?.spec?.backend?.inMemory;
    if (obj.kind !== "DevMachineTemplate" || inMemory === undefined) return obj;
    const shortened: InMemoryBackend = { ...inMemory };
    for (const part of PARTS) {
      const provisioning = inMemory[part]?.provisioning;
      if (provisioning !== undefined) shortened[part] = { ...inMemory[part], provisioning: { ...provisioning, startupDuration: duration } };
    }
    const spec = template.spec ?? {};
    const inner = spec.template?.spec ?? {};
    return { ...template, spec: { ...spec, template: { ...spec.template, spec: { ...inner, backend: { ...inner.backend, inMemory: shortened } } } } };
  });
}
