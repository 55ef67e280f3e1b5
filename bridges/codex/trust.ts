/**
 * Codex's per-hook trust. A hook that is neither managed nor reviewed does not run: Codex keeps,
 * in the user's config.toml, `[hooks.state."<key>"] enabled = …, trusted_hash = "sha256:…"`, where
 * the key is `<absolute source file>:<event label>:<group index>:<handler index>` and the hash is
 * over a normalized identity of the hook (so the same hook written in JSON or TOML shares trust).
 */
import { createHash } from 'node:crypto';
import { diagnostic, type Diagnostic, type Span } from '../../engine/index.js';
import type { HookHandler, MatcherGroup } from '../config.js';
import { keyOf, pointerSegments, prop, type ValueNode } from '../common/tree.js';
import { codexEvent, codexUsesMatcher } from './events.js';

export interface CodexHookState {
  enabled?: boolean;
  trustedHash?: string;
  /** Where the entry is written. */
  span?: Span;
  pointer?: string;
}

/** `[hooks.state]` entries by key; later layers win field by field (as Codex merges them). */
export type CodexHookStates = Map<string, CodexHookState>;

export type CodexTrustStatus = 'managed' | 'trusted' | 'modified' | 'untrusted';

/** The key Codex files a hook's state under. */
export function codexHookKey(sourceFile: string, event: string, groupIndex: number, handlerIndex: number): string {
  const label = codexEvent(event)?.label ?? event;
  return `${sourceFile}:${label}:${groupIndex}:${handlerIndex}`;
}

/** Events whose `additionalContextLimit` takes part in the hash (when not the default 2500). */
const CONTEXT_LIMIT_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'SessionStart', 'UserPromptSubmit', 'SubagentStart']);

export interface HashInput {
  event: string;
  matcher?: string | null;
  command: string;
  /** The `timeout` as written (seconds); null or undefined when absent. */
  timeout?: number | null;
  async?: boolean;
  statusMessage?: string | null;
  additionalContextLimit?: number | null;
}

/**
 * The trust hash Codex computes for a command hook: the identity `{event_name, matcher?, hooks:
 * [handler]}` with the timeout filled in (`SessionEnd`: 1..3 s, default 1; others: at least 1,
 * default 600), `async` always present and absent optional fields left out, as JSON with sorted
 * keys and no spaces, hashed with SHA-256.
 */
export function codexHookHash(h: HashInput): string {
  const label = codexEvent(h.event)?.label ?? h.event;
  const handler: Record<string, unknown> = {
    type: 'command',
    command: h.command,
    timeout: normalizedTimeout(h.event, h.timeout),
    async: h.async === true,
  };
  if (typeof h.statusMessage === 'string') handler['statusMessage'] = h.statusMessage;
  if (typeof h.additionalContextLimit === 'number' && CONTEXT_LIMIT_EVENTS.has(h.event) && h.additionalContextLimit !== 2500) {
    handler['additionalContextLimit'] = h.additionalContextLimit;
  }
  const identity: Record<string, unknown> = { event_name: label, hooks: [handler] };
  if (codexUsesMatcher(h.event) && typeof h.matcher === 'string') identity['matcher'] = h.matcher;
  return 'sha256:' + createHash('sha256').update(canonicalJson(identity), 'utf8').digest('hex');
}

export function normalizedTimeout(event: string, timeout: number | null | undefined): number {
  const t = typeof timeout === 'number' && Number.isFinite(timeout) ? Math.trunc(timeout) : undefined;
  if (event === 'SessionEnd') return Math.min(3, Math.max(1, t ?? 1));
  return Math.max(1, t ?? 600);
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The hash input of a loaded handler (from what is written, as Codex hashes it). */
export function hashInputOf(group: MatcherGroup, handler: HookHandler): HashInput {
  const raw = handler.raw;
  const num = (x: unknown) => (typeof x === 'number' ? x : null);
  return {
    event: group.event,
    matcher: group.matcher ?? null,
    command: typeof raw['command'] === 'string' ? raw['command'] : handler.command ?? '',
    timeout: num(raw['timeout']),
    async: raw['async'] === true,
    statusMessage: typeof raw['statusMessage'] === 'string' ? raw['statusMessage'] : null,
    additionalContextLimit: num(raw['additionalContextLimit']),
  };
}

/** Group and handler index of a handler, from its pointer (`/hooks/<Event>/<g>/hooks/<h>`). */
export function handlerIndices(pointer: string): { groupIndex: number; handlerIndex: number } | undefined {
  const s = pointerSegments(pointer);
  if (s.length !== 5 || s[0] !== 'hooks' || s[3] !== 'hooks') return undefined;
  const g = Number(s[2]);
  const h = Number(s[4]);
  return Number.isInteger(g) && Number.isInteger(h) ? { groupIndex: g, handlerIndex: h } : undefined;
}

export function trustStatus(managed: boolean, currentHash: string, state: CodexHookState | undefined): CodexTrustStatus {
  if (managed) return 'managed';
  if (state?.trustedHash === undefined) return 'untrusted';
  return state.trustedHash === currentHash ? 'trusted' : 'modified';
}

/**
 * Reads `[hooks.state]` of a config.toml tree. Codex skips malformed entries without a word; they
 * are reported here as warnings.
 */
export function readHookStates(root: ValueNode | undefined, diagnostics: Diagnostic[]): CodexHookStates {
  const states: CodexHookStates = new Map();
  const table = prop(prop(root, 'hooks'), 'state');
  if (!table) return states;
  if (table.kind !== 'object') {
    diagnostics.push(
      diagnostic('codex/invalid-state', 'warning', '`hooks.state` must be a table of hook states; codex ignores it', { span: table.span, pointer: table.pointer }),
    );
    return states;
  }
  for (const { key, node } of table.props ?? []) {
    const k = key.trim();
    const where = keyOf(node);
    if (k === '') continue;
    if (node.kind !== 'object') {
      diagnostics.push(diagnostic('codex/invalid-state', 'warning', `the hook state \`${key}\` must be a table; codex ignores it`, where));
      continue;
    }
    const enabled = prop(node, 'enabled');
    const hash = prop(node, 'trusted_hash');
    if ((enabled && enabled.kind !== 'boolean') || (hash && hash.kind !== 'string')) {
      const bad = enabled && enabled.kind !== 'boolean' ? '`enabled` must be `true` or `false`' : '`trusted_hash` must be a string';
      diagnostics.push(diagnostic('codex/invalid-state', 'warning', `the hook state \`${key}\` is malformed (${bad}); codex ignores it`, where));
      continue;
    }
    const prev = states.get(k) ?? {};
    const next: CodexHookState = { ...prev, ...where };
    if (enabled) next.enabled = enabled.value as boolean;
    if (hash) next.trustedHash = hash.value as string;
    states.set(k, next);
  }
  return states;
}
