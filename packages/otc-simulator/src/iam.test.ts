import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { at, OTHER_PROJECT, pluck, PROJECT, startTestSimulator, type TestSimulator } from "./test-client.fixture.js";

describe("IAM project lookup", () => {
  let t: TestSimulator;
  beforeAll(async () => {
    t = await startTestSimulator();
  });
  afterAll(() => t.sim.close());

  it("finds a project by exact name", async () => {
    const result = await t.call("GET", `/v3/projects?name=${PROJECT.name}`);
    expect(result.status).toBe(200);
    expect(at(result.body, "projects")).toEqual([expect.objectContaining({ id: PROJECT.id, name: PROJECT.name, enabled: true })]);
  });

  it("returns an empty list for an unknown name and all projects without a filter", async () => {
    expect(at((await t.call("GET", "/v3/projects?name=eu-de_nope")).body, "projects")).toEqual([]);
    const all = await t.call("GET", "/v3/projects");
    expect(pluck(all.body, "projects", "id")).toEqual([PROJECT.id, OTHER_PROJECT.id]);
  });

  it("rejects a project-scoped path for an unknown project", async () => {
    const result = await t.call("GET", "/v1/00000000000000000000000000000000/publicips");
    expect(result.status).toBe(404);
  });

  it("rejects an X-Project-Id that disagrees with the path", async () => {
    const result = await t.call("GET", `/v1/${PROJECT.id}/publicips`, { project: OTHER_PROJECT.id });
    expect(result.status).toBe(403);
  });

  it("answers 404 APIGW.0101 for paths it does not serve", async () => {
    const result = await t.call("GET", "/v2/nothing/here");
    expect(result.status).toBe(404);
    expect(at(result.body, "error_code")).toBe("APIGW.0101");
  });
});
