import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  analyzeCommand,
  checkCommandPattern,
  compileCommandPattern,
  MAX_COMMAND_LENGTH,
  MAX_SHELL_DEPTH,
  matchCommandPart,
  type CommandAnalysis,
} from './index.js';

const SHELL_PIECES = [
  ' ', '\t', '\n', ';', ';;', '&', '&&', '|', '||', '|&', '(', ')', '((', '))', '{', '}', '[[', ']]', '<', '>', '>>', '<<',
  '<<-', '<<<', '2>&1', '&>', '<(', '>(', '$(', '$((', '${', '}', '`', "'", '"', "$'", '$"', '\\', '\\\n', '#', '=', 'x=',
  'a=(', '*', '?', '!', '!(', ',', '..', 'EOF', 'if ', 'then ', 'fi', 'for ', 'in ', 'do ', 'done', 'case ', 'esac', ') ',
  'function ', 'time ', 'sudo ', 'env -S ', 'xargs ', 'nohup ', 'timeout 5 ', 'bash -c ', 'sh -lc ', 'eval ', 'find . -exec ',
  'rm', ' -rf /', '$X', 'command -v ', '\\;', '+',
];

const shellish = fc.array(fc.constantFrom(...SHELL_PIECES), { maxLength: 40 }).map((a) => a.join(''));
const anyText = fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 40 }), shellish);

const PATTERNS = ['rm -rf /', 'git push *', '*', 'rm *', 'eval *', 'echo * x', 'cat *.txt'].map(compileCommandPattern);

function matchAll(analysis: CommandAnalysis): void {
  for (const part of analysis.parts)
    for (const p of PATTERNS) {
      matchCommandPart(p, part, 'any');
      matchCommandPart(p, part, 'allow');
    }
}

function wellFormed(analysis: CommandAnalysis): void {
  for (const part of analysis.parts) {
    expect(typeof part.text).toBe('string');
    expect(part.views.length).toBeGreaterThan(0);
    expect(part.views[0]!.wrappers).toEqual([]);
    expect(part.views[0]!.neutral).toBe(true);
    expect(part.views[0]!.words).toEqual(part.words);
    expect(part.unknowable === null || typeof part.unknowable === 'string').toBe(true);
  }
}

describe('never throws', () => {
  it('analyses and matches arbitrary text', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const a = analyzeCommand(text);
        wellFormed(a);
        matchAll(a);
      }),
      { numRuns: 2000 },
    );
  });

  it('checks, compiles and matches arbitrary patterns', () => {
    fc.assert(
      fc.property(anyText, anyText, (pattern, command) => {
        const error = checkCommandPattern(pattern);
        const compiled = compileCommandPattern(pattern);
        if (error !== null) expect(compiled.words).toEqual([]);
        else expect(compiled.words.length).toBeGreaterThan(0);
        for (const part of analyzeCommand(command).parts) {
          matchCommandPart(compiled, part, 'any');
          matchCommandPart(compiled, part, 'allow');
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('treats unknowable parts as never allowed', () => {
    fc.assert(
      fc.property(shellish, (text) => {
        for (const part of analyzeCommand(text).parts)
          if (part.unknowable !== null) expect(matchCommandPart(PATTERNS[2]!, part, 'allow')).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('survives values that are not strings', () => {
    expect(() => analyzeCommand(undefined as unknown as string)).not.toThrow();
    expect(checkCommandPattern(42 as unknown as string)).not.toBeNull();
    const part = analyzeCommand('ls').parts[0]!;
    expect(matchCommandPart({ source: 'x', words: [null] }, part, 'any')).toBe(false);
  });
});

describe('limits', () => {
  it('makes nesting beyond the depth limit unknowable', () => {
    const deep = '$('.repeat(MAX_SHELL_DEPTH + 4) + 'rm x' + ')'.repeat(MAX_SHELL_DEPTH + 4);
    const parts = analyzeCommand(deep).parts;
    expect(parts.some((p) => p.unknowable === 'nested too deeply')).toBe(true);
    const shallow = '$('.repeat(MAX_SHELL_DEPTH - 2) + 'rm x' + ')'.repeat(MAX_SHELL_DEPTH - 2);
    expect(analyzeCommand(shallow).parts.some((p) => p.unknowable === 'nested too deeply')).toBe(false);
  });

  it('limits nested bash -c scripts', () => {
    let script = 'rm x';
    for (let i = 0; i < MAX_SHELL_DEPTH + 1; i++) script = `bash -c ${JSON.stringify(script)}`;
    expect(script.length).toBeLessThan(MAX_COMMAND_LENGTH);
    expect(analyzeCommand(script).parts.filter((p) => !p.transparent).map((p) => p.unknowable)).toEqual(['nested too deeply']);
    let shallow = 'rm x';
    for (let i = 0; i < MAX_SHELL_DEPTH; i++) shallow = `bash -c ${JSON.stringify(shallow)}`;
    expect(analyzeCommand(shallow).parts.filter((p) => !p.transparent).map((p) => p.text)).toEqual(['rm x']);
  });

  it('makes text beyond the length limit one unknowable part', () => {
    const long = 'ls && ' + 'x'.repeat(MAX_COMMAND_LENGTH);
    const parts = analyzeCommand(long).parts;
    expect(parts[0]!.words.map((w) => w.value)).toEqual(['ls']);
    expect(parts[parts.length - 1]!.unknowable).toBe('command longer than 1 MiB');
  });

  it('runs in roughly linear time on hostile input', () => {
    const big = (unit: string) => unit.repeat(Math.floor(MAX_COMMAND_LENGTH / 4 / unit.length));
    for (const text of [big('a && '), big('$('), big('(('), big('$(('), big('"$('), big('`'), big('sudo '), big('cat <<EOF\n'),
      big('bash -c "'), big('((x) ; '), big('a=('), big('[[ ')]) {
      const start = Date.now();
      const a = analyzeCommand(text);
      matchAll(a);
      expect(Date.now() - start, JSON.stringify(text.slice(0, 12))).toBeLessThan(3000);
    }
  }, 120_000);
});
