import { describe, expect, it } from "@jest/globals";
import { registerSecret } from "@edgeconnect/redaction";
import { reportUncaughtErrors, UNCAUGHT_ERROR_EXIT_CODE } from "./crash-report.js";
import { createLogger } from "./logger.js";

describe("reportUncaughtErrors", () => {
  it("reports an uncaught error through redaction, then ends the process with status 1", () => {
    const chunks: string[] = [];
    const logger = createLogger({ destination: { write: (chunk: string) => void chunks.push(chunk) } });
    const exits: number[] = [];
    const remove = reportUncaughtErrors(logger, (code) => exits.push(code));
    const credential = Buffer.from("crash-report-credential-0001").toString("base64");
    registerSecret("crash-report-credential-0001");
    try {
      // What V8 said when a regular expression was built from a 100 KB credential: the pattern, credential and all.
      const err = Object.assign(new SyntaxError(`Invalid regular expression: /${credential}|x/: Regular expression too large`), {
        request: { headers: { authorization: "Bearer crash-report-bearer-0002" } },
      });
      process.emit("uncaughtException", err);
    } finally {
      remove();
    }
    expect(exits).toEqual([UNCAUGHT_ERROR_EXIT_CODE]);
    const text = chunks.join("");
    expect(text).toContain("uncaught error; the process ends");
    expect(text).toContain("SyntaxError");
    expect(text).not.toMatch(/crash-report-credential|crash-report-bearer/);
    expect(text).not.toContain(credential);
  });
});
