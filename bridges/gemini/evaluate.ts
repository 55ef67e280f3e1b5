/**
 * Gemini CLI's rule loop (policy/policy-engine.ts, `PolicyEngine.check` and `ruleMatches`) over
 * the rules of one policy file, written independently of dshpolicy's engine: the first rule, by
 * priority and then file order, whose tool, MCP server, approval modes, environment, subagent,
 * annotations and argument regex match decides. The regexes are JavaScript regexes tested against
 * the call's arguments as stable JSON (sorted keys).
 *
 * Not modelled, because they are Gemini CLI's own checks rather than the file's: splitting a
 * compound shell command and checking each part, asking about redirections, its shell heuristics,
 * build-file protection, and the default decision when no rule matches (`none` here).
 */
import type { GeminiDecision, GeminiMode, GeminiRule } from './read.js';
import { GEMINI_TO_DSH } from './tools.js';

export interface GeminiCall {
  /** The tool name as Gemini CLI calls it; an MCP tool is `mcp_<server>_<tool>`. */
  name: string;
  args: Record<string, unknown>;
  /** The MCP server of an MCP tool. */
  server?: string;
  annotations?: Record<string, unknown>;
}

export interface GeminiContext {
  mode: GeminiMode;
  interactive: boolean;
  subagent?: string;
}

export const DEFAULT_CONTEXT: GeminiContext = { mode: 'default', interactive: true };

export interface GeminiVerdict {
  decision: GeminiDecision | 'none';
  rule?: GeminiRule;
}

/** Gemini CLI's `stableStringify`: JSON with object keys sorted. */
export function stableStringify(value: unknown): string {
  const go = (v: unknown): string => {
    if (v === undefined || v === null || typeof v === 'function') return 'null';
    if (typeof v !== 'object') return JSON.stringify(v);
    if (Array.isArray(v)) return `[${v.map((x) => (x === undefined || typeof x === 'function' ? 'null' : go(x))).join(',')}]`;
    const obj = v as Record<string, unknown>;
    const pairs: string[] = [];
    for (const k of Object.keys(obj).sort()) {
      const x = obj[k];
      if (x !== undefined && typeof x !== 'function') pairs.push(`${JSON.stringify(k)}:${go(x)}`);
    }
    return `{${pairs.join(',')}}`;
  };
  return go(value);
}

/** The names a call is tried under: its own and the legacy aliases of the same tool. */
function aliases(name: string): string[] {
  const canonical = name === 'search_file_content' ? 'grep_search' : name;
  const out = new Set([name, canonical]);
  if (canonical === 'grep_search') out.add('search_file_content');
  return [...out];
}

function toolMatches(pattern: string, mcpName: string | undefined, call: GeminiCall): boolean {
  const server = call.server;
  const bare = server !== undefined && call.name.startsWith(`mcp_${server}_`) ? call.name.slice(`mcp_${server}_`.length) : call.name;
  if (mcpName !== undefined) {
    if (server === undefined) return false;
    if (mcpName !== '*' && server !== mcpName) return false;
    if (pattern === '*') return true;
    return pattern === bare || pattern === call.name;
  }
  if (pattern === '*') return true;
  if (pattern === 'mcp_*') return server !== undefined;
  const anyServer = /^mcp_\*_(.+)$/.exec(pattern);
  if (anyServer) return server !== undefined && bare === anyServer[1];
  if (pattern.startsWith('mcp_') && pattern.endsWith('_*')) {
    const s = pattern.slice(4, -2);
    return server !== undefined && server === s && call.name.startsWith(`mcp_${s}_`);
  }
  return aliases(call.name).includes(pattern);
}

interface Compiled {
  rule: GeminiRule;
  tool: string;
  regex: RegExp | undefined;
}

/** The rules expanded as Gemini CLI expands them (one per pattern and tool name), in its order. */
export function compileGemini(rules: readonly GeminiRule[]): Compiled[] {
  const out: { c: Compiled; priority: number; seq: number }[] = [];
  let seq = 0;
  for (const rule of rules) {
    for (const p of rule.patterns) {
      for (const tool of rule.toolNames) {
        out.push({ c: { rule, tool, regex: p === undefined ? undefined : new RegExp(p) }, priority: rule.priority, seq: seq++ });
      }
    }
  }
  return out.sort((a, b) => b.priority - a.priority || a.seq - b.seq).map((x) => x.c);
}

function annotationsMatch(want: Record<string, unknown> | undefined, have: Record<string, unknown> | undefined): boolean {
  if (want === undefined) return true;
  if (have === undefined) return false;
  return Object.entries(want).every(([k, v]) => have[k] === v);
}

export function evaluateGemini(compiled: readonly Compiled[], call: GeminiCall, ctx: GeminiContext = DEFAULT_CONTEXT): GeminiVerdict {
  const json = stableStringify(call.args);
  for (const c of compiled) {
    const r = c.rule;
    if (r.modes && r.modes.length > 0 && !r.modes.includes(ctx.mode)) continue;
    if (r.subagent !== undefined && r.subagent !== ctx.subagent) continue;
    if (r.interactive !== undefined && r.interactive !== ctx.interactive) continue;
    if (!toolMatches(c.tool, r.mcpName, call)) continue;
    if (!annotationsMatch(r.toolAnnotations, call.annotations)) continue;
    if (c.regex && !c.regex.test(json)) continue;
    return { decision: r.decision, rule: r };
  }
  return { decision: 'none' };
}

/** The dshpolicy event for a Gemini CLI call, by the tool mapping (the input is the arguments as they are). */
export function eventOfCall(call: GeminiCall, ctx: GeminiContext = DEFAULT_CONTEXT): Record<string, unknown> {
  const tool = call.server !== undefined ? `mcp__${call.server}__${call.name.slice(`mcp_${call.server}_`.length)}` : (GEMINI_TO_DSH[call.name] ?? call.name);
  const modes: Record<GeminiMode, string> = { default: 'default', autoEdit: 'acceptEdits', plan: 'plan', yolo: 'bypassPermissions' };
  return { seam: 'pre-tool', tool, input: call.args, permission_mode: modes[ctx.mode] };
}
