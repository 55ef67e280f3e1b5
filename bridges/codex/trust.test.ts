import { describe, expect, it } from 'vitest';
import { LineIndex } from '../../engine/index.js';
import { loadCodexHooksText } from './index.js';
import { parseToml } from './toml.js';
import { codexHookHash, codexHookKey, handlerIndices, hashInputOf, normalizedTimeout, readHookStates, trustStatus } from './trust.js';

describe('codexHookHash', () => {
  // Hashes Codex itself computed for these hooks (timeout and async left out, so 600 and false).
  it('matches hashes codex computed', () => {
    expect(codexHookHash({ event: 'PostToolUse', matcher: '*', command: "'/Applications/GWT.app/Contents/MacOS/gwtd' hook event PostToolUse" })).toBe(
      'sha256:9c3ce103f03f0b27a28bc4a30883f7e98a80b5df566b4572fcbb2955ebf5ba62',
    );
  });

  it('leaves the matcher out where codex ignores it', () => {
    const ups = 'gwt_bin="${GWT_BIN_PATH:-/Applications/GWT.app/Contents/MacOS/gwtd}"; "$gwt_bin" hook event UserPromptSubmit';
    const stop = 'gwt_bin="${GWT_BIN_PATH:-/Applications/GWT.app/Contents/MacOS/gwtd}"; "$gwt_bin" hook event Stop';
    expect(codexHookHash({ event: 'UserPromptSubmit', matcher: '*', command: ups })).toBe('sha256:1a86ba6796c5b5bf1601fd1af1d6094846287ec85e9f1ad4d39335c6b306e2fa');
    expect(codexHookHash({ event: 'Stop', matcher: '*', command: stop })).toBe('sha256:984e12cd30ef54cf4c63af8aabce1849705e5de09c70d039367ba68de9760389');
    expect(codexHookHash({ event: 'Stop', command: stop })).toBe(codexHookHash({ event: 'Stop', matcher: 'anything', command: stop }));
  });

  it('fills in the default timeout and async', () => {
    const base = { event: 'PreToolUse', matcher: 'Bash', command: 'x' };
    expect(codexHookHash(base)).toBe(codexHookHash({ ...base, timeout: 600, async: false }));
    expect(codexHookHash(base)).not.toBe(codexHookHash({ ...base, timeout: 30 }));
    expect(codexHookHash(base)).not.toBe(codexHookHash({ ...base, async: true }));
    expect(codexHookHash(base)).not.toBe(codexHookHash({ ...base, matcher: undefined }));
    expect(codexHookHash({ ...base, timeout: 0 })).toBe(codexHookHash({ ...base, timeout: 1 }));
    expect(codexHookHash({ ...base, statusMessage: 's' })).not.toBe(codexHookHash(base));
    expect(codexHookHash({ ...base, additionalContextLimit: 2500 })).toBe(codexHookHash(base));
    expect(codexHookHash({ ...base, additionalContextLimit: 100 })).not.toBe(codexHookHash(base));
    expect(codexHookHash({ event: 'Stop', command: 'x', additionalContextLimit: 100 })).toBe(codexHookHash({ event: 'Stop', command: 'x' }));
  });

  it('is the same for the same hook written in JSON and in TOML', () => {
    const json = loadCodexHooksText('{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "g.sh", "timeout": 5, "statusMessage": "s"}]}]}}', 'hooks.json');
    const toml = loadCodexHooksText('[[hooks.PreToolUse]]\nmatcher = "Bash"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "g.sh"\ntimeout = 5\nstatusMessage = "s"\n', 'config.toml');
    const hash = (c: typeof json) => codexHookHash(hashInputOf(c.groups[0]!, c.groups[0]!.hooks[0]!));
    expect(hash(json)).toBe(hash(toml));
  });

  it('hashes the timeout as written, not the early alias', () => {
    const c = loadCodexHooksText('{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeoutSec": 5}]}]}}', 'hooks.json');
    expect(codexHookHash(hashInputOf(c.groups[0]!, c.groups[0]!.hooks[0]!))).toBe(codexHookHash({ event: 'Stop', command: 'x' }));
  });
});

describe('trust helpers', () => {
  it('builds keys with the event label', () => {
    expect(codexHookKey('/h/.codex/hooks.json', 'PreToolUse', 0, 1)).toBe('/h/.codex/hooks.json:pre_tool_use:0:1');
    expect(codexHookKey('/h/.codex/config.toml', 'SessionEnd', 2, 0)).toBe('/h/.codex/config.toml:session_end:2:0');
    expect(handlerIndices('/hooks/Stop/3/hooks/4')).toEqual({ groupIndex: 3, handlerIndex: 4 });
    expect(handlerIndices('/hooks/Stop/3')).toBeUndefined();
  });

  it('normalizes timeouts as codex does', () => {
    expect(normalizedTimeout('Stop', undefined)).toBe(600);
    expect(normalizedTimeout('Stop', 0)).toBe(1);
    expect(normalizedTimeout('SessionEnd', undefined)).toBe(1);
    expect(normalizedTimeout('SessionEnd', 10)).toBe(3);
  });

  it('tells trusted, modified, untrusted and managed apart', () => {
    expect(trustStatus(true, 'sha256:a', undefined)).toBe('managed');
    expect(trustStatus(false, 'sha256:a', undefined)).toBe('untrusted');
    expect(trustStatus(false, 'sha256:a', { enabled: true })).toBe('untrusted');
    expect(trustStatus(false, 'sha256:a', { trustedHash: 'sha256:a' })).toBe('trusted');
    expect(trustStatus(false, 'sha256:a', { trustedHash: 'sha256:b' })).toBe('modified');
  });

  it('reads [hooks.state], trimming keys and skipping malformed entries', () => {
    const text = [
      '[hooks.state]',
      '" /a:stop:0:0 " = { enabled = false }',
      '"/a:stop:0:1" = { trusted_hash = "sha256:x", note = "ignored" }',
      '"/a:stop:0:2" = { trusted_hash = 5 }',
      '"/a:stop:0:3" = 1',
    ].join('\n');
    const diags: import('../../engine/index.js').Diagnostic[] = [];
    const states = readHookStates(parseToml(text, 'config.toml', new LineIndex(text)).root, diags);
    expect([...states.keys()]).toEqual(['/a:stop:0:0', '/a:stop:0:1']);
    expect(states.get('/a:stop:0:0')).toMatchObject({ enabled: false });
    expect(states.get('/a:stop:0:1')).toMatchObject({ trustedHash: 'sha256:x', span: { start: { line: 3 } } });
    expect(diags.map((d) => [d.code, d.span?.start.line])).toEqual([
      ['codex/invalid-state', 4],
      ['codex/invalid-state', 5],
    ]);
  });

  it('applies trust to a single file when asked', () => {
    const text = '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b"}, {"type": "command", "command": "c"}]}]}}';
    const file = '/home/u/.codex/hooks.json';
    const hashB = codexHookHash({ event: 'Stop', command: 'b' });
    const states = new Map([
      [`${file}:stop:0:0`, { enabled: false, trustedHash: codexHookHash({ event: 'Stop', command: 'a' }) }],
      [`${file}:stop:0:1`, { trustedHash: hashB }],
    ]);
    const c = loadCodexHooksText(text, file, { trust: { keySource: file, states } });
    expect(c.groups).toMatchObject([{ hooks: [{ command: 'b' }] }]);
    expect(c.diagnostics.map((d) => [d.severity, d.code, d.pointer])).toEqual([
      ['info', 'codex/disabled-hook', '/hooks/Stop/0/hooks/0'],
      ['warning', 'codex/untrusted-hook', '/hooks/Stop/0/hooks/2'],
    ]);
    expect(c.diagnostics[1]!.help).toContain(`"${file}:stop:0:2" = { trusted_hash = "${codexHookHash({ event: 'Stop', command: 'c' })}" }`);
    const bypassed = loadCodexHooksText(text, file, { trust: { keySource: file, states, bypass: true } });
    expect(bypassed.groups[0]!.hooks.map((h) => h.command)).toEqual(['b', 'c']);
    const managed = loadCodexHooksText(text, file, { trust: { keySource: file, states, managed: true } });
    expect(managed.groups[0]!.hooks.map((h) => h.command)).toEqual(['a', 'b', 'c']);
  });
});
