/**
 * Server-side sessions: the browser holds only a random id (in an HttpOnly,
 * SameSite=Strict cookie); the user's kcp token stays in this process's
 * memory, inside the session's value, and is let go when the session ends.
 *
 * Bounded: at most `maxSessions` at once (a sign-in beyond is refused, not
 * let to push out someone else's session), each for at most `lifetimeMs`
 * after sign-in and `idleMs` after its last use. An ended session's value is
 * closed (its client, and with it the token's hold for redaction).
 */
import { randomBytes } from "node:crypto";

export interface Closeable {
  close(): void;
}

export interface SessionLimits {
  readonly maxSessions: number;
  readonly lifetimeMs: number;
  readonly idleMs: number;
  /** Milliseconds; tests set it. */
  readonly now?: () => number;
}

interface Entry<T> {
  readonly value: T;
  readonly createdAt: number;
  lastUsed: number;
}

export class SessionStore<T extends Closeable> {
  private readonly sessions = new Map<string, Entry<T>>();
  private readonly now: () => number;

  constructor(private readonly limits: SessionLimits) {
    for (const [name, value] of Object.entries({ maxSessions: limits.maxSessions, lifetimeMs: limits.lifetimeMs, idleMs: limits.idleMs })) {
      if (!(Number.isInteger(value) && value > 0)) throw new RangeError(`${name} must be a positive integer, got ${value}`);
    }
    this.now = limits.now ?? Date.now;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** A new session's id, or undefined when the store is full of live sessions (the value is then closed). */
  create(value: T): string | undefined {
    this.sweep();
    if (this.sessions.size >= this.limits.maxSessions) {
      value.close();
      return undefined;
    }
    // 256 bits: not guessable, and a Map lookup needs no constant-time compare.
    const id = randomBytes(32).toString("base64url");
    const at = this.now();
    this.sessions.set(id, { value, createdAt: at, lastUsed: at });
    return id;
  }

  /** The live session's value, marked used now; undefined (and ended) when expired or unknown. */
  use(id: string | undefined): T | undefined {
    if (id === undefined) return undefined;
    const entry = this.sessions.get(id);
    if (entry === undefined) return undefined;
    const at = this.now();
    if (this.expired(entry, at)) {
      this.end(id);
      return undefined;
    }
    entry.lastUsed = at;
    return entry.value;
  }

  /** Whether the session is still live, without counting as use (a live stream asks this). */
  alive(id: string): boolean {
    const entry = this.sessions.get(id);
    if (entry === undefined) return false;
    if (!this.expired(entry, this.now())) return true;
    this.end(id);
    return false;
  }

  end(id: string): void {
    const entry = this.sessions.get(id);
    if (entry === undefined) return;
    this.sessions.delete(id);
    entry.value.close();
  }

  /** Ends every expired session. */
  sweep(): void {
    const at = this.now();
    for (const [id, entry] of this.sessions) if (this.expired(entry, at)) this.end(id);
  }

  /** Ends every session (shutdown). */
  clear(): void {
    for (const id of [...this.sessions.keys()]) this.end(id);
  }

  private expired(entry: Entry<T>, at: number): boolean {
    return at - entry.createdAt >= this.limits.lifetimeMs || at - entry.lastUsed >= this.limits.idleMs;
  }
}
