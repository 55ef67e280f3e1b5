/**
 * Claude Code's `permissions` rules against dshpolicy's import of them: one project
 * `.claude/settings.json` holds `allow`, `ask` and `deny` lists; the scripted model makes one tool
 * call per row (Bash commands, Read/Edit/Write paths of every anchor kind, WebFetch domains); the
 * real CLI decides each, and dshpolicy decides the same call with the rules `importClaudePermissions`
 * makes of the same file, in-process.
 *
 * What Claude Code did is read from the tool_result of each call, in two runs of the same script:
 * - `deny`: the call was refused by a rule (`Permission to use Bash with command ... has been
 *   denied.`, `File is in a directory that is denied by your permission settings.`, `File is
 *   covered by a Read deny rule ...`, `WebFetch denied access to domain:...`);
 * - `allow`: in the default mode the call ran (the stub program on PATH printed `stub`, the file
 *   was read or written, WebFetch got as far as checking the domain);
 * - `ask`: in bypass mode (`--dangerously-skip-permissions`) the call still got `Claude requested
 *   permissions to ..., but you haven't granted it yet.`, which only an ask rule does there (print
 *   mode turns every ask into that refusal);
 * - `none`: neither: Claude Code's own flow decided (in the default mode it asked: `This command
 *   requires approval`, `... needs approval`, `Claude requested permissions to read from ...`, a
 *   safety check; in bypass mode it ran).
 *
 * A row states Claude Code's word; dshpolicy must decide the same, unless the row names the
 * difference the importer reported for it (a diagnostic code and part of its message), in which
 * case dshpolicy must decide what the row says instead and the importer must have said so.
 *
 * Gated like the other suites: skipped when DSHPOLICY_E2E=0. Two CLI runs, in parallel, ~40 s.
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePolicy, evaluateSync, IR_VERSION, type PolicyEvent } from '../../../engine/index.js';
import { importClaudePermissions } from '../permissions.js';
import { CLAUDE_VERSION, ensureClaude } from './install.js';
import { toolResults } from './model.js';
import { runClaude, type RunResult } from './run.js';

type Word = 'allow' | 'ask' | 'deny' | 'none';

interface Call {
  name: string;
  input: Record<string, unknown>;
}

interface Row {
  name: string;
  call: Call;
  /** What Claude Code decided. */
  claude: Word;
  /** Where the import differs: what dshpolicy decides, and the diagnostic that reports it. */
  differs?: { dshpolicy: Word; code: string; says: string };
}

/**
 * Programs the Bash calls run: stubs on PATH that print `stub <name> <args>`. (Claude Code runs
 * its own `find`, so the `find` rows name no existing file.)
 */
const STUBS = ['make', 'npm', 'git', 'deploy', 'curl', 'rm', 'cat', 'find', 'noglob'];

/** Files of the project (each holds `alpha`, which Edit rows replace). */
const FILES: Record<string, string> = {
  'src/a.ts': 'alpha\n', 'lib/a.ts': 'alpha\n', '.env': 'alpha\n', 'sub/.env': 'alpha\n', 'secret.txt': 'alpha\n',
  'private/p.txt': 'alpha\n', 'docs/.keep': '', 'generated/x.ts': 'alpha\n', 'a/generated/x.ts': 'alpha\n',
};

/** The directory outside the project that `//` rules name, made in `beforeAll`. */
let OUT = '';

function permissions(): Record<string, string[]> {
  return {
    allow: [
      'Bash(npm run test:*)', 'Bash(make build)', 'Bash(timeout 5 make slow)', 'Bash(git st*)', 'Bash(find:*)', 'Bash(deploy staging)',
      `Read(/${OUT}/allowed/**)`, 'Edit(/src/**)', 'Read(~/notes/**)', 'Edit(docs/*.md)', 'WebFetch(domain:*.allowed.test)',
    ],
    ask: ['Bash(git push *)', 'Bash(deploy:*)', 'Read(./private/*)', 'WebFetch(domain:ask.test)'],
    deny: [
      'Bash(rm -rf:*)', 'Bash(curl *)', 'Bash(git * main)', 'Bash(make te*)', 'Read(.env)', 'Read(secret.txt)', `Edit(/${OUT}/locked/**)`,
      'Edit(generated/**)', 'WebFetch(domain:deny.test)',
    ],
  };
}

const bash = (command: string): Call => ({ name: 'Bash', input: { command } });
const read = (file_path: string): Call => ({ name: 'Read', input: { file_path } });
const edit = (file_path: string): Call => ({ name: 'Edit', input: { file_path, old_string: 'alpha', new_string: 'beta' } });
const write = (file_path: string): Call => ({ name: 'Write', input: { file_path, content: 'gamma\n' } });
const fetch = (url: string): Call => ({ name: 'WebFetch', input: { url, prompt: 'summarise' } });
const general = (dshpolicy: Word, says: string) => ({ dshpolicy, code: 'import/command-reading', says });

function rows(): Row[] {
  return [
    // Bash: prefixes, word boundaries, compound commands, wrappers, assignments
    { name: 'bash: `npm run test:*` allows the prefix followed by a space', call: bash('npm run test -- --watch'), claude: 'allow' },
    { name: 'bash: `npm run test:*` does not allow `npm run test:unit`', call: bash('npm run test:unit'), claude: 'none' },
    { name: 'bash: each part of a compound command allowed by its own rule', call: bash('make build && npm run test'), claude: 'allow' },
    { name: 'bash: a compound command with a part no rule allows', call: bash('make build && npm install'), claude: 'none' },
    { name: 'bash: an allow rule looks past `nice`', call: bash('nice -n 5 make build'), claude: 'allow' },
    { name: 'bash: an allow rule naming `timeout` matches the command as written', call: bash('timeout 5 make slow'), claude: 'allow' },
    { name: 'bash: an allow rule looks past `NODE_ENV=`', call: bash('NODE_ENV=test make build'), claude: 'allow' },
    { name: 'bash: a star closing a word (`git st*`)', call: bash('git stash list'), claude: 'allow' },
    { name: 'bash: an ask rule outranks a narrower allow rule', call: bash('deploy staging'), claude: 'ask' },
    { name: 'bash: `git push *` asks for `git push` alone', call: bash('git push'), claude: 'ask' },
    { name: 'bash: `git push *` asks for `git push origin dev`', call: bash('git push origin dev'), claude: 'ask' },
    { name: 'bash: a deny rule with `*` in the middle', call: bash('git fetch origin main'), claude: 'deny' },
    { name: 'bash: a deny rule sees through `sudo`', call: bash('sudo rm -rf build'), claude: 'deny' },
    { name: 'bash: a deny rule looks past any assignment', call: bash('FOO=1 rm -rf build'), claude: 'deny' },
    { name: 'bash: a deny rule sees a part after `&&`', call: bash('make build && rm -rf build'), claude: 'deny' },
    { name: 'bash: a deny rule sees a command substitution', call: bash('make $(rm -rf build)'), claude: 'deny' },
    { name: 'bash: a deny rule on `curl *`', call: bash('curl http://127.0.0.1:9/'), claude: 'deny' },
    { name: 'bash: a deny rule with a star closing a word (`make te*`)', call: bash('make test'), claude: 'deny' },
    // Bash: the differences the importer reports
    {
      name: 'bash differs: a middle `*` spanning five words', call: bash('git a b c d e main'), claude: 'deny',
      differs: { dshpolicy: 'none', code: 'import/approximate', says: 'for `git a b c d e main`, claude code matches it' },
    },
    // a computed word may hold any text: deny reads it at its worst, as claude code's text match does here
    { name: 'bash: a `*` inside a deny word matches a variable', call: bash('make te$X'), claude: 'deny' },
    { name: 'bash differs: allowed through `env`', call: bash('env A=1 make build'), claude: 'none', differs: general('allow', 'run through `env`') },
    { name: 'bash differs: allowed after an assignment', call: bash('A=1 make build'), claude: 'none', differs: general('allow', 'after variable assignments') },
    { name: 'bash differs: allowed as a `bash -c` script', call: bash('bash -c "make build"'), claude: 'none', differs: general('allow', 'as the script of `bash -c`') },
    { name: 'bash: output redirected to a file is not allowed by an allow rule', call: bash('make build > out.txt'), claude: 'none' },
    { name: 'bash differs: allowed in a subshell', call: bash('(make build)'), claude: 'none', differs: general('allow', 'in a subshell') },
    { name: 'bash differs: allowed through `exec`', call: bash('exec make build'), claude: 'none', differs: general('allow', '`exec`') },
    { name: 'bash differs: allowed by a path in a system bin directory', call: bash('/usr/bin/make build'), claude: 'none', differs: general('allow', 'system bin directory') },
    // a computed word where npm reads options may be an option that runs code, which a `*` does not cover
    { name: 'bash: not allowed with a variable where npm reads options', call: bash('npm run test $SUITE'), claude: 'none' },
    { name: 'bash differs: a denied command inside `eval`', call: bash("eval 'rm -rf build'"), claude: 'none', differs: general('deny', '`eval`') },
    { name: 'bash differs: allowed with a quoted argument', call: bash("make 'build'"), claude: 'none', differs: general('allow', 'arguments quoted') },
    { name: 'bash differs: not allowed through `noglob`', call: bash('noglob make build'), claude: 'allow', differs: general('none', 'through `noglob`') },
    { name: 'bash: a deny rule looks past `noglob`', call: bash('noglob rm -rf build'), claude: 'deny' },
    { name: 'bash differs: a quoted blank standing for two words', call: bash('git "push origin" dev'), claude: 'ask', differs: general('none', 'a quoted word holding a blank') },
    { name: 'bash differs: a denied command inside `bash -c`', call: bash('bash -c "rm -rf build"'), claude: 'none', differs: general('deny', 'inside `bash -c`') },
    // A directory that does not exist: Claude Code runs its own `find`, not the stub. `-delete` is
    // an option that writes, which the imported `*` does not cover: as Claude Code, dshpolicy asks.
    { name: 'bash: `find -delete` is not allowed under `find:*`', call: bash('find ./no-such-dir -delete'), claude: 'none' },
    { name: 'bash: a Read deny also covers `cat`', call: bash('cat .env'), claude: 'deny' },
    // Read, Edit and Write: every anchor kind
    { name: 'path: a bare name is denied at the top of the working directory', call: read('.env'), claude: 'deny' },
    { name: 'path: a bare name is denied deeper down', call: read('sub/.env'), claude: 'deny' },
    { name: 'path: a Read deny also covers Edit', call: edit('.env'), claude: 'deny' },
    { name: 'path: a Read deny of one file', call: read('secret.txt'), claude: 'deny' },
    { name: 'path: `/src/**` is anchored at the project root', call: edit('src/a.ts'), claude: 'allow' },
    { name: 'path: an Edit allow also allows reading', call: read('src/a.ts'), claude: 'allow' },
    { name: 'path: an edit no rule names', call: edit('lib/a.ts'), claude: 'none' },
    { name: 'path: `docs/*.md` allows a write there', call: write('docs/x.md'), claude: 'allow' },
    { name: 'path: `docs/*.md` does not reach a subdirectory', call: write('docs/sub/x.md'), claude: 'none' },
    { name: 'path: `./private/*` asks', call: read('private/p.txt'), claude: 'ask' },
    { name: 'path: `//` is the file system root (allow)', call: { name: 'Read', input: { file_path: '<OUT>/allowed/f.txt' } }, claude: 'allow' },
    { name: 'path: `//` outside the allowed directory', call: { name: 'Read', input: { file_path: '<OUT>/other.txt' } }, claude: 'none' },
    { name: 'path: `//` is the file system root (deny)', call: { name: 'Edit', input: { file_path: '<OUT>/locked/f.txt', old_string: 'alpha', new_string: 'beta' } }, claude: 'deny' },
    { name: 'path: an Edit deny covers Write', call: { name: 'Write', input: { file_path: '<OUT>/locked/new.txt', content: 'x\n' } }, claude: 'deny' },
    { name: 'path: an Edit deny does not cover Read', call: { name: 'Read', input: { file_path: '<OUT>/locked/f.txt' } }, claude: 'none' },
    { name: 'path: `~/` is the home directory', call: read('~/notes/n.txt'), claude: 'allow' },
    { name: 'path: `~/` outside the allowed directory', call: read('~/other.txt'), claude: 'none' },
    { name: 'path: a single-segment directory deny at the top', call: edit('generated/x.ts'), claude: 'deny' },
    { name: 'path: a single-segment directory deny at any depth', call: edit('a/generated/x.ts'), claude: 'deny' },
    // WebFetch domains
    { name: 'webfetch: `*.allowed.test` allows a subdomain', call: fetch('https://a.allowed.test/x'), claude: 'allow' },
    { name: 'webfetch: `*.allowed.test` leaves the apex alone', call: fetch('https://allowed.test/'), claude: 'none' },
    { name: 'webfetch: an ask rule', call: fetch('https://ask.test/'), claude: 'ask' },
    { name: 'webfetch: a deny rule', call: fetch('https://deny.test/'), claude: 'deny' },
    { name: 'webfetch: a deny rule ignores case and a trailing dot', call: fetch('https://DENY.test./x'), claude: 'deny' },
  ];
}

/** What one tool_result says, in one mode. */
type Seen = 'denied' | 'requested' | 'ran' | 'held';

function seen(call: Call, text: string): Seen {
  if (/has been denied|denied by your permission settings|covered by a Read deny rule|denied access to domain/u.test(text)) return 'denied';
  if (text.startsWith('Claude requested permissions to ')) return 'requested';
  const ran =
    call.name === 'Bash' ? text.includes('stub ')
    : call.name === 'Read' ? /^\s*1\t/u.test(text) || text.includes('File does not exist')
    : call.name === 'Edit' ? text.includes('has been updated')
    : call.name === 'Write' ? text.includes('File created successfully')
    : text.includes('Unable to verify if domain');
  return ran ? 'ran' : 'held';
}

/** Claude Code's word for a call from the default-mode and the bypass-mode result. */
function word(normal: Seen, bypass: Seen): Word {
  if (normal === 'denied') return 'deny';
  if (normal === 'ran') return 'allow';
  if (bypass === 'requested') return 'ask';
  return 'none';
}

function withOut(call: Call): Call {
  return { name: call.name, input: JSON.parse(JSON.stringify(call.input).replaceAll('<OUT>', OUT)) as Record<string, unknown> };
}

interface Observed {
  normal: RunResult;
  bypass: RunResult;
  texts: { normal: string[]; bypass: string[] };
}

let observed: Observed | undefined;

function resultsOf(run: RunResult, count: number): string[] {
  // Request k+1 carries the tool_result of call k.
  return Array.from({ length: count }, (_, k) => {
    const request = run.requests[k + 1];
    return request === undefined ? '' : (toolResults(request).at(-1)?.text ?? '');
  });
}

async function observe(calls: Call[]): Promise<Observed> {
  const bin = path.join(OUT, 'bin');
  const common = {
    script: calls.map((tool) => ({ tool })),
    files: FILES,
    permissions: permissions(),
    timeoutMs: 240_000,
  };
  const env = { PATH: `${bin}:${process.env.PATH ?? ''}` };
  const [normal, bypass] = await Promise.all([
    runClaude({ ...common, env }),
    // Root may skip permissions only inside a sandbox; the variable says it is one.
    runClaude({ ...common, env: { ...env, IS_SANDBOX: '1' }, args: ['--dangerously-skip-permissions'] }),
  ]);
  for (const run of [normal, bypass]) {
    if (run.exitCode !== 0 || run.timedOut || run.requests.length !== calls.length + 1) {
      throw new Error(`the CLI run failed: exit ${String(run.exitCode)}, ${run.requests.length} model requests; stderr: ${run.stderr.slice(0, 1500)}`);
    }
  }
  return { normal, bypass, texts: { normal: resultsOf(normal, calls.length), bypass: resultsOf(bypass, calls.length) } };
}

/** dshpolicy's decision for a call, with the rules imported from the run's settings file. */
function dshpolicy(run: RunResult, call: Call): { decision: string; reported: { code: string; message: string }[] } {
  const text = `${JSON.stringify({ permissions: permissions() }, null, 2)}\n`;
  const file = path.join(run.project, '.claude', 'settings.json');
  const imported = importClaudePermissions(text, file, { home: run.home });
  const policy = compilePolicy({ version: IR_VERSION, sources: [file], rules: imported.rules, tests: [] });
  const event = { seam: 'pre-tool', tool: call.name, input: call.input, cwd: run.project, home: run.home } as PolicyEvent;
  return { decision: evaluateSync(policy, event).decision, reported: imported.diagnostics.map((d) => ({ code: d.code, message: d.message })) };
}

describe.skipIf(process.env.DSHPOLICY_E2E === '0')(`permissions: Claude Code ${CLAUDE_VERSION} vs the imported rules`, () => {
  const table = rows();

  beforeAll(async () => {
    await ensureClaude();
    OUT = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dshpolicy-perm-')));
    for (const dir of ['allowed', 'locked', 'bin']) mkdirSync(path.join(OUT, dir));
    writeFileSync(path.join(OUT, 'allowed', 'f.txt'), 'alpha\n');
    writeFileSync(path.join(OUT, 'locked', 'f.txt'), 'alpha\n');
    writeFileSync(path.join(OUT, 'other.txt'), 'alpha\n');
    for (const name of STUBS) {
      const stub = path.join(OUT, 'bin', name);
      writeFileSync(stub, `#!/bin/sh\necho "stub ${name} $*"\n`);
      chmodSync(stub, 0o755);
    }
    observed = await observe(table.map((r) => withOut(r.call)));
  }, 600_000);

  afterAll(() => {
    if (OUT !== '' && process.env.DSHPOLICY_E2E_KEEP !== '1') rmSync(OUT, { recursive: true, force: true });
  });

  it('imports the settings with no rule skipped', () => {
    const r = importClaudePermissions(JSON.stringify({ permissions: permissions() }), '/p/.claude/settings.json', { home: '/h' });
    expect(r.rules).toHaveLength(Object.values(permissions()).flat().length);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  table.forEach((row, k) => {
    it(row.name, () => {
      const o = observed!;
      const call = withOut(row.call);
      const normal = seen(call, o.texts.normal[k]!);
      const bypass = seen(call, o.texts.bypass[k]!);
      const mine = dshpolicy(o.normal, call);
      const context = JSON.stringify({ call, normal: o.texts.normal[k]!.slice(0, 300), bypass: o.texts.bypass[k]!.slice(0, 300), dshpolicy: mine.decision }, null, 2);
      expect(word(normal, bypass), context).toBe(row.claude);
      if (row.differs === undefined) {
        expect(mine.decision, context).toBe(row.claude);
      } else {
        expect(mine.decision, context).toBe(row.differs.dshpolicy);
        expect(mine.reported.filter((d) => d.code === row.differs!.code).map((d) => d.message).join('\n'), context).toContain(row.differs.says);
      }
    });
  });
});
