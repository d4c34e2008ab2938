import { describe, expect, it } from "@jest/globals";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { isCredentialRejection, OtcConfigError } from "./errors.js";
import { connectOtcClient, discoverProjectId, validateCredentials } from "./iam.js";
import { isTokenRequest, testClient, tokenAnswer, useLoopback, TEST_CREDENTIALS, TEST_PASSWORD, TOKEN_PROJECT } from "./loopback.fixture.js";

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

  it("connectOtcClient takes a password's project from its token, and keeps the token", async () => {
    env.loopback.reset((request) => (isTokenRequest(request) ? tokenAnswer("connect-token-1", new Date()) : { body: {} }));
    const endpoints = { iam: env.loopback.baseUrl, ecs: env.loopback.baseUrl };
    const connected = await connectOtcClient({ credentials: TEST_PASSWORD, region: "eu-de", endpoints });
    expect(connected.projectId).toBe(TOKEN_PROJECT);
    await connected.request("ecs", "GET", "/x");
    connected.close();
    expect(env.loopback.requests.map((r) => (isTokenRequest(r) ? "token" : `GET ${String(r.headers["x-auth-token"])}`))).toEqual(["token", "GET connect-token-1"]);
  });
});

describe("validateCredentials", () => {
  const env = useLoopback({ projectId: undefined });

  it("AK/SK: discovers the client's project (projectName, default the region)", async () => {
    env.loopback.reset((request) => ({ body: { projects: [{ id: `id-of-${request.query.get("name") ?? ""}`, name: request.query.get("name") }] } }));
    expect(await validateCredentials(env.client)).toEqual({ projectId: "id-of-eu-de" });
    const named = env.loopback.client({ projectName: "eu-de_mine" });
    expect(named.projectName).toBe("eu-de_mine");
    expect(await validateCredentials(named)).toEqual({ projectId: "id-of-eu-de_mine" });
    named.close();
    expect(env.loopback.requests.map((r) => r.url)).toEqual(["/v3/projects?name=eu-de", "/v3/projects?name=eu-de_mine"]);
  });

  it("password: gets a token and answers its project", async () => {
    env.loopback.reset(() => tokenAnswer("validate-token-1", new Date()));
    const client = env.loopback.client({ credentials: TEST_PASSWORD, projectName: "ignored" });
    expect(client.projectName).toBe(TEST_PASSWORD.projectName);
    expect(await validateCredentials(client)).toEqual({ projectId: TOKEN_PROJECT });
    expect(await validateCredentials(client)).toEqual({ projectId: TOKEN_PROJECT });
    client.close();
    expect(env.loopback.requests.filter(isTokenRequest)).toHaveLength(1);
  });

  it.each([
    ["AK/SK", 403, { error_code: "IAM.0003", error_msg: "forbidden" }],
    ["AK/SK", 401, { error_code: "APIGW.0301", error_msg: "Incorrect IAM authentication information" }],
    ["password", 401, { error: { code: 401, message: "The request you have made requires authentication.", title: "Unauthorized" } }],
  ])("%s: a refusal (%i) is a credential rejection", async (mode, status, body) => {
    env.loopback.reset(() => ({ status, body }));
    const client = mode === "password" ? env.loopback.client({ credentials: TEST_PASSWORD }) : env.client;
    const error = await validateCredentials(client).catch((e: unknown) => e);
    if (client !== env.client) client.close();
    expect(error).toMatchObject({ name: "OtcApiError", status });
    expect(isCredentialRejection(error)).toBe(true);
  });

  it.each(["AK/SK", "password"])("%s: an unreachable IAM is not a credential rejection", async (mode) => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, "127.0.0.1", resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((resolve) => dead.close(() => resolve()));
    const credentials = mode === "password" ? TEST_PASSWORD : TEST_CREDENTIALS;
    const client = testClient(`http://127.0.0.1:${port}`, { credentials, retry: { attempts: 1 } });
    const error = await validateCredentials(client).catch((e: unknown) => e);
    client.close();
    expect(error).toMatchObject({ name: "OtcApiError", status: 0 });
    expect(isCredentialRejection(error)).toBe(false);
  });

  it("a project IAM does not know is a configuration error, not a rejection", async () => {
    env.loopback.reset(() => ({ body: { projects: [] } }));
    const error = await validateCredentials(env.client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OtcConfigError);
    expect(isCredentialRejection(error)).toBe(false);
    expect(isCredentialRejection(new Error("401"))).toBe(false);
  });
});
