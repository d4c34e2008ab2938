/**
 * A gateway that echoes the request back in an error must not hand the
 * client's AK, SK or security token to whoever logs the error.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { REDACTED } from "@edgeconnect/redaction";
import { OtcApiError } from "./errors.js";
import { Loopback, TEST_CREDENTIALS } from "./loopback.fixture.js";
import type { OtcClient } from "./otc-client.js";

const CREDENTIALS = { ...TEST_CREDENTIALS, securityToken: "echo-test-security-token-0123456789" };

async function failure(promise: Promise<unknown>): Promise<OtcApiError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof OtcApiError)) throw new Error(`expected an OtcApiError, got ${String(err)}`);
  return err;
}

function visible(err: OtcApiError): string {
  return [err.message, err.otcMessage ?? "", err.code ?? "", String(err), err.stack ?? "", JSON.stringify(err)].join("\n");
}

describe("credentials echoed by an OTC gateway", () => {
  let loopback: Loopback;
  let client: OtcClient;

  beforeAll(async () => {
    loopback = await Loopback.start();
    client = loopback.client({ credentials: CREDENTIALS, retry: { attempts: 1 } });
  });

  afterAll(async () => {
    client.close();
    await loopback.stop();
  });

  it("keeps the security token, AK and SK out of a JSON error that quotes them", async () => {
    loopback.reset((request) => ({
      status: 401,
      body: {
        error_code: "APIGW.0301",
        error_msg: `Incorrect IAM authentication information: token ${String(request.headers["x-security-token"])} for ${TEST_CREDENTIALS.accessKey} (sk ${TEST_CREDENTIALS.secretKey})`,
      },
    }));
    const err = await failure(client.request("ecs", "GET", "/v1/p/cloudservers/detail"));
    expect(err.status).toBe(401);
    expect(err.otcMessage).toBe(`Incorrect IAM authentication information: token ${REDACTED} for ${REDACTED} (sk ${REDACTED})`);
    for (const secret of [CREDENTIALS.securityToken, CREDENTIALS.accessKey, CREDENTIALS.secretKey]) expect(visible(err)).not.toContain(secret);
  });

  it("keeps the security token out of a non-JSON body that echoes every header", async () => {
    loopback.reset((request) => ({ status: 500, body: `upstream failed; request headers were ${JSON.stringify(request.headers)}` }));
    const err = await failure(client.request("elb", "GET", "/v3/p/elb/loadbalancers"));
    expect(err.message).toContain(REDACTED);
    expect(visible(err)).not.toContain(CREDENTIALS.securityToken);
    expect(visible(err)).not.toContain(CREDENTIALS.accessKey);
  });
});
