import { describe, expect, it } from "@jest/globals";
import { createKeypair, deleteKeypair, getKeypair } from "./keypairs.js";
import { TEST_PROJECT, useLoopback } from "./loopback.fixture.js";

describe("keypairs", () => {
  const env = useLoopback();

  const base = `/v2.1/${TEST_PROJECT}/os-keypairs`;
  const publicKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG1vY2sga2V5IGZvciB0ZXN0cw kcp";
  const keypair = { name: "kcp-abc", public_key: publicKey, fingerprint: "c1:2f:00", user_id: "u1" };

  it("imports a public key", async () => {
    env.loopback.reset(() => ({ body: { keypair } }));
    expect(await createKeypair(env.client, { name: "kcp-abc", publicKey })).toEqual(keypair);
    expect(env.loopback.requests.map((r) => [r.method, r.path, JSON.parse(r.body) as unknown])).toEqual([
      ["POST", base, { keypair: { name: "kcp-abc", public_key: publicKey } }],
    ]);
  });

  it("gets and deletes by name, tolerating 404", async () => {
    env.loopback.reset((r) =>
      r.path === `${base}/kcp-abc`
        ? r.method === "GET"
          ? { body: { keypair } }
          : { status: 202 }
        : { status: 404, body: { itemNotFound: { code: 404, message: "Keypair gone could not be found." } } },
    );
    expect(await getKeypair(env.client, "kcp-abc")).toEqual(keypair);
    expect(await getKeypair(env.client, "gone")).toBeUndefined();
    expect(await deleteKeypair(env.client, "kcp-abc")).toBe(true);
    expect(await deleteKeypair(env.client, "gone")).toBe(false);
    expect(env.loopback.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${base}/kcp-abc`, `GET ${base}/gone`, `DELETE ${base}/kcp-abc`, `DELETE ${base}/gone`]);
  });

  it("encodes names into the path", async () => {
    env.loopback.reset(() => ({ status: 404, body: { itemNotFound: { code: 404, message: "Keypair a/b c could not be found." } } }));
    await getKeypair(env.client, "a/b c");
    expect(env.loopback.requests[0]?.url).toBe(`${base}/a%2Fb%20c`);
  });
});
