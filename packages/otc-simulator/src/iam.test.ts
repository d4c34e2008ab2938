import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { at, CREDENTIALS, OTHER_PROJECT, pluck, PROJECT, startTestSimulator, type TestSimulator, text, USER } from "./test-client.fixture.js";

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

describe("IAM password tokens", () => {
  let t: TestSimulator;
  beforeAll(async () => {
    t = await startTestSimulator();
  });
  afterAll(() => t.sim.close());

  const tokenBody = (overrides: { user?: string; password?: string; domain?: string; project?: string } = {}) => ({
    auth: {
      identity: {
        methods: ["password"],
        password: {
          user: {
            name: overrides.user ?? USER.userName,
            password: overrides.password ?? USER.password,
            domain: { name: overrides.domain ?? USER.domainName },
          },
        },
      },
      scope: { project: { name: overrides.project ?? PROJECT.name } },
    },
  });

  async function issue(project = PROJECT.name): Promise<string> {
    const result = await t.call("POST", "/v3/auth/tokens", { body: tokenBody({ project }), unsigned: true });
    expect(result.status).toBe(201);
    if (result.subjectToken === undefined) throw new Error("no X-Subject-Token");
    return result.subjectToken;
  }

  it("issues a token scoped to the named project, without a signature", async () => {
    const result = await t.call("POST", "/v3/auth/tokens", { body: tokenBody(), unsigned: true });
    expect(result.status).toBe(201);
    expect(result.subjectToken).toMatch(/^MII[\w-]{100,}$/);
    expect(at(result.body, "token")).toMatchObject({
      methods: ["password"],
      issued_at: "2026-03-01T12:00:00.000000Z",
      expires_at: "2026-03-02T12:00:00.000000Z",
      project: { id: PROJECT.id, name: PROJECT.name, domain: { name: USER.domainName } },
      user: { name: USER.userName, domain: { name: USER.domainName } },
      catalog: [],
    });
    expect(text(result.body, "token.user.id")).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(result.body)).not.toContain(USER.password);
  });

  it("accepts a live token in place of a signature, for its own project only", async () => {
    const token = await issue();
    expect((await t.call("GET", `/v1/${PROJECT.id}/publicips`, { token })).status).toBe(200);
    expect((await t.call("GET", `/v1/${PROJECT.id}/cloudservers/detail`, { token })).status).toBe(200);
    const foreign = await t.call("GET", `/v1/${OTHER_PROJECT.id}/publicips`, { token });
    expect(foreign.status).toBe(403);
    expect(at(foreign.body, "error_msg")).toMatch(/scoped to another project/);
    expect((await t.call("GET", `/api/v3/projects/${OTHER_PROJECT.id}/clusters`, { token })).status).toBe(403);
    const other = await issue(OTHER_PROJECT.name);
    expect((await t.call("GET", `/v1/${OTHER_PROJECT.id}/publicips`, { token: other })).status).toBe(200);
  });

  it("logs who asked: the user and project of a token issued and used, the access key and project of a signed request", async () => {
    const from = t.sim.faults.requests.length;
    const token = await issue();
    await t.call("GET", `/v1/${PROJECT.id}/publicips`, { token });
    await t.call("GET", `/v1/${OTHER_PROJECT.id}/publicips`, { token });
    await t.call("GET", `/v1/${PROJECT.id}/publicips`, { project: PROJECT.id });
    const user = `${USER.domainName}/${USER.userName}`;
    expect(t.sim.faults.requests.slice(from).map((entry) => [entry.status, entry.caller])).toEqual([
      [201, { user, project: PROJECT.id }],
      [200, { user, project: PROJECT.id }],
      [403, { user, project: PROJECT.id }],
      [200, { user: `access-key:${CREDENTIALS.accessKey}`, project: PROJECT.id }],
    ]);
  });

  it("takes ELB v2's project from the token when X-Project-Id is absent", async () => {
    const token = await issue();
    const list = await t.call("GET", "/v2.0/lbaas/loadbalancers", { token });
    expect(list.status).toBe(200);
    expect((await t.call("GET", "/v2.0/lbaas/loadbalancers", { token, project: OTHER_PROJECT.id })).status).toBe(403);
  });

  it("refuses unknown and expired tokens with the gateway's 401", async () => {
    const token = await issue();
    const unknown = await t.call("GET", `/v1/${PROJECT.id}/publicips`, { token: "MIInot-a-token" });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ error_code: "APIGW.0301" });
    t.advance(24 * 60 * 60 * 1000 - 1);
    expect((await t.call("GET", `/v1/${PROJECT.id}/publicips`, { token })).status).toBe(200);
    t.advance(1);
    expect((await t.call("GET", `/v1/${PROJECT.id}/publicips`, { token })).status).toBe(401);
  });

  it.each([
    ["a wrong password", { password: "wrong" }],
    ["an unknown user", { user: "nobody" }],
    ["a wrong domain", { domain: "OTC-other" }],
    ["an unknown project", { project: "eu-de_nope" }],
  ])("answers %s with IAM's 401", async (_what, overrides) => {
    const result = await t.call("POST", "/v3/auth/tokens", { body: tokenBody(overrides), unsigned: true });
    expect(result.status).toBe(401);
    expect(result.subjectToken).toBeUndefined();
    expect(result.body).toEqual({ error: { code: 401, message: "The request you have made requires authentication.", title: "Unauthorized" } });
  });

  it("answers a malformed token request with IAM's 400", async () => {
    const result = await t.call("POST", "/v3/auth/tokens", { body: { auth: { identity: { methods: ["password"] } } }, unsigned: true });
    expect(result.status).toBe(400);
    expect(result.body).toEqual({ error: { code: 400, message: expect.stringContaining("auth.identity.password") as unknown, title: "Bad Request" } });
  });

  it("never puts a token into the request log", async () => {
    const token = await issue();
    await t.call("GET", `/v1/${PROJECT.id}/publicips`, { token });
    expect(JSON.stringify(t.sim.faults.requests)).not.toContain(token);
  });

  it("expires tokens after tokenTtlMs", async () => {
    const short = await startTestSimulator({ tokenTtlMs: 60_000 });
    try {
      const result = await short.call("POST", "/v3/auth/tokens", { body: tokenBody(), unsigned: true });
      const token = result.subjectToken ?? "";
      expect(at(result.body, "token.expires_at")).toBe("2026-03-01T12:01:00.000000Z");
      short.advance(60_000);
      expect((await short.call("GET", `/v1/${PROJECT.id}/publicips`, { token })).status).toBe(401);
    } finally {
      await short.sim.close();
    }
  });
});
