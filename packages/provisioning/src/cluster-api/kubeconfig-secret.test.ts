import { describe, expect, it } from "@jest/globals";
import { clusterApiKubeconfigSecret } from "./kubeconfig-secret.js";

describe("clusterApiKubeconfigSecret", () => {
  it("names the Secret and key Cluster API's control plane providers write the admin kubeconfig to", () => {
    expect(clusterApiKubeconfigSecret("default-my-cluster-1a2b3c4d")).toEqual({ name: "default-my-cluster-1a2b3c4d-kubeconfig", key: "value" });
  });
});
