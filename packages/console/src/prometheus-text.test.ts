import { describe, expect, it } from "@jest/globals";
import { parsePrometheusText, sumBy, sumOf } from "./prometheus-text.js";

const TEXT = `# HELP workqueue_depth Current depth of workqueue
# TYPE workqueue_depth gauge
workqueue_depth{name="kubernetescluster",controller="kubernetescluster"} 3
workqueue_depth{name="providerconfig",controller="providerconfig"} 0
controller_runtime_reconcile_total{controller="kubernetescluster",result="success"} 120
controller_runtime_reconcile_total{controller="kubernetescluster",result="error"} 4
controller_runtime_reconcile_errors_total{controller="kubernetescluster"} 4 1700000000000
edgeconnect_tenant_queue_duration_seconds_count{controller="kubernetescluster",tenant="0a1b2c3d4e5f"} 17
edgeconnect_tenant_queue_duration_seconds_bucket{controller="kubernetescluster",tenant="0a1b2c3d4e5f",le="+Inf"} 17
process_start_time_seconds 1.7e9
weird{label="with \\"quotes\\", a \\\\ and a\\nnewline"} NaN
`;

describe("parsePrometheusText", () => {
  it("reads names, labels and values, timestamps and comments aside", () => {
    const { samples, skippedLines } = parsePrometheusText(TEXT);
    expect(skippedLines).toBe(0);
    expect(samples).toHaveLength(9);
    expect(samples[0]).toEqual({ name: "workqueue_depth", labels: { name: "kubernetescluster", controller: "kubernetescluster" }, value: 3 });
    expect(samples.find((s) => s.name === "controller_runtime_reconcile_errors_total")?.value).toBe(4);
    expect(samples.find((s) => s.name === "process_start_time_seconds")).toEqual({ name: "process_start_time_seconds", labels: {}, value: 1.7e9 });
    expect(samples.find((s) => s.labels["le"] === "+Inf")?.value).toBe(17);
  });

  it("unescapes label values", () => {
    const weird = parsePrometheusText(TEXT).samples.find((s) => s.name === "weird");
    expect(weird?.labels["label"]).toBe('with "quotes", a \\ and a\nnewline');
    expect(weird?.value).toBeNaN();
  });

  it("skips and counts lines that do not parse, keeping the rest", () => {
    const { samples, skippedLines } = parsePrometheusText('ok 1\n{no_name="x"} 2\nunclosed{a="b 3\nbad_value{} x\n9starts_with_digit 4\nok2 +Inf\n');
    expect(samples.map((s) => [s.name, s.value])).toEqual([
      ["ok", 1],
      ["ok2", Infinity],
    ]);
    expect(skippedLines).toBe(4);
  });
});

describe("sumOf and sumBy", () => {
  const { samples } = parsePrometheusText(TEXT);

  it("sums a series over the samples whose labels match", () => {
    expect(sumOf(samples, "workqueue_depth")).toBe(3);
    expect(sumOf(samples, "controller_runtime_reconcile_total", { result: "error" })).toBe(4);
    expect(sumOf(samples, "absent")).toBe(0);
  });

  it("groups by a label", () => {
    expect(sumBy(samples, "controller_runtime_reconcile_total", "result")).toEqual(
      new Map([
        ["success", 120],
        ["error", 4],
      ]),
    );
  });
});
