import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { KEYPAIRS, sshPublicKey } from "./cce-test.fixture.js";
import { at, OTHER_PROJECT, pluck, startTestSimulator, type TestSimulator, text } from "./test-client.fixture.js";

describe("key pairs (Nova os-keypairs)", () => {
  let t: TestSimulator;
  beforeAll(async () => {
    t = await startTestSimulator();
  });
  afterAll(() => t.sim.close());

  it("imports a public key with its OpenSSH MD5 fingerprint, gets, lists and deletes it", async () => {
    const publicKey = sshPublicKey();
    const created = await t.call("POST", KEYPAIRS, { body: { keypair: { name: "ci-key", public_key: publicKey } } });
    expect(created.status).toBe(200);
    expect(at(created.body, "keypair")).toMatchObject({ name: "ci-key", public_key: publicKey, type: "ssh" });
    expect(text(created.body, "keypair.fingerprint")).toMatch(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/);
    expect(text(created.body, "keypair.user_id")).toMatch(/^[0-9a-f]{32}$/);

    const got = await t.call("GET", `${KEYPAIRS}/ci-key`);
    expect(at(got.body, "keypair")).toMatchObject({ name: "ci-key", public_key: publicKey, deleted: false });
    expect(pluck((await t.call("GET", KEYPAIRS)).body, "keypairs", "keypair.name")).toEqual(["ci-key"]);
    expect((await t.call("GET", `/v2.1/${OTHER_PROJECT.id}/os-keypairs/ci-key`)).status).toBe(404);

    expect((await t.call("DELETE", `${KEYPAIRS}/ci-key`)).status).toBe(202);
    const gone = await t.call("GET", `${KEYPAIRS}/ci-key`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ itemNotFound: { code: 404, message: expect.stringContaining("ci-key") as unknown } });
  });

  it("answers 409 for a name that exists", async () => {
    const body = { keypair: { name: "twice", public_key: sshPublicKey() } };
    expect((await t.call("POST", KEYPAIRS, { body })).status).toBe(200);
    const again = await t.call("POST", KEYPAIRS, { body });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ conflictingRequest: { code: 409, message: "Key pair 'twice' already exists." } });
  });

  it.each([
    ["garbage", "not a key"],
    ["a blob of another type", sshPublicKey().replace(/^ssh-ed25519/, "ssh-rsa")],
    ["broken base64", "ssh-ed25519 AAAA!!!"],
  ])("refuses %s as public key", async (_what, publicKey) => {
    const result = await t.call("POST", KEYPAIRS, { body: { keypair: { name: "bad", public_key: publicKey } } });
    expect(result.status).toBe(400);
    expect(at(result.body, "badRequest.message")).toMatch(/Keypair data is invalid/);
  });

  it("refuses invalid names and a missing public key", async () => {
    expect((await t.call("POST", KEYPAIRS, { body: { keypair: { name: "no spaces", public_key: sshPublicKey() } } })).status).toBe(400);
    const missing = await t.call("POST", KEYPAIRS, { body: { keypair: { name: "nokey" } } });
    expect(missing.status).toBe(400);
    expect(at(missing.body, "badRequest.message")).toMatch(/keypair.public_key is required/);
  });
});
