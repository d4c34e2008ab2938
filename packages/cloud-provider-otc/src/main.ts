#!/usr/bin/env node
/**
 * The entry of `otc-cloud-controller-manager`; the program is program.ts.
 * Node's compile cache goes on before the program loads and is written
 * once it has, as in the provider-controller's main.ts.
 */
import { enableCompileCache, flushCompileCache } from "node:module";

enableCompileCache();
await import("./program.js");
flushCompileCache();
