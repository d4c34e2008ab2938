import { describe, expect, it } from "@jest/globals";
import { OtcApiError, isCredentialRejection, isRetryableStatus, parseErrorBody } from "./errors.js";

describe("parseErrorBody", () => {
  it.each([
    ['{"error_code":"ECS.0114","error_msg":"not found"}', "ECS.0114", "not found"],
    ['{"error":{"code":"ELB.8902","message":"busy"},"request_id":"r"}', "ELB.8902", "busy"],
    ['{"code":"IAM.0001","message":"denied"}', "IAM.0001", "denied"],
    ['{"code":404,"message":"gone"}', "404", "gone"],
    ['{"NeutronError":{"type":"PortNotFound","message":"no port","detail":""}}', "PortNotFound", "no port"],
    ['{"itemNotFound":{"code":404,"message":"Instance could not be found"}}', "404", "Instance could not be found"],
    // CCE's Kubernetes Status: `code` only repeats the HTTP status, `reason` says what went wrong.
    ['{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"cluster c1 not found","reason":"NotFound","code":404}', "NotFound", "cluster c1 not found"],
    ['{"kind":"Status","apiVersion":"v1","status":"Failure","message":"subnet is not in the VPC","code":400}', "400", "subnet is not in the VPC"],
    // CCE's own codes win over the Status fields when it sends both.
    ['{"kind":"Status","status":"Failure","message":"m","reason":"BadRequest","code":400,"error_code":"CCE.01400001","error_msg":"Invalid request."}', "CCE.01400001", "Invalid request."],
    ['{"error_code":"CCE_CM.0003","error_msg":"Resource not found"}', "CCE_CM.0003", "Resource not found"],
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
  });

  it.each<[string, string, boolean, boolean]>([
    ["VPC's own code", '{"code":"VPC.0202","message":"Query resource by id v1 fail."}', true, false],
    ["CCE's Status", '{"kind":"Status","status":"Failure","reason":"NotFound","code":404,"message":"cluster c could not be found"}', true, false],
    ["ECS's error", '{"error":{"code":"Ecs.0114","message":"server not found"}}', true, false],
    ["Nova's itemNotFound", '{"itemNotFound":{"code":404,"message":"Instance could not be found"}}', true, false],
    ["the API gateway's unpublished route", '{"error_code":"APIGW.0101","error_msg":"The API does not exist or has not been published in the environment"}', false, true],
    ["a proxy's page without a code", "<html>404 Not Found</html>", false, false],
    ["an empty body", "", false, false],
  ])("takes a 404 with %s as gone: %s (retryable: %s)", (_case, body, gone, retryable) => {
    const error = new OtcApiError("GET", "/x", 404, body);
    expect(error.notFound).toBe(gone);
    expect(error.retryable).toBe(retryable);
  });

  it("reads a CCE Status into code and message", () => {
    const body = '{"kind":"Status","apiVersion":"v1","status":"Failure","message":"cluster is not Available","reason":"BadRequest","code":400}';
    const error = new OtcApiError("POST", "/api/v3/projects/p/clusters/c/clustercert", 400, body);
    expect(error).toMatchObject({ code: "BadRequest", otcMessage: "cluster is not Available" });
    expect(error.message).toBe("POST /api/v3/projects/p/clusters/c/clustercert: HTTP 400 BadRequest: cluster is not Available");
  });

  it.each([
    [401, true],
    [403, true],
    [400, false],
    [404, false],
    [0, false],
    [500, false],
  ])("status %i is a credential rejection: %p", (status, rejected) => {
    expect(isCredentialRejection(new OtcApiError("GET", "/v3/projects", status, ""))).toBe(rejected);
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
