import { describe, expect, it } from "@jest/globals";
import { SessionStore } from "./sessions.js";

class Value {
  closed = false;
  constructor(readonly name: string) {}
  close(): void {
    this.closed = true;
  }
}

function store(overrides: Partial<{ maxSessions: number; lifetimeMs: number; idleMs: number }> = {}) {
  let now = 1_000;
  const sessions = new SessionStore<Value>({ maxSessions: 2, lifetimeMs: 10_000, idleMs: 4_000, now: () => now, ...overrides });
  return { sessions, advance: (ms: number) => (now += ms) };
}

describe("SessionStore", () => {
  it("gives unguessable ids and the value back for them", () => {
    const { sessions } = store();
    const a = new Value("a");
    const id = sessions.create(a);
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessions.use(id)).toBe(a);
    expect(sessions.use("not-an-id")).toBeUndefined();
    expect(sessions.use(undefined)).toBeUndefined();
    expect(sessions.create(new Value("b"))).not.toBe(id);
  });

  it("refuses a sign-in beyond maxSessions, closing its value, and keeps the others", () => {
    const { sessions } = store();
    const a = new Value("a");
    const idA = sessions.create(a);
    sessions.create(new Value("b"));
    const c = new Value("c");
    expect(sessions.create(c)).toBeUndefined();
    expect(c.closed).toBe(true);
    expect(sessions.use(idA)).toBe(a);
    expect(sessions.size).toBe(2);
  });

  it("makes room once sessions have expired", () => {
    const { sessions, advance } = store();
    sessions.create(new Value("a"));
    sessions.create(new Value("b"));
    advance(4_000);
    expect(sessions.create(new Value("c"))).toBeDefined();
    expect(sessions.size).toBe(1);
  });

  it("ends a session idle for idleMs and closes its value", () => {
    const { sessions, advance } = store();
    const a = new Value("a");
    const id = sessions.create(a);
    advance(3_999);
    expect(sessions.use(id)).toBe(a);
    advance(3_999);
    expect(sessions.use(id)).toBe(a);
    advance(4_000);
    expect(sessions.use(id)).toBeUndefined();
    expect(a.closed).toBe(true);
  });

  it("ends a session at its lifetime however much it is used", () => {
    const { sessions, advance } = store();
    const id = sessions.create(new Value("a")) ?? "";
    for (let i = 0; i < 3; i++) {
      advance(3_000);
      expect(sessions.use(id)).toBeDefined();
    }
    advance(1_000);
    expect(sessions.alive(id)).toBe(false);
    expect(sessions.use(id)).toBeUndefined();
  });

  it("alive() does not count as use", () => {
    const { sessions, advance } = store();
    const id = sessions.create(new Value("a")) ?? "";
    advance(3_000);
    expect(sessions.alive(id)).toBe(true);
    advance(1_000);
    expect(sessions.alive(id)).toBe(false);
  });

  it("ends on sign-out and on clear", () => {
    const { sessions } = store();
    const a = new Value("a");
    const b = new Value("b");
    const id = sessions.create(a) ?? "";
    sessions.create(b);
    sessions.end(id);
    expect(a.closed).toBe(true);
    expect(sessions.use(id)).toBeUndefined();
    sessions.clear();
    expect(b.closed).toBe(true);
    expect(sessions.size).toBe(0);
  });

  it("rejects limits that are not positive integers", () => {
    expect(() => new SessionStore({ maxSessions: 0, lifetimeMs: 1, idleMs: 1 })).toThrow(/maxSessions/);
    expect(() => new SessionStore({ maxSessions: 1, lifetimeMs: 1.5, idleMs: 1 })).toThrow(/lifetimeMs/);
  });
});
