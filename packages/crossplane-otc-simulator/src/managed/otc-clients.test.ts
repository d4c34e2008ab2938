import { describe, expect, it } from "@jest/globals";
import { OtcClient } from "@edgeconnect/otc";
import type { ConnectOptions } from "./credentials.js";
import { OtcClients } from "./otc-clients.js";

const options = (secretKey: string): ConnectOptions => ({
  credentials: { kind: "accessKey", accessKey: "AKCACHETEST0001", secretKey },
  region: "eu-de",
  projectId: "0123456789abcdef0123456789abcdef",
});

describe("OtcClients", () => {
  it("connects once per distinct credentials and hands out clients bound to the caller's signal", async () => {
    const connects: ConnectOptions[] = [];
    const clients = new OtcClients(32, async (connect) => {
      connects.push(connect);
      return new OtcClient(connect);
    });
    const signal = new AbortController().signal;
    await Promise.all([clients.get(options("sk-cache-test-one"), signal), clients.get(options("sk-cache-test-one"), signal)]);
    await clients.get(options("sk-cache-test-two"), signal);
    expect(connects).toHaveLength(2);
    await clients.close();
  });

  it("forgets a failed connect, so that the next reconcile tries again", async () => {
    let attempts = 0;
    const clients = new OtcClients(32, async (connect) => {
      attempts += 1;
      if (attempts === 1) throw new Error("HTTP 401");
      return new OtcClient(connect);
    });
    const signal = new AbortController().signal;
    await expect(clients.get(options("sk-cache-test-fail"), signal)).rejects.toThrow("HTTP 401");
    await expect(clients.get(options("sk-cache-test-fail"), signal)).resolves.toBeInstanceOf(OtcClient);
    expect(attempts).toBe(2);
    await clients.close();
  });

  it("closes the least recently used client beyond its capacity", async () => {
    const made: OtcClient[] = [];
    const clients = new OtcClients(1, async (connect) => {
      const client = new OtcClient(connect);
      made.push(client);
      return client;
    });
    const signal = new AbortController().signal;
    await clients.get(options("sk-cache-test-a1"), signal);
    await clients.get(options("sk-cache-test-b1"), signal);
    await clients.get(options("sk-cache-test-a1"), signal);
    expect(made).toHaveLength(3);
    await clients.close();
  });
});
