import { describe, expect, it } from "@jest/globals";
import { OtcConfigError } from "./errors.js";
import { connectOtcClient, discoverProjectId } from "./iam.js";
import { useLoopback, TEST_CREDENTIALS } from "./loopback.fixture.js";

describe("project discovery", () => {
  const env = useLoopback({ projectId: undefined });

  const projects = (...entries: { id: string; name: string }[]) => () => ({ body: { projects: entries, links: {} } });

  it("finds the single project named after the region by default, without X-Project-Id", async () => {
    env.loopback.reset(projects({ id: "p-eu-de", name: "eu-de" }));
    expect(await discoverProjectId(env.client)).toBe("p-eu-de");
    const [request] = env.loopback.requests;
    expect(request?.path).toBe("/v3/projects");
    expect(request?.query.get("name")).toBe("eu-de");
    expect(request?.headers["x-project-id"]).toBeUndefined();
  });

  it("ignores loosely matched names", async () => {
    env.loopback.reset(projects({ id: "p1", name: "eu-de_other" }, { id: "p2", name: "eu-de_mine" }));
    expect(await discoverProjectId(env.client, "eu-de_mine")).toBe("p2");
  });

  it("fails clearly when no project matches", async () => {
    env.loopback.reset(projects());
    await expect(discoverProjectId(env.client, "eu-de_missing")).rejects.toThrow(
      new OtcConfigError('no IAM project named "eu-de_missing" is visible to these credentials'),
    );
  });

  it("fails clearly when two projects match", async () => {
    env.loopback.reset(projects({ id: "a", name: "eu-de" }, { id: "b", name: "eu-de" }));
    await expect(discoverProjectId(env.client, "eu-de")).rejects.toThrow(/2 IAM projects are named "eu-de"; configure the project ID/);
  });

  it("connectOtcClient discovers the project when no ID is configured, and uses a configured one as is", async () => {
    env.loopback.reset(projects({ id: "p-mine", name: "eu-de_mine" }));
    const endpoints = { iam: env.loopback.baseUrl };
    const discovered = await connectOtcClient({ credentials: TEST_CREDENTIALS, region: "eu-de", projectName: "eu-de_mine", endpoints });
    expect(discovered.projectId).toBe("p-mine");
    discovered.close();
    const configured = await connectOtcClient({ credentials: TEST_CREDENTIALS, region: "eu-de", projectId: "given", endpoints });
    expect(configured.projectId).toBe("given");
    configured.close();
    expect(env.loopback.requests).toHaveLength(1);
  });
});
