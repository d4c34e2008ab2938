import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { OtcApiError } from "@edgeconnect/otc";
import type { Node } from "../kube/objects.js";
import { AmbiguousInstanceError, OtcInstances } from "./instances.js";
import { InvalidProviderIdError } from "./provider-id.js";
import { PROJECT, REGION, startSimulatedCloud, type SimulatedCloud } from "../testing/simulated-cloud.fixture.js";

const WORKER = "0a6f1c52-9d7e-4c1b-8a43-5e2f7d9b0c11";
const STOPPED = "1b7a2d63-0e8f-4d2c-9b54-6f3a8e0c1d22";
const MISSING = "2c8b3e74-1f90-4e3d-8c65-7a4b9f1d2e33";

function node(name: string, providerID?: string): Node {
  return { metadata: { name }, ...(providerID === undefined ? {} : { spec: { providerID } }) };
}

describe("OtcInstances", () => {
  let cloud: SimulatedCloud;
  let instances: OtcInstances;

  beforeAll(async () => {
    cloud = await startSimulatedCloud();
    instances = new OtcInstances(cloud.client, REGION);
    cloud.sim.addServer({
      id: WORKER,
      name: "worker-1",
      flavor: "s3.xlarge.2",
      az: "eu-de-02",
      addresses: { "vpc-1": [{ addr: "192.168.0.11", type: "fixed" }, { addr: "80.158.1.1", type: "floating" }] },
    });
    cloud.sim.addServer({ id: STOPPED, name: "worker-2", status: "SHUTOFF" });
    // ECS matches names fuzzily ("." is a wildcard): this one must not count as "worker-1".
    cloud.sim.addServer({ name: "worker.1" });
    cloud.sim.addServer({ name: "twin" });
    cloud.sim.addServer({ name: "twin" });
  });
  afterAll(() => cloud.close());
  beforeEach(() => cloud.sim.faults.clear());

  it("describes the server a node's providerID names", async () => {
    expect(await instances.instanceMetadata(node("whatever", `otc://${WORKER}`))).toEqual({
      providerId: `otc://${WORKER}`,
      instanceType: "s3.xlarge.2",
      addresses: [
        { type: "InternalIP", address: "192.168.0.11" },
        { type: "ExternalIP", address: "80.158.1.1" },
        { type: "Hostname", address: "whatever" },
      ],
      zone: "eu-de-02",
      region: REGION,
    });
  });

  it("finds a node without providerID by its exact name", async () => {
    expect((await instances.instanceMetadata(node("worker-1")))?.providerId).toBe(`otc://${WORKER}`);
    expect(await instances.instanceExists(node("worker-1"))).toBe(true);
  });

  it("trusts the providerID over the name", async () => {
    expect(await instances.instanceExists(node("worker-1", `otc://${MISSING}`))).toBe(false);
    expect((await instances.instanceMetadata(node("worker-1", `otc:///${STOPPED}`)))?.providerId).toBe(`otc://${STOPPED}`);
  });

  it("reports a missing instance only on a definite 404 or an exact-name miss", async () => {
    expect(await instances.instanceExists(node("x", `otc://${MISSING}`))).toBe(false);
    expect(await instances.instanceExists(node("worker-9"))).toBe(false);
    expect(await instances.instanceMetadata(node("worker-9"))).toBeUndefined();
    expect(await instances.instanceShutdown(node("worker-9"))).toBe(false);
  });

  it("throws on a server error instead of answering 'gone'", async () => {
    cloud.sim.faults.failNext({ method: "GET", pathPrefix: `/v1/${PROJECT.id}/cloudservers` }, 500, 3);
    await expect(instances.instanceExists(node("x", `otc://${WORKER}`))).rejects.toThrow(OtcApiError);
    await expect(instances.instanceExists(node("worker-1"))).rejects.toMatchObject({ status: 500 });
    await expect(instances.instanceMetadata(node("worker-1"))).rejects.toThrow(OtcApiError);
  });

  it("refuses to guess between servers of the same name", async () => {
    await expect(instances.instanceExists(node("twin"))).rejects.toThrow(AmbiguousInstanceError);
  });

  it("refuses a providerID of another form instead of answering 'gone'", async () => {
    await expect(instances.instanceExists(node("worker-1", `aws:///eu-central-1a/${WORKER}`))).rejects.toThrow(InvalidProviderIdError);
  });

  it("reports SHUTOFF servers as shut down", async () => {
    expect(await instances.instanceShutdown(node("worker-2"))).toBe(true);
    expect(await instances.instanceShutdown(node("worker-1"))).toBe(false);
  });
});
