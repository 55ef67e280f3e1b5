/**
 * Runs a `run` rule's command hook as a real process: the dialect's shell, the event's cwd, the
 * payload on stdin, a timeout that kills the whole process group, and capped output. A signal ends
 * a hook whose answer no longer counts the same way, at once. Never throws.
 */
import type { spawn as spawnFn } from 'node:child_process';
import { lazyRequire } from '../require.js';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { diagnostic } from '../diagnostics.js';
import type { AnyEvent } from '../events.js';
import type { CompiledRule } from '../compile.js';
import type { HookOutcome, HookRunOptions } from '../evaluate.js';
import { defaultHookTimeoutMs, hookProtocol, type RawHookResult } from './protocol.js';
import { runHttpHook } from './http.js';

export { DEFAULT_HOOK_TIMEOUT_MS, defaultHookTimeoutMs } from './protocol.js';
/** Bytes kept of each of stdout and stderr. */
export const HOOK_OUTPUT_CAP = 1024 * 1024;

export interface RunnerOptions {
  env?: NodeJS.ProcessEnv;
  outputCap?: number;
}

/** A run's options, and a signal that ends the hook (its process group killed, its pipes let go). */
export interface SignalledRunOptions extends HookRunOptions {
  signal?: AbortSignal;
}

/** A runner that takes the signal: assignable wherever a HookRunner goes. */
export type SignalledHookRunner = (rule: CompiledRule, event: AnyEvent, opts?: SignalledRunOptions) => Promise<HookOutcome>;

/** The limits of one process. */
export interface ProcessLimits {
  cwd: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  outputCap: number;
  /** Ends the process early: the group is killed and the run resolves at once, as killed. */
  signal?: AbortSignal;
}

export function runCommand(
  command: string,
  shell: string,
  stdin: string,
  opts: ProcessLimits,
): Promise<RawHookResult> {
  return runProcess(shell, ['-c', command], stdin, opts);
}

/** Runs a program with arguments (no shell), in its own process group. Never rejects. */
export function runProcess(file: string, argv: string[], stdin: string, opts: ProcessLimits): Promise<RawHookResult> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let truncated = false;
    let timedOut = false;
    let settled = false;
    const ender = opts.signal;
    if (ender?.aborted) {
      resolve({ exitCode: null, signal: 'SIGKILL', stdout, stderr, timedOut, truncated });
      return;
    }
    const finish = (r: RawHookResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ender?.removeEventListener('abort', abort);
      resolve(r);
    };
    let child: ReturnType<typeof spawnFn>;
    try {
      // Loaded here, not at start-up: a hook process whose policy runs no command never needs it.
      const { spawn } = lazyRequire('node:child_process') as typeof import('node:child_process');
      child = spawn(file, argv, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      resolve({ exitCode: null, signal: null, stdout: '', stderr: '', timedOut: false, truncated: false, spawnError: String(err) });
      return;
    }
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    // A killed hook's leftovers (a daemon that left the group) may hold its pipes open for as long
    // as they live: once the answer no longer counts, the pipes and the child are let go, so
    // nothing keeps this process alive.
    const release = () => {
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
      child.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
      release();
      finish({ exitCode: null, signal: 'SIGKILL', stdout, stderr, timedOut, truncated });
    }, opts.timeoutMs);
    function abort(): void {
      kill();
      release();
      finish({ exitCode: null, signal: 'SIGKILL', stdout, stderr, timedOut, truncated });
    }
    ender?.addEventListener('abort', abort, { once: true });
    const take = (which: 'out' | 'err') => (chunk: Buffer) => {
      const cur = which === 'out' ? stdout : stderr;
      if (cur.length >= opts.outputCap) {
        truncated = true;
        return;
      }
      const next = cur + chunk.toString('utf8');
      const kept = next.length > opts.outputCap ? ((truncated = true), next.slice(0, opts.outputCap)) : next;
      if (which === 'out') stdout = kept;
      else stderr = kept;
    };
    child.stdout?.on('data', take('out'));
    child.stderr?.on('data', take('err'));
    child.stdin?.on('error', () => {
      /* a hook that exits without reading stdin is fine */
    });
    child.on('error', (err) => finish({ exitCode: null, signal: null, stdout, stderr, timedOut, truncated, spawnError: err.message }));
    child.on('close', (code, signal) => {
      if (!timedOut) kill(); // leftovers of the group, if the hook backgrounded anything
      finish({ exitCode: code, signal, stdout, stderr, timedOut, truncated });
    });
    child.stdin?.end(stdin);
  });
}

/** `${NAME}` placeholders of the agent's variables, filled from the hook's environment. */
function fillPlaceholders(word: string, names: readonly string[], env: NodeJS.ProcessEnv): string {
  return word.replace(/\$\{([A-Z_][A-Z0-9_]*)\}/g, (m, name: string) => (names.includes(name) ? (env[name] ?? m) : m));
}

/**
 * The default runner: a hook runs as its dialect's agent runs it (engine/hooks/protocol.ts: the
 * shell, the environment, the payload and the reading of its answer). A hook of a dialect no
 * protocol is registered for does not run and fails closed.
 */
export function processHookRunner(options: RunnerOptions = {}): SignalledHookRunner {
  return async (cr: CompiledRule, event: AnyEvent, runOpts: SignalledRunOptions = {}): Promise<HookOutcome> => {
    const hook = cr.rule.hook!;
    const protocol = hookProtocol(hook.dialect);
    if (!protocol) return unknownDialect(cr, event);
    const shell = protocol.shell(hook);
    // Offline fixtures often name a working directory of another machine; run there when it exists.
    const wanted = event.cwd ?? process.cwd();
    const cwd = existsSync(wanted) ? wanted : process.cwd();
    const env = { ...(options.env ?? process.env) };
    protocol.environment(hook, cwd, env);
    // Hooks shipped beside a policy find their scripts through the policy's own directory.
    if (cr.rule.span) env['DSHPOLICY_POLICY_DIR'] = dirname(resolve(cr.rule.span.file));
    const limits: ProcessLimits = { cwd, timeoutMs: runOpts.timeoutMs ?? hook.timeoutMs ?? defaultHookTimeoutMs(hook.dialect, event), env, outputCap: options.outputCap ?? HOOK_OUTPUT_CAP };
    if (runOpts.signal) limits.signal = runOpts.signal;
    const stdin = protocol.payloadText(event);
    // Claude Code's exec form runs the program directly, with placeholders filled in each word.
    const raw = hook.http
      ? await runHttpHook({
          url: hook.command,
          body: JSON.stringify(protocol.payload(event)),
          ...(hook.http.headers ? { headers: hook.http.headers } : {}),
          ...(hook.http.allowedEnvVars ? { allowedEnvVars: hook.http.allowedEnvVars } : {}),
          env,
          timeoutMs: limits.timeoutMs,
          outputCap: limits.outputCap,
          ...(limits.signal ? { signal: limits.signal } : {}),
        })
      : hook.args
      ? await runProcess(fillPlaceholders(hook.command, protocol.placeholders, env), hook.args.map((a) => fillPlaceholders(a, protocol.placeholders, env)), stdin, limits)
      : await runCommand(hook.command, shell, stdin, limits);
    let outcome: HookOutcome;
    if (event.seam === 'agent-event') {
      const info = protocol.agentEvents.get(event.event);
      outcome = !info
        ? { exitCode: raw.exitCode, timedOut: raw.timedOut, summary: 'not an event of this agent' }
        : protocol.decodeAgentEvent(raw, event, info, cr.rule.id, hook.command);
    } else {
      outcome = protocol.decode(raw, event, cr.rule.id, hook.command);
    }
    if (cwd !== wanted) {
      (outcome.diagnostics ??= []).push(
        diagnostic('hook/cwd-missing', 'info', `the event's cwd \`${wanted}\` does not exist here; the hook ran in \`${cwd}\``),
      );
    }
    return outcome;
  };
}

/** A hook no registered protocol can run: it does not start, and where it could decide it fails closed. */
function unknownDialect(cr: CompiledRule, event: AnyEvent): HookOutcome {
  const hook = cr.rule.hook!;
  const outcome: HookOutcome = {
    exitCode: null,
    timedOut: false,
    summary: 'no protocol for its dialect',
    diagnostics: [diagnostic('hook/unknown-dialect', 'error', `rule \`${cr.rule.id}\`: no agent protocol is registered for the hook dialect \`${hook.dialect}\`, so the hook cannot run`)],
  };
  const effect = event.seam === 'pre-tool' ? 'deny' : event.seam === 'prompt' || event.seam === 'post-tool' ? 'block' : event.seam === 'agent-event' ? 'deny' : undefined;
  if (effect) {
    outcome.effect = effect;
    outcome.reason = `the hook \`${hook.command}\` cannot run: its dialect \`${hook.dialect}\` is unknown`;
  }
  return outcome;
}
