/**
 * The re2-wasm backend, selected for this file: RE2's own semantics where re2js differs, and its
 * fixed 16 MB of memory, which the garbage collector does not reclaim. A regex met while that
 * memory is full is a failed test (the event fails closed), never an invalid regex, and works once
 * there is room; fast-path regexes let their compiled pattern go, and get one again for a text the
 * fast path cannot take.
 */
import { createRequire } from 'node:module';
import { RE2 } from 're2-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileAgentMatcher } from '../hooks/protocol.js';
import { re2WasmHeld } from './backend-re2wasm.js';
import { checkRegex, clearRegexCache, compileRegex, re2jsBackend, re2WasmBackend, regexFailures, regexPlan, useRegexBackend } from './index.js';

beforeAll(() => useRegexBackend(re2WasmBackend));
afterAll(() => useRegexBackend(re2jsBackend));

// Run as JavaScript RegExps; RE2 compiles them once to check them, then lets them go.
const fastPattern = (i: number) => `\\btool${i}\\s+--force\\b`;
// Off the fast path (a repeated character that can also start the pattern): RE2 at every test.
const re2Pattern = (i: number) => `\\b(?:item${i}|elem${i})\\s+--(?:force|hard|yes)\\b[a-z]{0,20}`;

/** re2-wasm's own allocator, to fill its memory the way a thousand compiled patterns would. */
const wasm = createRequire(import.meta.url)('re2-wasm/build/wasm/re2.js') as { _malloc(n: number): number; _free(p: number): void };
const noise = process.stderr.write;

/** Allocates re2-wasm memory until none is left; returns what to free. */
function fillRe2Memory(): number[] {
  const blocks: number[] = [];
  // re2-wasm reports an exhausted memory on stderr before it throws.
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    for (let size = 1 << 20; size >= 16; size >>= 1) {
      for (;;) {
        let p = 0;
        try {
          p = wasm._malloc(size);
        } catch {
          break;
        }
        if (p === 0) break;
        blocks.push(p);
      }
    }
  } finally {
    process.stderr.write = noise;
  }
  return blocks;
}

describe('regexes and RE2 memory', () => {
  it('a regex met while RE2 memory is full fails closed for that test, is not taken as invalid, and works once there is room', () => {
    clearRegexCache();
    const m = compileRegex(re2Pattern(1), '');
    const blocks = fillRe2Memory();
    expect(blocks.length).toBeGreaterThan(0);
    const failures = regexFailures();
    process.stderr.write = (() => true) as typeof process.stderr.write;
    let problem: ReturnType<typeof checkRegex>;
    let answer: boolean;
    try {
      answer = m.test('the elem1 --hard now');
      problem = checkRegex(re2Pattern(2), '');
    } finally {
      process.stderr.write = noise;
      for (const p of blocks) wasm._free(p);
    }
    expect(answer).toBe(false);
    expect(regexFailures()).toBeGreaterThan(failures);
    expect(problem).toMatchObject({ transient: true, message: expect.stringMatching(/out of memory/) });
    // With room again, the same matcher and regex are fine.
    expect(m.test('the elem1 --hard now')).toBe(true);
    expect(checkRegex(re2Pattern(2), '')).toBeNull();
  });

  it('fast-path regexes hold no RE2 object once checked', () => {
    clearRegexCache();
    expect(regexPlan(fastPattern(0), '').fast).toBe(true);
    const ms = Array.from({ length: 300 }, (_, i) => compileRegex(fastPattern(i), ''));
    for (const [i, m] of ms.entries()) expect(m.test(`run tool${i} --force`)).toBe(true);
    expect(re2WasmHeld()).toBe(0);
  });

  it('a fast-path regex whose RE2 object was released still answers as RE2 on text it cannot take', () => {
    clearRegexCache();
    const m = compileRegex('a.c', '');
    expect(m.test('abc')).toBe(true);
    expect(re2WasmHeld()).toBe(0);
    // An unpaired surrogate sends the test to RE2, which compiles the regex again.
    const re2 = new RE2('a.c', 'u');
    for (const text of ['a\ud800c', 'a\udc00c', 'x\ud800abc']) expect(m.test(text), JSON.stringify(text)).toBe(re2.test(text));
    expect(re2WasmHeld()).toBe(1);
  });

  it('hook matchers compiled while RE2 memory is full are not taken as invalid', () => {
    clearRegexCache();
    const blocks = fillRe2Memory();
    let codex: ReturnType<typeof compileAgentMatcher>;
    let claude: ReturnType<typeof compileAgentMatcher>;
    let whileFull: boolean[];
    const failures = regexFailures();
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      codex = compileAgentMatcher('codex', '^mcp__memfull__.*');
      claude = compileAgentMatcher('claude', '^mcp__memfull2__.*');
      // Codex's matcher cannot run without RE2: the test fails and counts (the event fails closed).
      // Claude Code's own engine is JavaScript's, which answers while RE2 cannot.
      whileFull = [codex.test('mcp__memfull__read'), claude.test('mcp__memfull2__read'), claude.test('Bash')];
    } finally {
      process.stderr.write = noise;
      for (const p of blocks) wasm._free(p);
    }
    expect(codex.kind).toBe('regex');
    expect(codex.error).toBeUndefined();
    expect(whileFull).toEqual([false, true, false]);
    expect(regexFailures()).toBeGreaterThan(failures);
    // With room again, the same matchers answer through RE2.
    expect(codex.test('mcp__memfull__read')).toBe(true);
    expect(codex.test('Bash')).toBe(false);
    expect(claude.test('mcp__memfull2__read')).toBe(true);
    expect(compileAgentMatcher('codex', '(unclosed').kind).toBe('invalid');
  });

  it('still reports pattern errors as errors, and does not call them transient', () => {
    const e = checkRegex('(a', '');
    expect(e?.message).toMatch(/missing `\)`/);
    expect(e?.transient).toBeUndefined();
  });
});

describe("RE2's own semantics, where re2js differs", () => {
  it('`\\B` in an empty-matching pattern holds inside a UTF-8 sequence', () => {
    expect(new RE2('\\B', 'u').test('a\u00e9b')).toBe(true);
    expect(/\B/u.test('a\u00e9b')).toBe(false);
    expect(regexPlan('\\B', '').fast).toBe(false);
    expect(compileRegex('\\B', '').test('a\u00e9b')).toBe(true);
  });

  it('gives texts with unpaired surrogates to RE2, whose UTF-8 conversion garbles them', () => {
    // re2-wasm encodes a lone surrogate together with the next code unit, swallowing the `a`
    expect(regexPlan('ab', '').fast).toBe(true);
    expect(/ab/u.test('\ud800ab')).toBe(true);
    expect(compileRegex('ab', '').test('\ud800ab')).toBe(new RE2('ab', 'u').test('\ud800ab'));
    expect(compileRegex('ab', '').test('\ud800ab')).toBe(false);
    expect(compileRegex('ab', '').test('\ud800xab')).toBe(true);
  });

  it('`\\C` is valid', () => {
    expect(checkRegex('a\\Cb', '')).toBeNull();
  });
});
