import { describe, it, expect } from 'vitest';
import { checkGlob, compileToolGlob } from './index.js';
import { runNfa, tokenizeGlob, tokensToPredicate } from './glob.js';

describe('tool globs', () => {
  it('matches exact names only without a star', () => {
    const m = compileToolGlob('Bash');
    expect(m.test('Bash')).toBe(true);
    expect(m.test('BashOutput')).toBe(false);
    expect(m.test('xBash')).toBe(false);
  });

  it('is case-sensitive', () => {
    expect(compileToolGlob('Bash').test('bash')).toBe(false);
    expect(compileToolGlob('mcp__*').test('MCP__x')).toBe(false);
  });

  it('star matches any run across the whole name', () => {
    const m = compileToolGlob('mcp__github__*');
    expect(m.test('mcp__github__create_issue')).toBe(true);
    expect(m.test('mcp__github__')).toBe(true);
    expect(m.test('mcp__gitlab__create_issue')).toBe(false);
  });

  it('stars in the middle and at both ends', () => {
    expect(compileToolGlob('mcp__*__delete*').test('mcp__fs__delete_file')).toBe(true);
    expect(compileToolGlob('mcp__*__delete*').test('mcp__fs__remove_file')).toBe(false);
    expect(compileToolGlob('*Edit*').test('MultiEditor')).toBe(true);
    expect(compileToolGlob('*Edit').test('NotebookEdit')).toBe(true);
    expect(compileToolGlob('*Edit').test('EditNotebook')).toBe(false);
  });

  it('a lone star matches every name, including the empty one', () => {
    expect(compileToolGlob('*').test('Anything.at_all-1')).toBe(true);
    expect(compileToolGlob('*').test('')).toBe(true);
    expect(compileToolGlob('**').test('x')).toBe(true);
  });

  it('other glob characters are literal', () => {
    expect(compileToolGlob('a.b').test('axb')).toBe(false);
    expect(compileToolGlob('a.b').test('a.b')).toBe(true);
  });

  it('handles a star-heavy glob against a long name quickly', () => {
    const glob = '*a*a*a*a*a*a*a*a*a*a*b';
    const name = 'a'.repeat(50_000);
    const started = Date.now();
    expect(compileToolGlob(glob).test(name)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('checkGlob accepts tool names and stars', () => {
    expect(checkGlob('mcp__server-1__tool.v2', 'tool')).toBeNull();
    expect(checkGlob('*', 'tool')).toBeNull();
  });

  it('checkGlob rejects empty tool globs', () => {
    expect(checkGlob('', 'tool')).toEqual({ message: 'empty tool glob', offset: 0 });
  });

  it('checkGlob rejects whitespace with its offset', () => {
    const error = checkGlob('Bash Edit', 'tool');
    expect(error?.offset).toBe(4);
    expect(error?.message).toMatch(/^unexpected space in tool glob `Bash Edit`/u);
  });

  it('checkGlob rejects other characters with their offset', () => {
    expect(checkGlob('Bash?', 'tool')?.offset).toBe(4);
    expect(checkGlob('mcp/x', 'tool')?.message).toMatch(/character `\/`/u);
    expect(checkGlob('é', 'tool')?.offset).toBe(0);
  });

  it('checkGlob rejects an unknown kind', () => {
    expect(checkGlob('x', 'nope' as never)?.message).toBe('unknown glob kind `nope`');
  });
});

describe('glob building blocks', () => {
  it('runNfa accepts exactly the described language', () => {
    const steps = [
      { repeat: false, test: (c: number) => c === 1 },
      { repeat: true, test: (c: number) => c !== 0 },
      { repeat: false, test: (c: number) => c === 2 },
    ];
    expect(runNfa(steps, [1, 2])).toBe(true);
    expect(runNfa(steps, [1, 5, 5, 2])).toBe(true);
    expect(runNfa(steps, [1, 0, 2])).toBe(false);
    expect(runNfa(steps, [1, 2, 3])).toBe(false);
    expect(runNfa([], [])).toBe(true);
    expect(runNfa([], [1])).toBe(false);
  });

  it('tokenizes escapes, classes and star runs', () => {
    const { tokens, problems } = tokenizeGlob('\\*a[!b-d]?**', { wildcards: true });
    expect(problems).toEqual([]);
    expect(tokens.map((t) => t.kind)).toEqual(['literal', 'literal', 'class', 'one', 'star']);
    expect(tokens[4]).toMatchObject({ kind: 'star', count: 2, offset: 10 });
  });

  it('reports an unterminated class and a trailing backslash with offsets', () => {
    expect(tokenizeGlob('ab[cd', { wildcards: true }).problems[0]?.offset).toBe(2);
    expect(tokenizeGlob('ab\\', { wildcards: true }, 10).problems[0]?.offset).toBe(12);
  });

  it('treats `[` and `?` literally when wildcards are off', () => {
    const match = tokensToPredicate(tokenizeGlob('a?[b]', { wildcards: false }).tokens);
    expect(match('a?[b]')).toBe(true);
    expect(match('axb')).toBe(false);
  });

  it('class semantics: sets, ranges, negation, `]` first', () => {
    const match = (glob: string, text: string): boolean =>
      tokensToPredicate(tokenizeGlob(glob, { wildcards: true }).tokens)(text);
    expect(match('[abc]', 'b')).toBe(true);
    expect(match('[abc]', 'd')).toBe(false);
    expect(match('[a-z]x', 'qx')).toBe(true);
    expect(match('[!a-z]', 'q')).toBe(false);
    expect(match('[^a-z]', 'Q')).toBe(true);
    expect(match('[]]', ']')).toBe(true);
    expect(match('?', '😀')).toBe(true);
  });
});
