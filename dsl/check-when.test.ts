import { describe, expect, it } from 'vitest';
import { codesAt } from './compile-testkit.js';
import { compileText } from './index.js';

/** One rule on `seam`, written on line 2 from column 3. */
const rule = (seam: string, text: string) => compileText(`on ${seam} {\n  ${text}\n}\n`);

describe('fields', () => {
  it('reports a field the seam does not have, listing its fields', () => {
    const r = rule('pre-tool', 'deny Bash when output contains "x"');
    expect(codesAt(r)).toEqual(['check/unknown-field@2:18']);
    expect(r.diagnostics[0]).toMatchObject({
      severity: 'error',
      message: '`output` is not a field of the `pre-tool` seam',
      help: 'the `pre-tool` seam has `tool`, `input.<path>`, `command`, `opaque`, `path`, `url`, `domain`, `cwd`, `permission_mode`, `session`',
    });
    expect(r.ir).toBeUndefined();
  });

  it('accepts the same field on the seam that has it', () => {
    expect(rule('post-tool', 'block Bash when output contains "x"').diagnostics).toEqual([]);
  });

  it('suggests a close field name', () => {
    const r = rule('prompt', 'block when promt contains "x"');
    expect(r.diagnostics[0]!.help).toBe('did you mean `prompt`? the `prompt` seam has `prompt`, `cwd`, `permission_mode`, `session`');
  });

  it('knows the fields of each seam', () => {
    expect(rule('stop', 'halt when last_message contains "x" and stop_hook_active == true').diagnostics).toEqual([]);
    expect(rule('session-start', 'context "x" when source == "resume"').diagnostics).toEqual([]);
    expect(codesAt(rule('session-start', 'context "x" when prompt == "a"'))).toEqual(['check/unknown-field@2:20']);
    expect(codesAt(rule('stop', 'halt when tool == "Bash"'))).toEqual(['check/unknown-field@2:13']);
  });

  it('lets input and response take a path, and no other field', () => {
    expect(rule('post-tool', 'block mcp__db__q when input.sql contains "drop" or response.rows.count == 0').diagnostics).toEqual([]);
    const r = rule('pre-tool', 'deny Bash when command.args == "x"');
    expect(codesAt(r)).toEqual(['check/field-path-not-allowed@2:18']);
    expect(r.diagnostics[0]!.message).toBe('`command` has no fields, so `command.args` cannot be read');
  });

  it('checks fields inside and, or, not and exists', () => {
    const r = rule('prompt', 'block when not (cwd exists and (output exists or prompt == "x"))');
    expect(codesAt(r)).toEqual(['check/unknown-field@2:35']);
  });
});

describe('operators and values', () => {
  it('needs a regex for matches', () => {
    const r = rule('prompt', 'block when prompt matches "x"');
    expect(codesAt(r)).toEqual(['check/bad-operand@2:29']);
    expect(r.diagnostics[0]).toMatchObject({
      message: '`matches` needs a regex, but this is a string',
      help: 'write a regex literal such as `/npm ERR!/`, or use `contains`',
    });
  });

  it('accepts a regex through a let', () => {
    const r = compileText('let key = /BEGIN .* KEY/i\non prompt {\n  block when prompt matches key\n}\n');
    expect(r.diagnostics).toEqual([]);
  });

  it('reports a let of the wrong kind at its use', () => {
    const r = compileText('let key = "BEGIN"\non prompt {\n  block when prompt matches key\n}\n');
    expect(codesAt(r)).toEqual(['check/bad-operand@3:29']);
    expect(r.diagnostics[0]!.message).toBe('`matches` needs a regex, but `key` is a string');
  });

  it('needs a list of scalars for in', () => {
    expect(codesAt(rule('pre-tool', 'deny Bash when permission_mode in "plan"'))).toEqual(['check/bad-operand@2:37']);
    expect(codesAt(rule('pre-tool', 'deny Bash when permission_mode in ["plan", /x/]'))).toEqual(['check/bad-operand@2:46']);
    expect(rule('pre-tool', 'deny Bash when permission_mode in ["plan", "default", 1, true, null]').diagnostics).toEqual([]);
  });

  it('needs a string for glob, startswith, endswith and contains', () => {
    for (const op of ['glob', 'startswith', 'endswith', 'contains']) {
      const r = rule('pre-tool', `deny Bash when cwd ${op} 3`);
      expect(codesAt(r)).toEqual([`check/bad-operand@2:${23 + op.length}`]);
      expect(r.diagnostics[0]!.message).toBe(`\`${op}\` needs a string, but this is a number`);
      expect(rule('pre-tool', `deny Bash when cwd ${op} "/x"`).diagnostics).toEqual([]);
    }
  });

  it('needs a scalar for == and !=', () => {
    const r = rule('pre-tool', 'deny Bash when cwd == ["/a"] or cwd != /x/');
    expect(codesAt(r)).toEqual(['check/bad-operand@2:25', 'check/bad-operand@2:42']);
    expect(r.diagnostics.map((d) => d.help)).toEqual(['use `in` with a list', 'use `matches` with a regex']);
    expect(rule('stop', 'halt when stop_hook_active != false').diagnostics).toEqual([]);
  });

  it('checks glob comparisons on path fields with the path glob syntax', () => {
    const r = rule('pre-tool', 'deny Read when path glob "src/[a"');
    expect(codesAt(r)).toEqual(['check/invalid-glob@2:33']);
  });
});

describe('regexes', () => {
  it('places an invalid regex at the error inside it', () => {
    const r = rule('prompt', 'block when prompt matches /ab(c/');
    expect(codesAt(r)).toEqual(['check/invalid-regex@2:32']);
    expect(r.diagnostics[0]!.span?.end.column).toBe(33);
    expect(r.diagnostics[0]!.message).toContain('missing `)`');
  });

  it('places a regex error on a later line', () => {
    const r = compileText('let a = 1\n\nlet re = /x{2,1}/\n');
    expect(r.diagnostics.map((d) => d.code)).toEqual(['check/invalid-regex']);
    expect(r.diagnostics[0]!.span?.start.line).toBe(3);
    expect(r.diagnostics[0]!.span?.start.column).toBeGreaterThanOrEqual(11);
    expect(r.diagnostics[0]!.span?.start.column).toBeLessThanOrEqual(16);
  });

  it('checks a regex in a let once, where it is written, used or not', () => {
    const r = compileText('let re = /(/\non prompt {\n  block when prompt matches re\n  block when prompt matches re\n}\n');
    expect(codesAt(r)).toEqual(['check/invalid-regex@1:11']);
  });

  it('rejects RE2-incompatible syntax', () => {
    expect(codesAt(rule('prompt', 'block when prompt matches /(a)\\1/'))).toEqual(['check/invalid-regex@2:33']);
  });

  it('accepts the flags i, m and s', () => {
    expect(rule('prompt', 'block when prompt matches /x/ims').diagnostics).toEqual([]);
  });
});

describe('ran', () => {
  it('is only known on the stop seam', () => {
    const r = rule('pre-tool', 'deny Bash when ran Read');
    expect(codesAt(r)).toEqual(['check/ran-not-allowed@2:18']);
    expect(r.diagnostics[0]!.message).toBe('`ran` is not known on the `pre-tool` seam');
  });

  it('checks its tools and selectors like a rule', () => {
    const r = rule('stop', 'continue when not ran Bsh command "npm test *" and not ran Read path "a["');
    expect(codesAt(r)).toEqual(['check/unknown-tool@2:25', 'check/command-on-non-shell-tool@2:29', 'check/invalid-glob@2:74']);
  });

  it('checks the patterns of its selectors', () => {
    expect(codesAt(rule('stop', 'continue when not ran Bash command "a $(b"'))).toEqual(['check/invalid-command-pattern@2:41']);
  });

  it('accepts a well-formed ran', () => {
    expect(rule('stop', 'continue when not ran Bash command "npm test *"').diagnostics).toEqual([]);
  });
});

describe('regex flags', () => {
  it('reports an unknown or repeated flag at the flag', () => {
    const r = rule('prompt', 'block when prompt matches /x/ig or prompt matches /y/ii');
    expect(codesAt(r)).toEqual(['check/invalid-regex@2:33', 'check/invalid-regex@2:57']);
    expect(r.diagnostics.map((d) => d.message)).toEqual(['unknown regex flag `g`', 'repeated regex flag `i`']);
  });
});
