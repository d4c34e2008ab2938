import { describe, expect, it } from "@jest/globals";
import { parseBindAddress } from "./bind-address.js";

describe("parseBindAddress", () => {
  it("reads Go-style host:port addresses", () => {
    expect(parseBindAddress(":8080")).toEqual({ host: undefined, port: 8080 });
    expect(parseBindAddress("127.0.0.1:0")).toEqual({ host: "127.0.0.1", port: 0 });
    expect(parseBindAddress("localhost:9090")).toEqual({ host: "localhost", port: 9090 });
    expect(parseBindAddress("[::1]:8081")).toEqual({ host: "::1", port: 8081 });
    expect(parseBindAddress("0.0.0.0:65535")).toEqual({ host: "0.0.0.0", port: 65535 });
  });

  it('turns the server off for "0"', () => {
    expect(parseBindAddress("0")).toBeUndefined();
  });

  it("rejects everything else", () => {
    for (const address of ["", "8080", ":", "host:", ":65536", ":80a", "::1:8080", "127.0.0.1:-1"]) {
      expect(() => parseBindAddress(address)).toThrow(/invalid bind address/);
    }
  });
});
