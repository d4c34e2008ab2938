#!/usr/bin/env node
/**
 * The entry of `provider-controller`; the program is program.ts. Node's
 * compile cache goes on before the program loads, so that a restart takes
 * the V8 code of every module from disk instead of compiling it again
 * (bench:boot measures what that saves). The cache lives in
 * `$NODE_COMPILE_CACHE`, else `<tmpdir>/node-compile-cache`; where that
 * cannot be written, nothing is cached and nothing fails. It is written once
 * the program has loaded, not only at exit as Node would: a process that is
 * killed never exits.
 */
import { enableCompileCache, flushCompileCache } from "node:module";

enableCompileCache();
await import("./program.js");
flushCompileCache();
