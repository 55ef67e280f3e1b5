import { describe, expect, it } from 'vitest';
import { policyLexer } from './tokens.js';

/** `[token name, image]` for every token of `text`. */
function lex(text: string): [string, string][] {
  return policyLexer.tokenize(text).tokens.map((t) => [t.tokenType.name, t.image]);
}

function names(text: string): string[] {
  return lex(text).map(([name]) => name);
}

describe('lexer: words', () => {
  it('reads keywords as keywords', () => {
    expect(names('policy include import let on test when because hook timeout dialect matcher with')).toEqual([
      'KwPolicy', 'KwInclude', 'KwImport', 'KwLet', 'KwOn', 'KwTest', 'KwWhen', 'KwBecause', 'KwHook', 'KwTimeout', 'KwDialect', 'KwMatcher',
      'KwWith',
    ]);
    expect(names('deny ask allow block context continue halt run limit')).toEqual([
      'KwDeny', 'KwAsk', 'KwAllow', 'KwBlock', 'KwContext', 'KwContinue', 'KwHalt', 'KwRun', 'KwLimit',
    ]);
    expect(names('command path url domain and or not in matches glob startswith endswith contains exists ran true false null')).toEqual([
      'KwCommand', 'KwPath', 'KwUrl', 'KwDomain', 'KwAnd', 'KwOr', 'KwNot', 'KwIn', 'KwMatches', 'KwGlob', 'KwStartswith',
      'KwEndswith', 'KwContains', 'KwExists', 'KwRan', 'KwTrue', 'KwFalse', 'KwNull',
    ]);
  });

  it('reads a word that only begins with a keyword as a name', () => {
    expect(lex('input.deny pathology include_me in2 ontology notes denying')).toEqual([
      ['Name', 'input.deny'],
      ['Name', 'pathology'],
      ['Name', 'include_me'],
      ['Name', 'in2'],
      ['Name', 'ontology'],
      ['Name', 'notes'],
      ['Name', 'denying'],
    ]);
  });

  it('does not cut a longer keyword at a shorter one', () => {
    expect(names('include in import')).toEqual(['KwInclude', 'KwIn', 'KwImport']);
  });

  it('reads seams, MCP tool names, globs and dotted fields as names', () => {
    expect(lex('pre-tool session-start mcp__db__* * input.sql stop_hook_active Bash')).toEqual([
      ['Name', 'pre-tool'],
      ['Name', 'session-start'],
      ['Name', 'mcp__db__*'],
      ['Name', '*'],
      ['Name', 'input.sql'],
      ['Name', 'stop_hook_active'],
      ['Name', 'Bash'],
    ]);
  });

  it('is case-sensitive: `Deny` is a name', () => {
    expect(names('Deny deny')).toEqual(['Name', 'KwDeny']);
  });
});

describe('lexer: literals', () => {
  it('reads strings with escaped quotes and backslashes', () => {
    expect(lex('"a\\"b" "c\\\\" ""')).toEqual([
      ['StringLit', '"a\\"b"'],
      ['StringLit', '"c\\\\"'],
      ['StringLit', '""'],
    ]);
  });

  it('ends an unterminated string at the end of its line', () => {
    expect(lex('"abc\nx')).toEqual([
      ['UnterminatedString', '"abc'],
      ['Name', 'x'],
    ]);
    expect(lex('"abc\\')).toEqual([['UnterminatedString', '"abc\\']]);
    expect(lex('"ends with escaped quote\\"')).toEqual([['UnterminatedString', '"ends with escaped quote\\"']]);
  });

  it('reads regexes with escaped slashes and flags', () => {
    expect(lex('/a\\/b/i /(?i)\\bdrop\\s+table\\b/ /x/ims')).toEqual([
      ['RegexLit', '/a\\/b/i'],
      ['RegexLit', '/(?i)\\bdrop\\s+table\\b/'],
      ['RegexLit', '/x/ims'],
    ]);
  });

  it('ends an unterminated regex at the end of its line', () => {
    expect(lex('/rm -rf\nallow')).toEqual([
      ['UnterminatedRegex', '/rm -rf'],
      ['KwAllow', 'allow'],
    ]);
    expect(lex('/usr\\/bin\\/')).toEqual([['UnterminatedRegex', '/usr\\/bin\\/']]);
  });

  it('reads numbers and durations', () => {
    expect(lex('3 1.5 10s 500ms 5m 1h 0')).toEqual([
      ['NumberLit', '3'],
      ['NumberLit', '1.5'],
      ['DurationLit', '10s'],
      ['DurationLit', '500ms'],
      ['DurationLit', '5m'],
      ['DurationLit', '1h'],
      ['NumberLit', '0'],
    ]);
  });

  it('reads digits run together with letters as one malformed number', () => {
    expect(lex('10sec 1.2.3 3x 1.')).toEqual([
      ['BadNumber', '10sec'],
      ['BadNumber', '1.2.3'],
      ['BadNumber', '3x'],
      ['BadNumber', '1.'],
    ]);
  });

  it('can read a very long unterminated string without exhausting the stack', () => {
    const text = '"' + 'a'.repeat(2_000_000);
    expect(lex(text)).toEqual([['UnterminatedString', text]]);
  });
});

describe('lexer: punctuation, comments, positions, errors', () => {
  it('reads two-character operators before one-character ones', () => {
    expect(names('=> == != = { } [ ] ( ) , :')).toEqual([
      'Arrow', 'EqEq', 'NotEq', 'Equals', 'LCurly', 'RCurly', 'LBracket', 'RBracket', 'LParen', 'RParen', 'Comma', 'Colon',
    ]);
  });

  it('keeps comments apart, and not inside strings or regexes', () => {
    const r = policyLexer.tokenize('deny # a comment\n"a # b" /c#d/ #end');
    expect(r.tokens.map((t) => t.image)).toEqual(['deny', '"a # b"', '/c#d/']);
    expect((r.groups['comments'] ?? []).map((t) => t.image)).toEqual(['# a comment', '#end']);
  });

  it('records the offset of every token', () => {
    const r = policyLexer.tokenize('on  pre-tool {\n  deny }');
    expect(r.tokens.map((t) => t.startOffset)).toEqual([0, 4, 13, 17, 22]);
  });

  it('sets aside runs of characters that start no token, with their offset, and goes on', () => {
    const r = policyLexer.tokenize("deny @@ 'x' allow ! != . - é\u0000\u{1F600}");
    expect(r.errors).toEqual([]);
    expect((r.groups['invalid'] ?? []).map((t) => [t.startOffset, t.image])).toEqual([
      [5, '@@'],
      [8, "'"],
      [10, "'"],
      [18, '!'],
      [23, '.'],
      [25, '-'],
      [27, 'é\u0000\u{1F600}'],
    ]);
    expect(r.tokens.map((t) => t.image)).toEqual(['deny', 'x', 'allow', '!=']);
  });

  it('sets aside a long run of such characters at once', () => {
    const r = policyLexer.tokenize('\u0000'.repeat(1_000_000) + 'deny');
    expect((r.groups['invalid'] ?? []).map((t) => t.image.length)).toEqual([1_000_000]);
    expect(r.tokens.map((t) => t.image)).toEqual(['deny']);
  });

  it('skips a byte-order mark and any whitespace', () => {
    expect(names('\uFEFFdeny\t\r\n\fallow')).toEqual(['KwDeny', 'KwAllow']);
  });
});
