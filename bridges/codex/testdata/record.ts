/**
 * Records the real Codex rollouts in `rollouts/` (see README.md here).
 *
 * Runs the pinned `codex exec` offline against the e2e stand-in model (bridges/codex/e2e/), once or
 * several times in one CODEX_HOME and project (later runs with `codex exec resume --last`, so one
 * rollout holds several prompts). UserPromptSubmit, PreToolUse and Stop hooks record their stdin
 * payloads and how much of the rollout existed when they ran (`<name>.hooks.json`): what Codex itself
 * said the turn's tool calls and last message were, to check the readers against.
 *
 * Run from the repo root:
 *   npx esbuild bridges/codex/testdata/record.ts --bundle --platform=node --format=esm \
 *     --outfile=/tmp/record-codex.mjs
 *   DSHPOLICY_E2E_CACHE=$PWD/.cache/e2e node /tmp/record-codex.mjs [scenario ...]
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify as tomlStringify } from 'smol-toml';
import { ensureCodex } from '../e2e/install.js';
import { startMockModel, type Turn } from '../e2e/model.js';

interface Run {
  prompt: string;
  script: Turn[];
  finalText?: string;
}

interface Scenario {
  runs: Run[];
  /** The Stop hook blocks once per turn (`decision: block` unless `stop_hook_active`). */
  blockOnce?: boolean;
  /** Configure the tiny stdio MCP server below as `[mcp_servers.notes]`. */
  mcp?: boolean;
}

const PATCH = '*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** End Patch\n';

const SCENARIOS: Record<string, Scenario> = {
  // One prompt, one exec_command, then the closing text.
  exec: {
    runs: [{ prompt: 'say hello', script: [{ call: { name: 'exec_command', args: { cmd: 'echo hello' } } }, { text: 'Said hello.' }] }],
  },
  // Two prompts in one session; the second makes two calls (exec_command, apply_patch) and one MCP call.
  'two-turns': {
    mcp: true,
    runs: [
      { prompt: 'first task', script: [{ call: { name: 'exec_command', args: { cmd: 'echo one' } } }, { text: 'First done.' }] },
      {
        prompt: 'second task',
        script: [
          { call: { name: 'exec_command', args: { cmd: 'echo two', workdir: '.' } } },
          { custom: { name: 'apply_patch', input: PATCH } },
          { call: { name: 'lookup', namespace: 'mcp__notes', args: { q: 'x' } } },
          { text: 'Second done.' },
        ],
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
          { call: { name: 'exec_command', args: { cmd: 'echo a' } } },
          { text: 'First answer.' },
          { call: { name: 'exec_command', args: { cmd: 'echo b' } } },
          { text: 'Second answer.' },
        ],
      },
    ],
  },
};

const HOOK = `import fs from 'node:fs';
const payload = JSON.parse(fs.readFileSync(0, 'utf8'));
const dir = process.env.RECORD_OUT;
let n = 0;
while (fs.existsSync(dir + '/hook-' + n + '.json')) n++;
fs.writeFileSync(dir + '/hook-' + n + '.json', JSON.stringify(payload) + '\\n');
try { fs.copyFileSync(payload.transcript_path, dir + '/hook-' + n + '.jsonl'); } catch {}
if (payload.hook_event_name === 'Stop' && fs.existsSync(dir + '/block-once') && payload.stop_hook_active !== true) {
  console.log(JSON.stringify({ decision: 'block', reason: 'check your work' }));
}
`;

/** A minimal MCP server on stdio (newline-delimited JSON-RPC) with one tool, `lookup`. */
const MCP = `import readline from 'node:readline';
const send = (msg) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let req;
  try { req = JSON.parse(line); } catch { return; }
  if (req.id === undefined) return;
  if (req.method === 'initialize') {
    send({ id: req.id, result: { protocolVersion: req.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'notes', version: '1.0.0' } } });
  } else if (req.method === 'tools/list') {
    send({ id: req.id, result: { tools: [{ name: 'lookup', description: 'Looks a note up', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }] } });
  } else if (req.method === 'tools/call') {
    send({ id: req.id, result: { content: [{ type: 'text', text: 'note for ' + JSON.stringify(req.params?.arguments ?? {}) }], isError: false } });
  } else {
    send({ id: req.id, error: { code: -32601, message: 'method not found' } });
  }
});
`;

/** Run from the repo root (the bundled script does not live here). */
const OUT = path.resolve('bridges/codex/testdata');
const PASSED_ENV = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'USER', 'LOGNAME', 'SHELL', 'TERM'];

async function record(name: string, scenario: Scenario): Promise<void> {
  const codex = await ensureCodex();
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'dshpolicy-rec-')));
  const project = path.join(root, 'project');
  const codexHome = path.join(root, 'codex-home');
  const home = path.join(root, 'home');
  const out = path.join(root, 'out');
  try {
    for (const dir of [project, codexHome, home, out]) await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(root, 'hook.mjs'), HOOK);
    await fs.writeFile(path.join(root, 'mcp.mjs'), MCP);
    if (scenario.blockOnce === true) await fs.writeFile(path.join(out, 'block-once'), '');
    const handler = { hooks: [{ type: 'command', command: `node ${path.join(root, 'hook.mjs')}`, timeout: 30 }] };
    const hooks = { hooks: { UserPromptSubmit: [handler], PreToolUse: [{ matcher: '*', ...handler }], Stop: [handler] } };
    await fs.writeFile(path.join(codexHome, 'hooks.json'), JSON.stringify(hooks, null, 2));
    for (const [i, run] of scenario.runs.entries()) {
      const model = await startMockModel({ script: run.script, ...(run.finalText !== undefined ? { finalText: run.finalText } : {}) });
      try {
        const config: Record<string, unknown> = {
          model: 'gpt-5.5',
          model_provider: 'e2e',
          approval_policy: 'never',
          sandbox_mode: 'danger-full-access',
          check_for_update_on_startup: false,
          analytics: { enabled: false },
          model_providers: {
            e2e: { name: 'e2e stand-in', base_url: model.baseUrl, wire_api: 'responses', env_key: 'DSHPOLICY_E2E_MODEL_KEY', request_max_retries: 0, stream_max_retries: 0 },
          },
        };
        if (scenario.mcp === true) config['mcp_servers'] = { notes: { command: 'node', args: [path.join(root, 'mcp.mjs')] } };
        await fs.writeFile(path.join(codexHome, 'config.toml'), tomlStringify(config));
        const env: Record<string, string> = {};
        for (const key of PASSED_ENV) if (process.env[key] !== undefined) env[key] = process.env[key]!;
        Object.assign(env, {
          HOME: home,
          CODEX_HOME: codexHome,
          NO_PROXY: '127.0.0.1,localhost',
          no_proxy: '127.0.0.1,localhost',
          DSHPOLICY_E2E_MODEL_KEY: 'e2e-not-a-secret',
          RECORD_OUT: out,
        });
        const args = ['exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', ...(i > 0 ? ['resume', '--last'] : []), '--', run.prompt];
        const code = await exec(codex, args, project, env);
        if (code !== 0) throw new Error(`${name}: codex exited ${String(code)}`);
        if (process.env['RECORD_DEBUG'] === '1') {
          for (const req of model.responseRequests()) console.error('TOOLS', JSON.stringify((req.body as { tools?: unknown }).tools, (k, v: unknown) => (k === 'description' || k === 'parameters' ? undefined : v)));
        }
      } finally {
        await model.close();
      }
    }
    const scrub = (text: string): string => text.replaceAll(root, '/tmp/e2e');
    const rollouts = await findRollouts(path.join(codexHome, 'sessions'));
    if (rollouts.length !== 1) throw new Error(`${name}: expected one rollout, found ${rollouts.join(', ')}`);
    const full = await fs.readFile(rollouts[0]!, 'utf8');
    await fs.writeFile(path.join(OUT, 'rollouts', `${name}.jsonl`), shrink(scrub(full)));
    await fs.writeFile(path.join(OUT, 'rollouts', `${name}.hooks.json`), JSON.stringify(await hookRecords(out, full, scrub), null, 2) + '\n');
    console.log(`${name}: recorded`);
  } finally {
    if (process.env['RECORD_KEEP'] === '1') console.log(`kept ${root}`);
    else await fs.rm(root, { recursive: true, force: true });
  }
}

/**
 * Every hook run, in order: the event, the hook's stdin payload, and how many lines of the rollout
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
      // no rollout yet
    }
    if (!full.startsWith(snapshot)) throw new Error(`the rollout at ${file} is not a prefix of the final one`);
    const lines = snapshot.split('\n').length - 1;
    records.push({ event: payload.hook_event_name, transcriptLines: lines, partialLastLine: !(snapshot === '' || snapshot.endsWith('\n')), payload });
  }
  return records;
}

/** Line types whose payloads the readers use; long strings of every other line are elided. */
const KEPT = new Set(['response_item']);
const MAX_STRING = 200;

/** Keeps the fixtures small: long strings outside response_item lines become `<elided: N chars>`. */
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

async function findRollouts(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (current: string): Promise<void> => {
    for (const entry of await fs.readdir(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.name.endsWith('.jsonl')) found.push(full);
    }
  };
  await walk(dir);
  return found;
}

function exec(cmd: string, args: string[], cwd: string, env: Record<string, string>): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const kill = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    };
    const timer = setTimeout(kill, 60_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      kill();
      if (code !== 0 || process.env['RECORD_DEBUG'] === '1') console.error(stderr);
      resolve(code);
    });
  });
}

const wanted = process.argv.slice(2);
for (const [name, scenario] of Object.entries(SCENARIOS)) {
  if (wanted.length === 0 || wanted.includes(name)) await record(name, scenario);
}
