import { describe, expect, it } from "@jest/globals";
import { HttpStatusError } from "./errors.js";
import type { RequestOptionsLite, RestClient } from "./rest-client.js";
import { ApiDiscovery, UnknownKindError } from "./api-discovery.js";

type Resource = { name: string; kind: string; namespaced: boolean };

/** Answers GETs from a queue of discovery documents per path; the last one repeats. */
class FakeServer implements Pick<RestClient, "get"> {
  readonly calls: { path: string; options: RequestOptionsLite | undefined }[] = [];

  constructor(private readonly answers: Record<string, (Resource[] | Error)[]>) {}

  async get<T>(path: string, options?: RequestOptionsLite): Promise<T> {
    this.calls.push({ path, options });
    const queue = this.answers[path];
    if (queue === undefined || queue.length === 0) throw new HttpStatusError("GET", `https://platform.example${path}`, 404, "404 page not found");
    const answer = (queue.length > 1 ? queue.shift() : queue[0]) as Resource[] | Error;
    if (answer instanceof Error) throw answer;
    return { kind: "APIResourceList", groupVersion: path, resources: answer } as T;
  }

  paths(): string[] {
    return this.calls.map((call) => call.path);
  }
}

const CORE: Resource[] = [
  { name: "namespaces", kind: "Namespace", namespaced: false },
  { name: "namespaces/status", kind: "Namespace", namespaced: false },
  { name: "secrets", kind: "Secret", namespaced: true },
  { name: "configmaps", kind: "ConfigMap", namespaced: true },
];

const CAPI: Resource[] = [
  { name: "clusters/status", kind: "Cluster", namespaced: false },
  { name: "clusters", kind: "Cluster", namespaced: true },
  { name: "clusterclasses", kind: "ClusterClass", namespaced: true },
];

const AWS: Resource[] = [
  { name: "awsclusters", kind: "AWSCluster", namespaced: true },
  { name: "awsclusters/status", kind: "AWSCluster", namespaced: true },
  { name: "awsclustercontrolleridentities", kind: "AWSClusterControllerIdentity", namespaced: false },
];

function discovery(answers: Record<string, (Resource[] | Error)[]>): { api: ApiDiscovery; server: FakeServer } {
  const server = new FakeServer(answers);
  return { api: new ApiDiscovery(server), server };
}

describe("ApiDiscovery.resourceFor", () => {
  it.each<[string, string, string, { plural: string; namespaced: boolean }]>([
    ["v1", "Secret", "/api/v1", { plural: "secrets", namespaced: true }],
    ["v1", "Namespace", "/api/v1", { plural: "namespaces", namespaced: false }],
    ["cluster.x-k8s.io/v1beta2", "Cluster", "/apis/cluster.x-k8s.io/v1beta2", { plural: "clusters", namespaced: true }],
    ["infrastructure.cluster.x-k8s.io/v1beta2", "AWSClusterControllerIdentity", "/apis/infrastructure.cluster.x-k8s.io/v1beta2", { plural: "awsclustercontrolleridentities", namespaced: false }],
  ])("finds %s %s in %s", async (apiVersion, kind, path, resource) => {
    const { api, server } = discovery({ "/api/v1": [CORE], "/apis/cluster.x-k8s.io/v1beta2": [CAPI], "/apis/infrastructure.cluster.x-k8s.io/v1beta2": [AWS] });
    await expect(api.resourceFor(apiVersion, kind)).resolves.toMatchObject(resource);
    expect(server.paths()).toEqual([path]);
  });

  it("takes the resource, not a subresource listed before it", async () => {
    const { api } = discovery({ "/apis/cluster.x-k8s.io/v1beta2": [CAPI] });
    await expect(api.resourceFor("cluster.x-k8s.io/v1beta2", "Cluster")).resolves.toMatchObject({ plural: "clusters", namespaced: true });
  });

  it("does not take a subresource as the kind of its own", async () => {
    const { api } = discovery({ "/apis/x.example/v1": [[{ name: "widgets/scale", kind: "Scale", namespaced: true }]] });
    await expect(api.resourceFor("x.example/v1", "Scale")).rejects.toThrow(UnknownKindError);
  });

  it("asks once for two lookups in one group-version", async () => {
    const { api, server } = discovery({ "/apis/cluster.x-k8s.io/v1beta2": [CAPI] });
    await api.resourceFor("cluster.x-k8s.io/v1beta2", "Cluster");
    await expect(api.resourceFor("cluster.x-k8s.io/v1beta2", "ClusterClass")).resolves.toMatchObject({ plural: "clusterclasses", namespaced: true });
    await api.resourceFor("cluster.x-k8s.io/v1beta2", "Cluster");
    expect(server.paths()).toEqual(["/apis/cluster.x-k8s.io/v1beta2"]);
  });

  it("caches each group-version on its own", async () => {
    const { api, server } = discovery({ "/api/v1": [CORE], "/apis/cluster.x-k8s.io/v1beta2": [CAPI] });
    await api.resourceFor("v1", "Secret");
    await api.resourceFor("cluster.x-k8s.io/v1beta2", "Cluster");
    await api.resourceFor("v1", "ConfigMap");
    await api.resourceFor("cluster.x-k8s.io/v1beta2", "ClusterClass");
    expect(server.paths()).toEqual(["/api/v1", "/apis/cluster.x-k8s.io/v1beta2"]);
  });

  it("asks again once for a kind the cached document lacks, then reports it", async () => {
    const { api, server } = discovery({ "/apis/cluster.x-k8s.io/v1beta2": [CAPI] });
    await api.resourceFor("cluster.x-k8s.io/v1beta2", "Cluster");
    const lookup = api.resourceFor("cluster.x-k8s.io/v1beta2", "MachineDeployment");
    await expect(lookup).rejects.toThrow(UnknownKindError);
    await expect(lookup).rejects.toThrow("the API server serves no kind MachineDeployment in cluster.x-k8s.io/v1beta2; is its provider installed?");
    expect(server.paths()).toEqual(["/apis/cluster.x-k8s.io/v1beta2", "/apis/cluster.x-k8s.io/v1beta2"]);
  });

  it("asks only once for a kind missing from a document it has just fetched", async () => {
    const { api, server } = discovery({ "/apis/cluster.x-k8s.io/v1beta2": [CAPI] });
    await expect(api.resourceFor("cluster.x-k8s.io/v1beta2", "Machine")).rejects.toThrow(UnknownKindError);
    expect(server.paths()).toEqual(["/apis/cluster.x-k8s.io/v1beta2"]);
  });

  it("finds a kind whose CRD arrived after the document was cached, and caches the new document", async () => {
    const withMachines = [...CAPI, { name: "machinedeployments", kind: "MachineDeployment", namespaced: true }];
    const { api, server } = discovery({ "/apis/cluster.x-k8s.io/v1beta2": [CAPI, withMachines] });
    await api.resourceFor("cluster.x-k8s.io/v1beta2", "Cluster");
    await expect(api.resourceFor("cluster.x-k8s.io/v1beta2", "MachineDeployment")).resolves.toMatchObject({ plural: "machinedeployments", namespaced: true });
    await api.resourceFor("cluster.x-k8s.io/v1beta2", "MachineDeployment");
    expect(server.paths()).toHaveLength(2);
  });

  it("reports a group-version the server does not serve (404) as an unknown kind", async () => {
    const { api, server } = discovery({});
    const lookup = api.resourceFor("infrastructure.cluster.x-k8s.io/v1beta2", "AWSCluster");
    await expect(lookup).rejects.toThrow(UnknownKindError);
    await expect(lookup).rejects.toThrow("the API server serves no kind AWSCluster in infrastructure.cluster.x-k8s.io/v1beta2; is its provider installed?");
    expect(server.paths()).toEqual(["/apis/infrastructure.cluster.x-k8s.io/v1beta2"]);
  });

  it.each<[string, Error]>([
    ["a 403", new HttpStatusError("GET", "https://platform.example/apis/x.example/v1", 403, '{"kind":"Status","message":"forbidden","reason":"Forbidden","code":403}')],
    ["a 503", new HttpStatusError("GET", "https://platform.example/apis/x.example/v1", 503, "")],
    ["a network error", new TypeError("fetch failed")],
  ])("passes %s on as it is, to be retried", async (_case, error) => {
    const { api } = discovery({ "/apis/x.example/v1": [error] });
    await expect(api.resourceFor("x.example/v1", "Widget")).rejects.toBe(error);
  });

  it("caches nothing after a failure", async () => {
    const { api, server } = discovery({ "/apis/x.example/v1": [new TypeError("fetch failed"), [{ name: "widgets", kind: "Widget", namespaced: true }]] });
    await expect(api.resourceFor("x.example/v1", "Widget")).rejects.toThrow("fetch failed");
    await expect(api.resourceFor("x.example/v1", "Widget")).resolves.toMatchObject({ plural: "widgets", namespaced: true });
    expect(server.paths()).toHaveLength(2);
  });

  it("treats a document without resources as serving no kinds", async () => {
    const server: Pick<RestClient, "get"> = { get: async <T>() => ({ kind: "APIResourceList" }) as T };
    await expect(new ApiDiscovery(server).resourceFor("x.example/v1", "Widget")).rejects.toThrow(UnknownKindError);
  });

  it("passes the caller's signal on, and none when there is none", async () => {
    const { api, server } = discovery({ "/api/v1": [CORE], "/apis/cluster.x-k8s.io/v1beta2": [CAPI] });
    const signal = new AbortController().signal;
    await api.resourceFor("v1", "Secret", signal);
    await api.resourceFor("cluster.x-k8s.io/v1beta2", "Cluster");
    expect(server.calls[0]?.options?.signal).toBe(signal);
    expect(server.calls[1]?.options).toEqual({});
  });
});

describe("ApiDiscovery.objectPath", () => {
  it.each<[string, string, string, string, string]>([
    ["v1", "Secret", "capi-system", "workload-kubeconfig", "/api/v1/namespaces/capi-system/secrets/workload-kubeconfig"],
    ["v1", "Namespace", "ignored", "capi-system", "/api/v1/namespaces/capi-system"],
    ["cluster.x-k8s.io/v1beta2", "Cluster", "project-a", "workload", "/apis/cluster.x-k8s.io/v1beta2/namespaces/project-a/clusters/workload"],
    ["infrastructure.cluster.x-k8s.io/v1beta2", "AWSCluster", "project-a", "workload", "/apis/infrastructure.cluster.x-k8s.io/v1beta2/namespaces/project-a/awsclusters/workload"],
    ["infrastructure.cluster.x-k8s.io/v1beta2", "AWSClusterControllerIdentity", "project-a", "default", "/apis/infrastructure.cluster.x-k8s.io/v1beta2/awsclustercontrolleridentities/default"],
    ["infrastructure.cluster.x-k8s.io/v1beta2", "AWSClusterControllerIdentity", "", "default", "/apis/infrastructure.cluster.x-k8s.io/v1beta2/awsclustercontrolleridentities/default"],
    ["cluster.x-k8s.io/v1beta2", "Cluster", "a/b", "x?y#z", "/apis/cluster.x-k8s.io/v1beta2/namespaces/a%2Fb/clusters/x%3Fy%23z"],
    ["v1", "ConfigMap", "ns", "../../secrets/x", "/api/v1/namespaces/ns/configmaps/..%2F..%2Fsecrets%2Fx"],
  ])("%s %s %s/%s → %s", async (apiVersion, kind, namespace, name, path) => {
    const { api } = discovery({ "/api/v1": [CORE], "/apis/cluster.x-k8s.io/v1beta2": [CAPI], "/apis/infrastructure.cluster.x-k8s.io/v1beta2": [AWS] });
    await expect(api.objectPath(apiVersion, kind, namespace, name)).resolves.toBe(path);
  });

  it("refuses a kind the server does not serve", async () => {
    const { api } = discovery({ "/api/v1": [CORE] });
    await expect(api.objectPath("v1", "Pod", "ns", "p")).rejects.toThrow(UnknownKindError);
  });
});

describe("ApiDiscovery.served", () => {
  it("names the kind it found, and answers undefined for a group-version the server does not serve, asking again next time", async () => {
    const notFound = new HttpStatusError("GET", "/apis/x.example/v1", 404, "");
    const { api, server } = discovery({ "/api/v1": [CORE], "/apis/x.example/v1": [notFound, notFound] });
    await expect(api.served("v1", "Secret")).resolves.toEqual({ apiVersion: "v1", kind: "Secret", plural: "secrets", namespaced: true });
    await expect(api.served("x.example/v1", "Widget")).resolves.toBeUndefined();
    await expect(api.served("x.example/v1", "Widget")).resolves.toBeUndefined();
    expect(server.paths()).toEqual(["/api/v1", "/apis/x.example/v1", "/apis/x.example/v1"]);
  });
});
