import { describe, expect, it } from "@jest/globals";
import { OtcApiError, isRetryableStatus, parseErrorBody } from "./errors.js";

describe("parseErrorBody", () => {
  it.each([
    ['{"error_code":"ECS.0114","error_msg":"not found"}', "ECS.0114", "not found"],
    ['{"error":{"code":"ELB.8902","message":"busy"},"request_id":"r"}', "ELB.8902", "busy"],
    ['{"code":"IAM.0001","message":"denied"}', "IAM.0001", "denied"],
    ['{"code":404,"message":"gone"}', "404", "gone"],
    ['{"NeutronError":{"type":"PortNotFound","message":"no port","detail":""}}', "PortNotFound", "no port"],
    ['{"itemNotFound":{"code":404,"message":"Instance could not be found"}}', "404", "Instance could not be found"],
  ])("reads %s", (body, code, message) => {
    expect(parseErrorBody(body)).toEqual({ code, message });
  });

  it.each(["", "<html>Bad Gateway</html>", "[]", "null", '{"unrelated":1,"other":2}'])("yields nothing for %p", (body) => {
    expect(parseErrorBody(body)).toEqual({ code: undefined, message: undefined });
  });
});

describe("OtcApiError", () => {
  it("falls back to the start of a non-JSON body and classifies retryability", () => {
    const error = new OtcApiError("DELETE", "/v1/p/publicips/e", 502, "<html>Bad Gateway</html>");
    expect(error.message).toBe("DELETE /v1/p/publicips/e: HTTP 502: <html>Bad Gateway</html>");
    expect(error.retryable).toBe(true);
    expect(error.notFound).toBe(false);
    expect(new OtcApiError("GET", "/x", 404, "").notFound).toBe(true);
  });

  it.each([
    [0, true],
    [409, true],
    [429, true],
    [500, true],
    [503, true],
    [400, false],
    [401, false],
    [403, false],
    [404, false],
  ])("status %i retryable: %p", (status, retryable) => {
    expect(isRetryableStatus(status)).toBe(retryable);
  });
});
