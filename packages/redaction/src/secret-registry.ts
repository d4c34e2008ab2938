/**
 * The credential values a process holds, and `scrubText`, which hides them
 * (and credentials of a known shape, registered or not) in any text: error
 * messages and bodies, log lines, Event messages.
 *
 * Values are held by someone: the process itself for what it authenticates
 * with (`registerSecret`), a holder for what belongs to one tenant or one
 * object (`holdSecrets`: a tenant's credential set, a kubeconfig until it is
 * replaced), or a deadline for what expires (`registerSecret(value, {until})`:
 * an IAM token). A value is forgotten once nobody holds it any more, after a
 * grace period: an error or a log line made from it just before it was let go
 * may still be on its way out (a retry's backoff, a request ending at its
 * deadline). A process serving thousands of tenants, whose tokens renew every
 * day, so holds what is in use, not everything it ever saw.
 *
 * Scrubbing costs time linear in the text, whatever the number of values
 * (see needle-index.ts); registering costs the value's length. Neither throws,
 * whatever a value holds or how large it is: a tenant's input must never take
 * down the process that serves every tenant.
 */
import { credentialForms, MIN_SECRET_LENGTH } from "./credential-forms.js";
import { noteContainedFailure } from "./failures.js";
import { NeedleIndex } from "./needle-index.js";
import { REDACTED, scrubShapes } from "./shapes.js";

/** How long a value let go of is still scrubbed. */
export const RELEASE_GRACE_MS = 10 * 60_000;

/**
 * What `scrubText` returns for a text it could not scrub (one too large for
 * the engine to copy, say): nothing of the text, only its length.
 */
export const UNSCRUBBABLE = "[REDACTED: text could not be scrubbed]";

/** Who holds a set of values. `tenant` lets all of one tenant's holders go at once. */
export interface SecretHolder {
  readonly tenant?: string;
  readonly name: string;
}

export interface HoldOptions {
  /** Epoch milliseconds after which the values are no longer valid (an expiring token); they are kept for the grace period beyond. */
  readonly until?: number;
}

export interface SecretRegistryOptions {
  /** Epoch milliseconds. Default `Date.now`. */
  readonly now?: () => number;
  /** Default `RELEASE_GRACE_MS`. */
  readonly graceMs?: number;
}

interface Holding {
  readonly values: ReadonlySet<string>;
  readonly tenant: string | undefined;
  readonly expiresAt: number | undefined;
  /** Tells a holding from a later one under the same key, when an expiry comes due. */
  readonly generation: number;
}

interface HeldValue {
  holders: number;
  readonly forms: readonly string[];
}

interface Expiry {
  readonly at: number;
  readonly key: string;
  readonly generation: number;
}

export class SecretRegistry {
  readonly #now: () => number;
  readonly #graceMs: number;
  readonly #index = new NeedleIndex();
  /** How many held values have each form: two values can share one (a value equal to another's base64). */
  readonly #forms = new Map<string, number>();
  readonly #values = new Map<string, HeldValue>();
  readonly #holdings = new Map<string, Holding>();
  readonly #tenants = new Map<string, Set<string>>();
  readonly #expiries = new ExpiryHeap();
  /** Held for the life of the process: what it authenticates with itself. */
  readonly #processValues = new Set<string>();
  #generation = 0;

  constructor(options: SecretRegistryOptions = {}) {
    this.#now = options.now ?? (() => Date.now());
    this.#graceMs = options.graceMs ?? RELEASE_GRACE_MS;
  }

  /** How many distinct values are held. */
  get size(): number {
    this.#expire();
    return this.#values.size;
  }

  /** Holds `value` for the life of the process, or until `options.until` plus the grace period. */
  register(value: unknown, options: HoldOptions = {}): void {
    if (!isHoldable(value)) return;
    this.#contain(() => {
      if (options.until === undefined) {
        if (this.#processValues.has(value)) return;
        this.#processValues.add(value);
        this.#take(value);
      } else {
        this.#put(`expiring:${++this.#generation}`, undefined, new Set([value]), options.until + this.#graceMs);
      }
    });
  }

  /**
   * Makes `values` what `holder` holds, in place of what it held before
   * (those not held again go after the grace period). With `until`, the
   * holding ends by itself then, plus the grace period.
   */
  hold(holder: SecretHolder, values: Iterable<unknown>, options: HoldOptions = {}): void {
    this.#contain(() => {
      const held = new Set<string>();
      for (const value of values) if (isHoldable(value)) held.add(value);
      const until = options.until === undefined ? undefined : options.until + this.#graceMs;
      this.#put(holderKey(holder), holder.tenant, held, until);
    });
  }

  /** Lets go of what `holder` holds; its values go after the grace period unless someone else holds them. */
  release(holder: SecretHolder): void {
    this.#contain(() => this.#put(holderKey(holder), holder.tenant, new Set(), undefined));
  }

  /** Lets go of everything any holder of `tenant` holds: the tenant is gone. */
  releaseTenant(tenant: string): void {
    this.#contain(() => {
      for (const key of [...(this.#tenants.get(tenant) ?? [])]) this.#put(key, tenant, new Set(), undefined);
    });
  }

  /** `text` with every held value, in any of its forms, and every credential of a known shape replaced by `REDACTED`. Never throws. */
  scrub(text: string): string {
    return this.#contained(() => scrubShapes(this.#replaceHeld(text)));
  }

  /**
   * `text` with every held value replaced, shapes left alone: for text whose
   * parts each went through `scrub` already and which may only hold what
   * was registered since (a log line made of scrubbed fields). Never throws.
   */
  scrubHeld(text: string): string {
    return this.#contained(() => this.#replaceHeld(text));
  }

  #replaceHeld(text: string): string {
    this.#expire();
    const spans = this.#index.find(text);
    if (spans.length === 0) return text;
    const parts: string[] = [];
    let from = 0;
    for (const [start, end] of spans) {
      parts.push(text.slice(from, start), REDACTED);
      from = end;
    }
    parts.push(text.slice(from));
    return parts.join("");
  }

  #contained(scrub: () => string): string {
    try {
      return scrub();
    } catch {
      noteContainedFailure("scrub");
      return UNSCRUBBABLE;
    }
  }

  /** Sets what `key` holds; what it held before and does not hold now lingers for the grace period. */
  #put(key: string, tenant: string | undefined, values: ReadonlySet<string>, expiresAt: number | undefined): void {
    this.#expire();
    const previous = this.#holdings.get(key);
    // A reconcile holds the same values again and again: that must cost nothing and queue no expiry.
    if (previous !== undefined && previous.expiresAt === expiresAt && sameValues(previous.values, values)) return;
    for (const value of values) if (previous?.values.has(value) !== true) this.#take(value);
    if (previous !== undefined) {
      const dropped = new Set([...previous.values].filter((value) => !values.has(value)));
      if (dropped.size > 0) this.#put(`lingering:${++this.#generation}`, undefined, dropped, this.#now() + this.#graceMs);
      for (const value of dropped) this.#give(value);
    }
    if (values.size === 0) {
      this.#holdings.delete(key);
      if (tenant !== undefined) this.#forgetTenantKey(tenant, key);
      return;
    }
    const generation = ++this.#generation;
    this.#holdings.set(key, { values, tenant, generation, expiresAt });
    if (tenant !== undefined) {
      const keys = this.#tenants.get(tenant) ?? new Set<string>();
      keys.add(key);
      this.#tenants.set(tenant, keys);
    }
    if (expiresAt !== undefined) this.#expiries.push({ at: expiresAt, key, generation });
  }

  #take(value: string): void {
    const held = this.#values.get(value);
    if (held !== undefined) {
      held.holders += 1;
      return;
    }
    const forms = credentialForms(value);
    this.#values.set(value, { holders: 1, forms });
    for (const form of forms) {
      const count = this.#forms.get(form) ?? 0;
      this.#forms.set(form, count + 1);
      if (count === 0) this.#index.add(form);
    }
  }

  #give(value: string): void {
    const held = this.#values.get(value);
    if (held === undefined) return;
    held.holders -= 1;
    if (held.holders > 0) return;
    this.#values.delete(value);
    for (const form of held.forms) {
      const count = (this.#forms.get(form) ?? 1) - 1;
      if (count > 0) {
        this.#forms.set(form, count);
      } else {
        this.#forms.delete(form);
        this.#index.delete(form);
      }
    }
  }

  /** Ends the holdings whose time is up: cheap when none is (one comparison). */
  #expire(): void {
    const now = this.#now();
    for (let due = this.#expiries.peek(); due !== undefined && due.at <= now; due = this.#expiries.peek()) {
      this.#expiries.pop();
      const holding = this.#holdings.get(due.key);
      if (holding === undefined || holding.generation !== due.generation) continue;
      this.#holdings.delete(due.key);
      if (holding.tenant !== undefined) this.#forgetTenantKey(holding.tenant, due.key);
      for (const value of holding.values) this.#give(value);
    }
  }

  #forgetTenantKey(tenant: string, key: string): void {
    const keys = this.#tenants.get(tenant);
    keys?.delete(key);
    if (keys?.size === 0) this.#tenants.delete(tenant);
  }

  /** Registration must not throw into its caller (a reconcile, a client's constructor): what fails is counted, never shown. */
  #contain(change: () => void): void {
    try {
      change();
    } catch {
      noteContainedFailure("register");
    }
  }
}

function isHoldable(value: unknown): value is string {
  return typeof value === "string" && value.length >= MIN_SECRET_LENGTH;
}

function sameValues(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const value of a) if (!b.has(value)) return false;
  return true;
}

function holderKey(holder: SecretHolder): string {
  return JSON.stringify([holder.tenant ?? null, holder.name]);
}

/** A binary min-heap of expiries by time. */
class ExpiryHeap {
  readonly #items: Expiry[] = [];

  peek(): Expiry | undefined {
    return this.#items[0];
  }

  push(item: Expiry): void {
    const items = this.#items;
    items.push(item);
    for (let i = items.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (items[parent]!.at <= items[i]!.at) break;
      [items[parent], items[i]] = [items[i]!, items[parent]!];
      i = parent;
    }
  }

  pop(): Expiry | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    for (let i = 0; ; ) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < items.length && items[left]!.at < items[smallest]!.at) smallest = left;
      if (right < items.length && items[right]!.at < items[smallest]!.at) smallest = right;
      if (smallest === i) break;
      [items[smallest], items[i]] = [items[i]!, items[smallest]!];
      i = smallest;
    }
    return top;
  }
}

// On globalThis, so that two copies of this module in one process (a bundled
// one and a linked one, say) still share one registry.
const REGISTRY_KEY = Symbol.for("@edgeconnect/redaction.registry.v2");

/** The process's registry, which the functions below and `scrubDeep` use. */
export function processSecrets(): SecretRegistry {
  const holder = globalThis as { [REGISTRY_KEY]?: SecretRegistry };
  holder[REGISTRY_KEY] ??= new SecretRegistry();
  return holder[REGISTRY_KEY];
}

/**
 * Makes `scrubText` (and so `scrubDeep`, the logger, client errors and
 * Events) replace `value` wherever it appears, for the life of the process or
 * until `options.until` (plus the grace period). Registering a value twice is
 * free; non-strings and values shorter than `MIN_SECRET_LENGTH` are ignored.
 */
export function registerSecret(value: unknown, options?: HoldOptions): void {
  processSecrets().register(value, options);
}

/** See `SecretRegistry.hold`. */
export function holdSecrets(holder: SecretHolder, values: Iterable<unknown>, options?: HoldOptions): void {
  processSecrets().hold(holder, values, options);
}

/** See `SecretRegistry.release`. */
export function releaseSecrets(holder: SecretHolder): void {
  processSecrets().release(holder);
}

/** See `SecretRegistry.releaseTenant`. */
export function releaseTenantSecrets(tenant: string): void {
  processSecrets().releaseTenant(tenant);
}

/** How many distinct values the process holds. */
export function heldSecretCount(): number {
  return processSecrets().size;
}

/** `text` with every registered value, in any of its forms, and every credential of a known shape replaced by `REDACTED`. Never throws. */
export function scrubText(text: string): string {
  return processSecrets().scrub(text);
}

/** See `SecretRegistry.scrubHeld`. */
export function scrubHeldValues(text: string): string {
  return processSecrets().scrubHeld(text);
}
