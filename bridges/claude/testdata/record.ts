/**
 * Records the real Claude Code session transcripts in `transcripts/` (see README.md here).
 *
 * Runs the pinned `claude -p` offline against the e2e stand-in model (bridges/claude/e2e/), once or
 * several times in one project and HOME (later runs with `--continue`, so one session file holds
 * several prompts). UserPromptSubmit, PreToolUse and Stop hooks record their stdin payloads and how
 * much of the transcript existed when they ran (`<name>.hooks.json`): what Claude Code itself said the
 * turn's tool calls and last message were, to check the readers against.
 *
 * Run from the repo root:
 *   npx esbuild bridges/claude/testdata/record.ts --bundle --platform=node --format=esm \
 *     --outfile=/tmp/record-claude.mjs
 *   DSHPOLICY_E2E_CACHE=$PWD/.cache/e2e node /tmp/record-claude.mjs [scenario ...]
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureClaude } from '../e2e/install.js';
import { startModelServer, type Turn } from '../e2e/model.js';
import { killTree } from '../e2e/proc.js';

interface Run {
  prompt: string;
  script: Turn[];
  finalText?: string;
}

interface Scenario {
  runs: Run[];
  /** The Stop hook blocks once per turn (`decision: block` unless `stop_hook_active`). */
  blockOnce?: boolean;
}

const SCENARIOS: Record<string, Scenario> = {
  // One prompt, one Bash call, then the closing text.
  bash: {
    runs: [{ prompt: 'say hello', script: [{ tool: { name: 'Bash', input: { command: 'echo hello', description: 'Say hello' } } }], finalText: 'Said hello.' }],
  },
  // Two prompts in one session; the second turn makes two calls (Bash, then Write).
  'two-turns': {
    runs: [
      { prompt: 'first task', script: [{ tool: { name: 'Bash', input: { command: 'echo one' } } }], finalText: 'First done.' },
      {
        prompt: 'second task',
        script: [
          { tool: { name: 'Bash', input: { command: 'echo two' } }, text: 'Running two things.' },
          { tool: { name: 'Write', input: { file_path: 'PROJECT/notes.txt', content: 'hi\n' } } },
        ],
        finalText: 'Second done.',
      },
    ],
  },
  // The Stop hook blocks once: the agent continues, makes another call and stops again.
  'stop-continuation': {
    blockOnce: true,
    runs: [
      {
        prompt: 'do the work',
        script: [
          { tool: { name: 'Bash', input: { command: 'echo a' } } },
          { text: 'First answer.' },
          { tool: { name: 'Bash', input: { command: 'echo b' } } },
          { text: 'Second answer.' },
        ],
      },
    ],
  },
};

const HOOK = `import fs from 'node:fs';
const payload = JSON.parse(fs.readFileSync(0, 'utf8'));
const dir = process.env.CLAUDE_PROJECT_DIR;
let n = 0;
while (fs.existsSync(dir + '/hook-' + n + '.json')) n++;
fs.writeFileSync(dir + '/hook-' + n + '.json', JSON.stringify(payload) + '\\n');
try { fs.copyFileSync(payload.transcript_path, dir + '/hook-' + n + '.jsonl'); } catch {}
if (payload.hook_event_name === 'Stop' && fs.existsSync(dir + '/.claude/block-once') && payload.stop_hook_active !== true) {
  console.log(JSON.stringify({ decision: 'block', reason: 'check your work' }));
}
`;

/** Run from the repo root (the bundled script does not live here). */
const OUT = path.resolve('bridges/claude/testdata');
const PASSED_ENV = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'SHELL', 'USER', 'LOGNAME'];

async function record(name: string, scenario: Scenario): Promise<void> {
  const claude = await ensureClaude();
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'dshpolicy-rec-')));
  const project = path.join(root, 'project');
  const home = path.join(root, 'home');
  const tmp = path.join(root, 'tmp');
  try {
    await fs.mkdir(path.join(project, '.claude'), { recursive: true });
    await fs.mkdir(home, { recursive: true });
    await fs.mkdir(tmp, { recursive: true });
    await fs.writeFile(path.join(project, '.claude', 'hook.mjs'), HOOK);
    if (scenario.blockOnce === true) await fs.writeFile(path.join(project, '.claude', 'block-once'), '');
    const handler = { hooks: [{ type: 'command', command: 'node "$CLAUDE_PROJECT_DIR/.claude/hook.mjs"' }] };
    const settings = { hooks: { UserPromptSubmit: [handler], PreToolUse: [handler], Stop: [handler] } };
    await fs.writeFile(path.join(project, '.claude', 'settings.json'), JSON.stringify(settings, null, 2));
    await fs.writeFile(path.join(home, '.claude.json'), JSON.stringify({ projects: { [project]: { hasTrustDialogAccepted: true } } }));
    for (const [i, run] of scenario.runs.entries()) {
      const script = JSON.parse(JSON.stringify(run.script).replaceAll('PROJECT', project)) as Turn[];
      const server = await startModelServer({ script, ...(run.finalText !== undefined ? { finalText: run.finalText } : {}) });
      try {
        const env: NodeJS.ProcessEnv = {};
        for (const key of PASSED_ENV) if (process.env[key] !== undefined) env[key] = process.env[key];
        Object.assign(env, { HOME: home, TMPDIR: tmp, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' });
        const args = ['-p', run.prompt, '--output-format', 'json', ...(i > 0 ? ['--continue'] : []), '--allowedTools', 'Bash', 'Write'];
        const code = await exec(claude, args, project, env);
        if (code !== 0) throw new Error(`${name}: claude exited ${String(code)}`);
      } finally {
        await server.close();
      }
    }
    const scrub = (text: string): string => text.replaceAll(root, '/tmp/e2e').replaceAll(root.replace(/[^A-Za-z0-9]/g, '-'), '-tmp-e2e');
    const transcripts = await findTranscripts(path.join(home, '.claude', 'projects'));
    if (transcripts.length !== 1) throw new Error(`${name}: expected one transcript, found ${transcripts.length}`);
    const full = await fs.readFile(transcripts[0]!, 'utf8');
    await fs.writeFile(path.join(OUT, 'transcripts', `${name}.jsonl`), shrink(scrub(full)));
    await fs.writeFile(path.join(OUT, 'transcripts', `${name}.hooks.json`), JSON.stringify(await hookRecords(project, full, scrub), null, 2) + '\n');
    console.log(`${name}: recorded`);
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

/**
 * Every hook run, in order: the event, the hook's stdin payload, and how many lines of the transcript
 * existed when the hook ran (the copy the hook made is checked to be a prefix of the final file, so
 * the count is enough to rebuild it).
 */
async function hookRecords(dir: string, full: string, scrub: (text: string) => string): Promise<unknown[]> {
  const records: unknown[] = [];
  const names = (await fs.readdir(dir)).filter((f) => /^hook-\d+\.json$/.test(f));
  names.sort((a, b) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]));
  for (const file of names) {
    const payload = JSON.parse(scrub(await fs.readFile(path.join(dir, file), 'utf8'))) as { hook_event_name?: unknown };
    let snapshot = '';
    try {
      snapshot = await fs.readFile(path.join(dir, file + 'l'), 'utf8');
    } catch {
      // no transcript yet
    }
    if (!full.startsWith(snapshot)) throw new Error(`the transcript at ${file} is not a prefix of the final one`);
    const lines = snapshot.split('\n').length - 1;
    records.push({ event: payload.hook_event_name, transcriptLines: lines, partialLastLine: !(snapshot === '' || snapshot.endsWith('\n')), payload });
  }
  return records;
}

/** Line types whose content the readers use; long strings of every other line are elided. */
const KEPT = new Set(['user', 'assistant']);
const MAX_STRING = 200;

/** Keeps the fixtures small: long strings outside user/assistant lines become `<elided: N chars>`. */
function shrink(text: string): string {
  const elide = (value: unknown): unknown => {
    if (typeof value === 'string') return value.length > MAX_STRING ? `<elided: ${value.length} chars>` : value;
    if (Array.isArray(value)) return value.map(elide);
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, elide(v)]));
    return value;
  };
  return text
    .split('\n')
    .map((line) => {
      if (line === '') return line;
      const value = JSON.parse(line) as { type?: unknown };
      return KEPT.has(String(value.type)) ? line : JSON.stringify(elide(value));
    })
    .join('\n');
}

async function findTranscripts(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const sub of await fs.readdir(dir)) {
    for (const file of await fs.readdir(path.join(dir, sub))) if (file.endsWith('.jsonl')) out.push(path.join(dir, sub, file));
  }
  return out;
}

function exec(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    child.stdout.resume();
    const timer = setTimeout(() => killTree(child.pid), 60_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      killTree(child.pid);
      resolve(code);
    });
  });
}

const wanted = process.argv.slice(2);
for (const [name, scenario] of Object.entries(SCENARIOS)) {
  if (wanted.length === 0 || wanted.includes(name)) await record(name, scenario);
}
