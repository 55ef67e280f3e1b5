/** The agents' hook-matcher dialects, through the engine's registry (as compiled rules use them). */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileAgentMatcher, MAX_MATCHER_INPUT } from '../engine/index.js';
import { codexMatcherInputs } from './codex/matcher.js';
import './protocols.js';

describe('Claude Code matchers', () => {
  // What the real CLI did for the tool `Bash` (see the observed-behaviour reference).
  const matches = ['Ba.*', 'Bash|Read', '*', '', '^Bash$', 'B.sh', '.*sh', 'Bash$', '(Bash)', 'Bash|', 'a.h', '^B', 'sh$', 'Bash ', 'Write|Bash', 'bash|Bash', '.', '.+', 'Bash*', 'Bash.*|Nope'];
  const misses = ['bash', 'Bas', 'Ba', 'as', 'Read', 'BASH', 'mcp__.*', '(?i)bash'];
  for (const m of matches) it(`\`${m}\` matches Bash`, () => expect(compileAgentMatcher('claude', m).test('Bash')).toBe(true));
  for (const m of misses) it(`\`${m}\` does not match Bash`, () => expect(compileAgentMatcher('claude', m).test('Bash')).toBe(false));

  it('treats an absent matcher as matching everything', () => {
    expect(compileAgentMatcher('claude', undefined).kind).toBe('all');
  });

  it('reads letters, digits, _, -, space, comma and | as a list of exact names', () => {
    const m = compileAgentMatcher('claude', 'Edit, Write | code-reviewer');
    expect(m.kind).toBe('exact');
    expect(['Edit', 'Write', 'code-reviewer'].map((v) => m.test(v))).toEqual([true, true, true]);
    expect(m.test('NotebookEdit')).toBe(false);
    expect(compileAgentMatcher('claude', 'mcp__memory').test('mcp__memory__create')).toBe(false);
  });

  it('runs anything else as an unanchored regex', () => {
    expect(compileAgentMatcher('claude', 'Edit.*').test('NotebookEdit')).toBe(true);
    expect(compileAgentMatcher('claude', '^Edit$').test('NotebookEdit')).toBe(false);
    expect(compileAgentMatcher('claude', '.*Edit').test('NotebookEdit')).toBe(true);
    expect(compileAgentMatcher('claude', 'mcp__.*__write.*').test('mcp__fs__write_file')).toBe(true);
    expect(compileAgentMatcher('claude', 'mcp__*').test('mcp__x__y')).toBe(true);
  });

  it('keeps JavaScript semantics where RE2 differs, and reports what JavaScript rejects', () => {
    expect(compileAgentMatcher('claude', '^(?=B)Bash$').test('Bash')).toBe(true);
    const bad = compileAgentMatcher('claude', '(?i)bash');
    expect(bad.kind).toBe('invalid');
    expect(bad.error).toContain('`(?i)bash`');
  });

  it('uses the narrow exact set for FileChanged and StopFailure', () => {
    expect(compileAgentMatcher('claude', 'rate_limit|overloaded', { narrow: true }).test('overloaded')).toBe(true);
    const hyphen = compileAgentMatcher('claude', 'a-b', { narrow: true });
    expect(hyphen.kind).toBe('regex');
    expect(hyphen.test('xa-by')).toBe(true);
  });

  it('never tests a value longer than the cap', () => {
    expect(compileAgentMatcher('claude', '.*').test('x'.repeat(MAX_MATCHER_INPUT + 1))).toBe(false);
  });
});

describe('Codex matchers', () => {
  it('reads only [A-Za-z0-9_|] as exact names', () => {
    expect(compileAgentMatcher('codex', 'Edit|Write').test('Write')).toBe(true);
    expect(compileAgentMatcher('codex', 'Bash').test('BashOutput')).toBe(false);
    expect(compileAgentMatcher('codex', 'mcp__memory').test('mcp__memory__create')).toBe(false);
  });

  it('runs anything else as an unanchored Rust-syntax regex, inline flags included', () => {
    expect(compileAgentMatcher('codex', '^Bash').test('BashOutput')).toBe(true);
    expect(compileAgentMatcher('codex', '(?i)bash').test('Bash')).toBe(true);
    expect(compileAgentMatcher('codex', 'a-b').test('xa-b')).toBe(true);
  });

  it('never matches with an invalid pattern, and says why', () => {
    const m = compileAgentMatcher('codex', '(unclosed');
    expect(m.kind).toBe('invalid');
    expect(m.test('(unclosed')).toBe(false);
  });

  it('tests a tool by its canonical name, then its aliases', () => {
    expect(codexMatcherInputs('apply_patch')).toEqual(['apply_patch', 'Write', 'Edit']);
    expect(codexMatcherInputs('Bash')).toEqual(['Bash']);
  });

  it('never throws on any pattern or value', () => {
    fc.assert(
      fc.property(fc.constantFrom('claude' as const, 'codex' as const), fc.option(fc.string({ maxLength: 20 }), { nil: undefined }), fc.string({ maxLength: 20 }), (d, p, v) => {
        const m = compileAgentMatcher(d, p);
        expect(typeof m.test(v)).toBe('boolean');
      }),
    );
  });
});
